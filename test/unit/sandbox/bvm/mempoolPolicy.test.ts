/**
 * The sandbox Bitcoin ledger's mempool policy with real bitcoinjs-signed transactions: the minimum relay fee
 * (integer satoshis against the real vsize), nLockTime finality on broadcast, full replace-by-fee with
 * BIP-125 rules 2–6 and Bitcoin Core's reject texts, the `fullRbf: false` opt-in mode, and eviction.
 * P2TR key-path inputs are used where a fee must hit a boundary exactly: Schnorr signatures are always
 * 64 bytes, so the vsize is known before signing.
 */
import { Psbt, type Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { BitcoinNodeError, BitcoinTxRejectedError, type BitcoinTxRejectCode } from '../../../../packages/sandbox/src/bvm/errors.ts';
import { UtxoLedger, type UtxoLedgerOptions } from '../../../../packages/sandbox/src/bvm/ledger.ts';
import { formatMoney, MAX_REPLACEMENT_CANDIDATES } from '../../../../packages/sandbox/src/bvm/replacement.ts';
import { p2trWallet, p2wpkhWallet, regtest, type Coin, type TestWallet } from '../../../e2e/sandbox/bvm/btcWallets.ts';

const NOW = 1_700_000_000;
const FINAL = 0xffffffff;
const sink = p2wpkhWallet();

/** A ledger and a faucet of confirmed coins owned by fresh P2TR wallets. */
function setup(opts: UtxoLedgerOptions = {}) {
  const ledger = new UtxoLedger(opts);
  const coin = (value = 100_000n, owner: TestWallet = p2trWallet()): Coin => ({ ...ledger.fund(owner.output, value, NOW), value, owner });
  return { ledger, coin };
}

/** Signs a version-2 transaction spending `coins` into outputs of `values` (to `to`, default `sink`). */
function spend(coins: Coin[], values: bigint[], opts: { sequence?: number; locktime?: number; to?: TestWallet } = {}): Transaction {
  const psbt = new Psbt({ network: regtest });
  if (opts.locktime !== undefined) psbt.setLocktime(opts.locktime);
  for (const c of coins) {
    psbt.addInput({
      hash: c.txid,
      index: c.vout,
      sequence: opts.sequence ?? FINAL,
      witnessUtxo: { script: c.owner.output, value: c.value },
      ...(c.owner.internalKey ? { tapInternalKey: c.owner.internalKey } : {}),
    });
  }
  for (const value of values) psbt.addOutput({ script: (opts.to ?? sink).output, value });
  coins.forEach((c, i) => psbt.signInput(i, c.owner.signer));
  psbt.finalizeAllInputs();
  return psbt.extractTransaction();
}

/** Signs a one-output spend of P2TR `coins` paying exactly `fee` satoshis to `to`. */
function withFee(coins: Coin[], fee: bigint, opts: { sequence?: number; to?: TestWallet } = {}): Transaction {
  const total = coins.reduce((sum, c) => sum + c.value, 0n);
  return spend(coins, [total - fee], opts);
}

/** vsize of a one-output spend of these P2TR coins (independent of the amounts). */
const vsizeOf = (coins: Coin[]) => BigInt(spend(coins, [1_000n]).virtualSize());

/** Output `vout` of a transaction as a coin owned by `owner`. */
const outOf = (tx: Transaction, owner: TestWallet, vout = 0): Coin => ({ txid: tx.getId(), vout, value: tx.outs[vout]!.value, owner });

function rejection(run: () => unknown): BitcoinTxRejectedError {
  try {
    run();
  } catch (error) {
    if (error instanceof BitcoinTxRejectedError) return error;
    throw error;
  }
  throw new Error('expected a BitcoinTxRejectedError');
}

function expectRejected(ledger: UtxoLedger, tx: Transaction, code: BitcoinTxRejectCode, reason: string): BitcoinTxRejectedError {
  const before = ledger.mempoolTxids();
  const err = rejection(() => ledger.accept(tx, NOW));
  expect(err.code).toBe(code);
  expect(err.reason).toBe(reason);
  expect(ledger.mempoolTxids()).toEqual(before);
  return err;
}

/** Core's CFeeRate::ToString of fee over vsize. */
const feeRate = (fee: bigint, vsize: bigint) => {
  const perKvb = (fee * 1000n) / vsize;
  return `${perKvb / 100_000_000n}.${(perKvb % 100_000_000n).toString().padStart(8, '0')} BTC/kvB`;
};

describe('sandbox Bitcoin ledger: minimum relay fee', () => {
  it('accepts a fee of exactly rate × vsize and refuses one satoshi less, at the default 1 sat/vB and at 3 sat/vB', () => {
    for (const rate of [1n, 3n]) {
      const { ledger, coin } = setup(rate === 1n ? {} : { minFeeRateSatPerVb: rate });
      const c = coin();
      const vsize = vsizeOf([c]);
      const low = withFee([c], rate * vsize - 1n);
      const err = expectRejected(ledger, low, 'BTC_TX_FEE_TOO_LOW', `min relay fee not met, ${rate * vsize - 1n} < ${rate * vsize}`);
      expect(err.toEsploraText()).toBe(
        `sendrawtransaction RPC error: {"code":-26,"message":"min relay fee not met, ${rate * vsize - 1n} < ${rate * vsize}"}`,
      );
      const exact = withFee([c], rate * vsize);
      expect(ledger.accept(exact, NOW)).toEqual({ txid: exact.getId(), known: false, replaced: [] });
    }
  });

  it('refuses a negative fee rate option', () => {
    expect(() => new UtxoLedger({ minFeeRateSatPerVb: -1n })).toThrow(RangeError);
  });
});

describe('sandbox Bitcoin ledger: nLockTime finality on broadcast', () => {
  it('refuses a height lock time above the tip until a block makes it final; all-final sequences ignore it', () => {
    const { ledger, coin } = setup();
    const c = coin();
    const next = ledger.tip.height + 1;
    const locked = spend([c], [99_000n], { locktime: next, sequence: 0xfffffffe });
    const err = expectRejected(ledger, locked, 'BTC_TX_NON_FINAL', 'non-final');
    expect(err.message).toContain(`lock time ${next} is not reached yet`);
    const ignored = spend([c], [98_000n], { locktime: next + 100, sequence: FINAL });
    expect(ledger.accept(ignored, NOW).known).toBe(false);

    const d = coin();
    const later = spend([d], [99_000n], { locktime: ledger.tip.height + 1, sequence: 0xfffffffd });
    expectRejected(ledger, later, 'BTC_TX_NON_FINAL', 'non-final');
    ledger.mine(1, NOW);
    expect(ledger.accept(later, NOW).known).toBe(false);
  });

  it('refuses a time lock time not yet passed by the tip time', () => {
    const { ledger, coin } = setup();
    const c = coin();
    const locked = spend([c], [99_000n], { locktime: ledger.tip.timestampSec + 3_600, sequence: 0xfffffffe });
    expectRejected(ledger, locked, 'BTC_TX_NON_FINAL', 'non-final');
    const passed = spend([c], [99_000n], { locktime: ledger.tip.timestampSec - 1, sequence: 0xfffffffe });
    expect(ledger.accept(passed, NOW).known).toBe(false);
  });
});

describe('sandbox Bitcoin ledger: full replace-by-fee (BIP-125 rules 2–6)', () => {
  it('a replacement paying for what it evicts replaces the conflict and its descendant', () => {
    const { ledger, coin } = setup();
    const owner = p2trWallet();
    const a = coin();
    const parent = withFee([a], 500n, { to: owner }); // nSequence final: no opt-in, replaceable under full-RBF
    const child = withFee([outOf(parent, owner)], 800n);
    ledger.accept(parent, NOW);
    ledger.accept(child, NOW);
    const vsize = vsizeOf([a]);
    const replacement = withFee([a], 500n + 800n + vsize);
    expect(ledger.accept(replacement, NOW)).toEqual({ txid: replacement.getId(), known: false, replaced: [child.getId(), parent.getId()] });
    expect(ledger.mempoolTxids()).toEqual([replacement.getId()]);
    expect(ledger.tx(parent.getId())).toBeUndefined();
    expect(ledger.tx(child.getId())).toBeUndefined();
    expect(ledger.spenderOf(a.txid, a.vout)).toEqual({ txid: replacement.getId(), vin: 0 });
    expect(ledger.spenderOf(parent.getId(), 0)).toBeUndefined();
    expect(ledger.accept(replacement, NOW)).toEqual({ txid: replacement.getId(), known: true, replaced: [] });
    ledger.mine(1, NOW);
    expect(ledger.blockOf(replacement.getId())?.height).toBe(ledger.tip.height);
    // The replaced parent now conflicts with a mined spend: its input is gone.
    expectRejected(ledger, parent, 'BTC_TX_INPUT_MISSING_OR_SPENT', 'bad-txns-inputs-missingorspent');
  });

  it('rule 4: the extra fee must pay the incremental relay fee for its own vsize (one satoshi short is refused)', () => {
    const { ledger, coin } = setup();
    const a = coin();
    ledger.accept(withFee([a], 400n), NOW);
    const vsize = vsizeOf([a]);
    const short = withFee([a], 400n + vsize - 1n);
    expectRejected(
      ledger,
      short,
      'BTC_TX_REPLACEMENT_FEE_TOO_LOW',
      `insufficient fee, rejecting replacement ${short.getId()}, not enough additional fees to relay; ${formatMoney(vsize - 1n)} < ${formatMoney(vsize)}`,
    );
    expect(ledger.accept(withFee([a], 400n + vsize), NOW).replaced).toHaveLength(1);
  });

  it('rule 4 with a 5 sat/vB incremental relay fee', () => {
    const { ledger, coin } = setup({ incrementalRelayFeeSatPerVb: 5n });
    const a = coin();
    ledger.accept(withFee([a], 400n), NOW);
    const vsize = vsizeOf([a]);
    expect(rejection(() => ledger.accept(withFee([a], 400n + 5n * vsize - 1n), NOW)).code).toBe('BTC_TX_REPLACEMENT_FEE_TOO_LOW');
    expect(ledger.accept(withFee([a], 400n + 5n * vsize), NOW).replaced).toHaveLength(1);
  });

  it('rule 3: a higher fee rate than the conflict but less fee than the conflict and its descendants', () => {
    const { ledger, coin } = setup();
    const owner = p2trWallet();
    const a = coin();
    const parent = withFee([a], 500n, { to: owner });
    ledger.accept(parent, NOW);
    ledger.accept(withFee([outOf(parent, owner)], 5_000n), NOW);
    const replacement = withFee([a], 2_000n);
    expectRejected(
      ledger,
      replacement,
      'BTC_TX_REPLACEMENT_FEE_TOO_LOW',
      `insufficient fee, rejecting replacement ${replacement.getId()}, less fees than conflicting txs; 0.00002 < 0.000055`,
    );
  });

  it('rule 6: more fee but a fee rate not above the conflict (a bigger replacement)', () => {
    const { ledger, coin } = setup();
    const a = coin();
    const b = coin();
    const smallVsize = vsizeOf([a]);
    const original = withFee([a], 20n * smallVsize);
    ledger.accept(original, NOW);
    const bigVsize = vsizeOf([a, b]);
    const fee = 20n * smallVsize + bigVsize; // pays rules 3 and 4, but below 20 sat/vB
    const replacement = withFee([a, b], fee);
    expectRejected(
      ledger,
      replacement,
      'BTC_TX_REPLACEMENT_FEE_TOO_LOW',
      `insufficient fee, rejecting replacement ${replacement.getId()}; new feerate ${feeRate(fee, bigVsize)} <= old feerate ${feeRate(20n * smallVsize, smallVsize)}`,
    );
    expect(ledger.mempoolTxids()).toEqual([original.getId()]);
  });

  it('rule 2: a replacement may not add an unconfirmed input', () => {
    const { ledger, coin } = setup();
    const owner = p2trWallet();
    const a = coin();
    ledger.accept(withFee([a], 300n), NOW);
    const other = withFee([coin()], 300n, { to: owner });
    ledger.accept(other, NOW);
    const replacement = withFee([a, outOf(other, owner)], 10_000n);
    const err = expectRejected(
      ledger,
      replacement,
      'BTC_TX_REPLACEMENT_ADDS_UNCONFIRMED',
      `replacement-adds-unconfirmed, replacement ${replacement.getId()} adds unconfirmed input, idx 1`,
    );
    expect(err.inputIndex).toBe(1);
  });

  it('a transaction may not spend an output of a transaction it replaces', () => {
    const { ledger, coin } = setup();
    const owner = p2trWallet();
    const a = coin();
    const b = coin();
    const original = spend([a, b], [99_000n, 100_000n], { to: owner }); // fee 1 000 sat
    ledger.accept(original, NOW);
    const replacement = withFee([a, outOf(original, owner, 1)], 10_000n);
    expectRejected(
      ledger,
      replacement,
      'BTC_TX_SPENDS_CONFLICTING',
      `bad-txns-spends-conflicting-tx, ${replacement.getId()} spends conflicting transaction ${original.getId()}`,
    );
  });

  it(`rule 5: at most ${MAX_REPLACEMENT_CANDIDATES} evicted transactions`, () => {
    const { ledger, coin } = setup();
    const owner = p2trWallet();
    const a = coin(1_000_000n);
    let tip = withFee([a], 200n, { to: owner });
    ledger.accept(tip, NOW);
    for (let i = 1; i <= MAX_REPLACEMENT_CANDIDATES; i++) {
      tip = withFee([outOf(tip, owner)], 200n, { to: owner });
      ledger.accept(tip, NOW);
    }
    expect(ledger.mempoolTxids()).toHaveLength(MAX_REPLACEMENT_CANDIDATES + 1);
    const replacement = withFee([a], 100_000n);
    expectRejected(
      ledger,
      replacement,
      'BTC_TX_REPLACEMENT_TOO_MANY',
      `too many potential replacements, rejecting replacement ${replacement.getId()}; too many potential replacements (101 > 100)`,
    );
    ledger.evict(tip.getId()); // one fewer descendant: now within the limit
    expect(ledger.accept(replacement, NOW).replaced).toHaveLength(MAX_REPLACEMENT_CANDIDATES);
  });

  it('fullRbf: false — only a conflict signalling BIP-125 (nSequence ≤ 0xfffffffd) can be replaced', () => {
    const { ledger, coin } = setup({ fullRbf: false });
    const a = coin();
    const b = coin();
    ledger.accept(withFee([a], 300n, { sequence: 0xfffffffe }), NOW);
    const err = expectRejected(ledger, withFee([a], 5_000n), 'BTC_TX_MEMPOOL_CONFLICT', 'txn-mempool-conflict');
    expect(err.inputIndex).toBe(0);
    const optIn = withFee([b], 300n, { sequence: 0xfffffffd });
    ledger.accept(optIn, NOW);
    expect(ledger.accept(withFee([b], 5_000n), NOW).replaced).toEqual([optIn.getId()]);
  });
});

describe('sandbox Bitcoin ledger: eviction', () => {
  it('evicts a transaction and its descendants; they stay valid, are broadcast again and mined', () => {
    const { ledger, coin } = setup();
    const owner = p2trWallet();
    const a = coin();
    const parent = withFee([a], 500n, { to: owner });
    const child = withFee([outOf(parent, owner)], 500n);
    ledger.accept(parent, NOW);
    ledger.accept(child, NOW);
    expect(ledger.evict(parent.getId())).toEqual([child.getId(), parent.getId()]);
    expect(ledger.mempoolTxids()).toEqual([]);
    expect(ledger.tx(parent.getId())).toBeUndefined();
    expect(ledger.spenderOf(a.txid, a.vout)).toBeUndefined();

    expect(ledger.accept(parent, NOW).known).toBe(false);
    expect(ledger.accept(child, NOW).known).toBe(false);
    ledger.mine(1, NOW);
    expect(ledger.tip.txids).toEqual([parent.getId(), child.getId()]);
    const notInMempool = (txid: string) => {
      try {
        ledger.evict(txid);
      } catch (error) {
        return error instanceof BitcoinNodeError ? error.code : error;
      }
      return 'evicted';
    };
    expect(notInMempool(parent.getId())).toBe('BTC_NODE_NOT_IN_MEMPOOL');
    expect(notInMempool('ab'.repeat(32))).toBe('BTC_NODE_NOT_IN_MEMPOOL');
  });
});

describe('formatMoney (Bitcoin Core FormatMoney)', () => {
  it('writes BTC with trailing zeros trimmed to two decimals', () => {
    expect(formatMoney(1_000n)).toBe('0.00001');
    expect(formatMoney(950n)).toBe('0.0000095');
    expect(formatMoney(100_000_000n)).toBe('1.00');
    expect(formatMoney(123_456_789n)).toBe('1.23456789');
    expect(formatMoney(0n)).toBe('0.00');
    expect(formatMoney(-5_000n)).toBe('-0.00005');
  });
});
