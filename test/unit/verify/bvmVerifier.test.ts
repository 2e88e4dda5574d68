/**
 * verifyBvmDeposit, called directly, on Bitcoin-origin quotes whose PSBT is built here with bitcoinjs for a
 * P2WPKH and a P2TR wallet on regtest and mainnet: the honest PSBT passes every deposit rule; each tampering
 * is refused by the rule that describes it, and only by the rules that must see it; bad PSBTs never throw.
 */
import { payments, Transaction } from 'bitcoinjs-lib';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { QuoteResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { parseBvmPsbt } from '../../../packages/ballast/src/verify/deposit/bvmPsbt.ts';
import { verifyBvmDeposit } from '../../../packages/ballast/src/verify/deposit/bvmVerifier.ts';
import {
  DEFAULT_DEPOSIT_LIMITS,
  DEPOSIT_RULE_IDS,
  type DepositCheckInput,
  type DepositCheckResult,
  type DepositRuleId,
} from '../../../packages/ballast/src/verify/deposit/types.ts';
import {
  AMOUNT,
  BITCOIN_CHAIN_ID,
  buildPsbt,
  bvmCase,
  bvmQuote,
  checkInput,
  FEE,
  memoScript,
  RBF_SEQUENCE,
  standardSpec,
  strangerAddress,
  testWallet,
  UTXO_VALUES,
  type BvmCase,
  type PsbtSpec,
} from '../../fixtures/bvmQuote.ts';

const WALLETS = [
  testWallet('p2wpkh', 'regtest'),
  testWallet('p2tr', 'regtest'),
  testWallet('p2wpkh', 'bitcoin'),
  testWallet('p2tr', 'bitcoin'),
];
const DEPENDENT = ['deposit-id', 'depositor', 'deposit-kind'];
const OTHER_ID: Hex = `0x${'77'.repeat(32)}`;

function failing(result: DepositCheckResult): string[] {
  return DEPOSIT_RULE_IDS.filter((id) => !result.results[id].ok);
}

function detail(result: DepositCheckResult, rule: DepositRuleId): string {
  return result.results[rule].detail;
}

describe.each(WALLETS.map((w) => [w.name, w] as const))('verifyBvmDeposit, %s wallet', (_name, wallet) => {
  const c: BvmCase = bvmCase(wallet);
  const stranger = strangerAddress(wallet.network);
  const total = UTXO_VALUES[0] + UTXO_VALUES[1];

  function quoteOf(spec: PsbtSpec, edit?: (psbt: ReturnType<typeof buildPsbt>) => void): QuoteResponse {
    const psbt = buildPsbt(c, spec);
    edit?.(psbt);
    return bvmQuote(c, psbt.toHex());
  }

  function run(spec: PsbtSpec, over: Partial<DepositCheckInput> = {}): DepositCheckResult {
    return verifyBvmDeposit(checkInput(c, quoteOf(spec), over));
  }

  /** The standard spec with `outputs` replaced (deposit, memo, change by default). */
  function withOutputs(...outputs: PsbtSpec['outputs']): PsbtSpec {
    return { ...standardSpec(c), outputs };
  }
  const deposit = (value = AMOUNT) => ({ script: c.depository.script, value });
  const memo = (text: string = c.orderId) => ({ script: memoScript(text), value: 0n });
  const change = (value = total - AMOUNT - FEE) => ({ script: wallet.script, value });

  it('the honest PSBT passes every deposit rule', () => {
    const result = run(standardSpec(c));
    expect(failing(result)).toEqual([]);
    expect(result.depositItem).toEqual({ stepIndex: 0, itemIndex: 0 });
    expect(detail(result, 'deposit-id')).toContain(c.orderId);
    expect(detail(result, 'deposit-call')).toContain('output 0 pays depository');
    expect(detail(result, 'fee-cap')).toMatch(/^fee 2000 sat over ~\d+ vB = \d+\.\d\d sat\/vB, within the cap of 200 sat\/vB$/);
    expect(detail(result, 'change')).toBe('1 change output(s) return 38000 sat to our wallet; no other payee');
    expect(detail(result, 'approve')).toContain('not applicable to bvm');
  });

  it('a memo naming us as depositor passes; one naming a stranger is refused by depositor', () => {
    expect(failing(run(withOutputs(deposit(), memo(`${c.orderId}|depositor=${wallet.address}`), change())))).toEqual([]);
    const result = run(withOutputs(deposit(), memo(`${c.orderId}|depositor=${stranger.address}`), change()));
    expect(failing(result)).toEqual(['depositor']);
    expect(detail(result, 'depositor')).toBe(`steps[0].items[0] memo names depositor ${stranger.address}, expected ${wallet.address}`);
  });

  it('change: an extra output to a stranger', () => {
    const result = run(withOutputs(deposit(), memo(), change(total - AMOUNT - FEE - 5_000n), { script: stranger.script, value: 5_000n }));
    expect(failing(result)).toEqual(['change']);
    expect(detail(result, 'change')).toBe(`output 3 pays 5000 sat to ${stranger.address}, neither the depository nor our wallet`);
  });

  it('change: the change itself sent to a stranger', () => {
    const result = run(withOutputs(deposit(), memo(), { script: stranger.script, value: total - AMOUNT - FEE }));
    expect(failing(result)).toEqual(['change']);
    expect(detail(result, 'change')).toContain(`output 2 pays 38000 sat to ${stranger.address}`);
  });

  it('change: value put on the OP_RETURN output is burnt', () => {
    const result = run(withOutputs(deposit(), { script: memoScript(c.orderId), value: 1_000n }, change(total - AMOUNT - FEE - 1_000n)));
    expect(failing(result)).toEqual(['change']);
    expect(detail(result, 'change')).toContain('output 1 (OP_RETURN) carries 1000 sat');
  });

  it('deposit-kind: the depository paid less than the payment amount', () => {
    const result = run(withOutputs(deposit(AMOUNT - 1_000n), memo(), change(total - AMOUNT - FEE + 1_000n)));
    expect(failing(result)).toEqual(['deposit-kind']);
    expect(detail(result, 'deposit-kind')).toBe(
      'steps[0].items[0] output 0 pays the depository 99000 sat, expected payment amount 100000 sat',
    );
  });

  it('deposit-kind: a payment currency other than native BTC', () => {
    const result = run(standardSpec(c), { payment: { chainSlug: 'bitcoin', currency: stranger.address, amount: AMOUNT } });
    expect(failing(result)).toEqual(['deposit-kind']);
    expect(detail(result, 'deposit-kind')).toContain('is not native BTC');
  });

  it('deposit-call: the deposit paid to an address other than the /chains depository', () => {
    const result = run(withOutputs({ script: stranger.script, value: AMOUNT }, memo(), change()));
    expect(failing(result)).toEqual(['deposit-call', ...DEPENDENT, 'change']);
    expect(detail(result, 'deposit-call')).toBe(
      `steps[0].items[0]: no PSBT output pays depository ${c.depository.address} (from GET /chains)`,
    );
    expect(detail(result, 'depositor')).toBe('skipped: deposit-call failed');
    expect(result.depositItem).toBeNull();
  });

  it('deposit-call: GET /chains names a different depository than the PSBT pays', () => {
    const result = run(standardSpec(c), { depository: stranger.address });
    expect(failing(result)).toEqual(['deposit-call', ...DEPENDENT, 'change']);
    expect(detail(result, 'change')).toContain(`output 0 pays 100000 sat to ${c.depository.address}`);
  });

  it('deposit-call: two outputs pay the depository', () => {
    const result = run(withOutputs(deposit(), memo(), deposit(1_000n), change(total - AMOUNT - FEE - 1_000n)));
    expect(failing(result)).toEqual(['deposit-call', ...DEPENDENT]);
    expect(detail(result, 'deposit-call')).toContain('outputs 0, 2 all pay depository');
  });

  it('deposit-call: data.chainId names another chain', () => {
    const quote = quoteOf(standardSpec(c));
    quote.steps[0]!.items[0]!.data['chainId'] = 8453;
    const result = verifyBvmDeposit(checkInput(c, quote));
    expect(detail(result, 'deposit-call')).toBe(`steps[0].items[0].data.chainId is 8453, expected payment chain ${BITCOIN_CHAIN_ID}`);
    expect(failing(result)).toContain('deposit-call');
  });

  it('deposit-id: no OP_RETURN at all', () => {
    const result = run(withOutputs(deposit(), change()));
    expect(failing(result)).toEqual(['deposit-id']);
    expect(detail(result, 'deposit-id')).toBe('steps[0].items[0]: the PSBT has no OP_RETURN output; the order id must travel in one');
  });

  it('deposit-id: the OP_RETURN of another order', () => {
    const result = run(withOutputs(deposit(), memo(OTHER_ID), change()));
    expect(failing(result)).toEqual(['deposit-id']);
    expect(detail(result, 'deposit-id')).toBe(
      `steps[0].items[0] output 1 carries order id ${OTHER_ID}, expected recomputed order id ${c.orderId}`,
    );
  });

  it('deposit-id: two OP_RETURNs, even both naming our order', () => {
    const result = run(withOutputs(deposit(), memo(), memo(), change()));
    expect(failing(result)).toEqual(['deposit-id']);
    expect(detail(result, 'deposit-id')).toBe('steps[0].items[0] has 2 OP_RETURN outputs (1, 2); expected exactly one');
  });

  it('deposit-id: a first OP_RETURN that is not a memo, our memo second', () => {
    const result = run(withOutputs(deposit(), memo('hello'), memo(), change()));
    expect(failing(result)).toEqual(['deposit-id']);
    expect(detail(result, 'deposit-id')).toContain('output 1 (first OP_RETURN) is not an order-id memo: "hello"');
  });

  it('deposit-id is skipped when the order id could not be recomputed', () => {
    const result = run(standardSpec(c), { orderId: null });
    expect(detail(result, 'deposit-id')).toBe('skipped: order-id failed');
  });

  it('origin-inputs: an input that is not one of our unspent outputs', () => {
    const spec = standardSpec(c);
    spec.inputs.push({ ...spec.inputs[0]!, txid: 'cc'.repeat(32), vout: 1, value: 10_000n });
    spec.outputs[2] = change(total + 10_000n - AMOUNT - FEE);
    const result = run(spec);
    expect(failing(result)).toEqual(['origin-inputs']);
    expect(detail(result, 'origin-inputs')).toBe(`input 2 (${'cc'.repeat(32)}:1) is not one of our 2 unspent output(s)`);
  });

  it('origin-inputs and depositor: a first input spending from a stranger', () => {
    const spec = standardSpec(c);
    spec.inputs[0] = { ...spec.inputs[0]!, script: stranger.script };
    const result = run(spec);
    expect(failing(result)).toEqual(['depositor', 'origin-inputs']);
    expect(detail(result, 'origin-inputs')).toBe(
      `input 0 (${'a1'.repeat(32)}:0) spends a P2WPKH script that is not our address ${wallet.address}`,
    );
  });

  it('origin-inputs and fee-cap: a witnessUtxo value above the real one (hiding a negative fee)', () => {
    const spec = standardSpec(c);
    spec.inputs[0] = { ...spec.inputs[0]!, witnessValue: UTXO_VALUES[0] + 10_000n };
    spec.outputs[2] = change(total + 10_000n - AMOUNT - FEE); // the PSBT alone shows the usual fee
    const result = run(spec);
    expect(failing(result)).toEqual(['origin-inputs', 'fee-cap', 'fee-floor', 'miner-fee-cap']);
    expect(detail(result, 'origin-inputs')).toBe(
      `input 0 (${'a1'.repeat(32)}:0) witnessUtxo says 70000 sat, but our unspent output holds 60000 sat`,
    );
    for (const rule of ['fee-cap', 'fee-floor', 'miner-fee-cap'] as const) {
      expect(detail(result, rule)).toBe('outputs total 148000 sat, more than the 140000 sat of inputs: negative fee');
    }
  });

  it('origin-inputs: our unspent outputs were not read', () => {
    const result = run(standardSpec(c), { origin: {} });
    expect(failing(result)).toEqual(['origin-inputs']);
    expect(detail(result, 'origin-inputs')).toContain('our unspent outputs were not read');
  });

  it('deposit-call: the same outpoint spent twice (a PSBT edited after building) does not parse', () => {
    const hex = buildPsbt(c, standardSpec(c)).toHex();
    const second = `${'b2'.repeat(32)}03000000`; // outpoint of input 1 in the unsigned transaction
    expect(hex.split(second)).toHaveLength(2);
    const result = verifyBvmDeposit(checkInput(c, bvmQuote(c, hex.replace(second, `${'a1'.repeat(32)}00000000`))));
    expect(detail(result, 'deposit-call')).toBe('steps[0].items[0]: data.psbt does not parse as a PSBT: Duplicate input detected.');
    expect(detail(result, 'origin-inputs')).toBe('skipped: deposit-call failed');
  });

  it('fee-cap: the honest fee (about 7 sat/vB) above a cap of 5 sat/vB', () => {
    const result = run(standardSpec(c), { limits: { ...DEFAULT_DEPOSIT_LIMITS, bvmMaxFeeRateSatPerVb: 5 } });
    expect(failing(result)).toEqual(['fee-cap']);
    expect(detail(result, 'fee-cap')).toMatch(/^fee 2000 sat over ~\d+ vB = [67]\.\d\d sat\/vB, above the cap of 5 sat\/vB$/);
  });

  it('fee-cap: no change output, so 40,000 sat of fee, above a cap of 100 sat/vB', () => {
    const result = run(withOutputs(deposit(), memo()), { limits: { ...DEFAULT_DEPOSIT_LIMITS, bvmMaxFeeRateSatPerVb: 100 } });
    expect(failing(result)).toEqual(['fee-cap', 'miner-fee-cap']);
    expect(detail(result, 'fee-cap')).toMatch(/^fee 40000 sat over ~\d+ vB = 1\d\d\.\d\d sat\/vB, above the cap of 100 sat\/vB$/);
    expect(detail(result, 'miner-fee-cap')).toBe(
      'miner fee 40000 sat is 4000 bps of the 100000-sat payment, above the cap of 500 bps (maxMinerFeeBps)',
    );
  });

  it('fee-cap: a cap that is not a number of sat/vB refuses', () => {
    const result = run(standardSpec(c), { limits: { ...DEFAULT_DEPOSIT_LIMITS, bvmMaxFeeRateSatPerVb: Number.NaN } });
    expect(detail(result, 'fee-cap')).toBe('limits.bvmMaxFeeRateSatPerVb is NaN; expected a non-negative number of sat/vB');
  });

  it('fee-cap: the cap sits exactly at the boundary of the honest fee rate', () => {
    const vsize = Number(/~(\d+) vB/.exec(detail(run(standardSpec(c)), 'fee-cap'))![1]);
    const exact = Number(FEE) / vsize;
    const capAt = (cap: number) => run(standardSpec(c), { limits: { ...DEFAULT_DEPOSIT_LIMITS, bvmMaxFeeRateSatPerVb: cap } });
    expect(failing(capAt(Math.ceil(exact * 1000) / 1000))).toEqual([]);
    expect(failing(capAt(Math.floor(exact * 1000) / 1000 - 0.001))).toEqual(['fee-cap']);
  });

  it.each([
    [Transaction.SIGHASH_NONE, 'NONE'],
    [Transaction.SIGHASH_SINGLE, 'SINGLE'],
    [Transaction.SIGHASH_ALL | Transaction.SIGHASH_ANYONECANPAY, 'ALL|ANYONECANPAY'],
    [Transaction.SIGHASH_NONE | Transaction.SIGHASH_ANYONECANPAY, 'NONE|ANYONECANPAY'],
  ])('no-unexpected-steps: an input asking for sighash %i (%s)', (sighashType, name) => {
    const spec = standardSpec(c);
    spec.inputs[1] = { ...spec.inputs[1]!, sighashType };
    const result = run(spec);
    expect(failing(result)).toEqual(['no-unexpected-steps']);
    expect(detail(result, 'no-unexpected-steps')).toContain(
      `steps[0].items[0] input 1 requests sighash 0x${sighashType.toString(16)} (${name})`,
    );
  });

  it('no-unexpected-steps: an explicit SIGHASH_ALL is accepted', () => {
    const spec = standardSpec(c);
    spec.inputs[0] = { ...spec.inputs[0]!, sighashType: Transaction.SIGHASH_ALL };
    expect(failing(run(spec))).toEqual([]);
  });

  it('no-unexpected-steps: a PSBT that already carries a signature', () => {
    const quote = quoteOf(standardSpec(c), (psbt) => psbt.signInput(0, wallet.signer));
    const result = verifyBvmDeposit(checkInput(c, quote));
    expect(failing(result)).toEqual(['no-unexpected-steps']);
    expect(detail(result, 'no-unexpected-steps')).toMatch(/input 0 already carries (partialSig|tapKeySig)/);
  });

  it('no-unexpected-steps: a second item, a signature step, a stale status and a foreign from', () => {
    const quote = quoteOf(standardSpec(c));
    const item = quote.steps[0]!.items[0]!;
    item.status = 'complete';
    item.data['from'] = stranger.address;
    quote.steps.push({ id: 'authorize', kind: 'signature', items: [] });
    quote.steps[0]!.items.push({ status: 'incomplete', data: {} });
    const result = verifyBvmDeposit(checkInput(c, quote));
    expect(failing(result)).toEqual(['no-unexpected-steps']);
    const text = detail(result, 'no-unexpected-steps');
    for (const part of [
      'steps[1] ("authorize") is a signature step',
      '2 transaction items',
      'status is "complete"',
      `data.from is "${stranger.address}"`,
      'steps[0].items[1] has no data.psbt',
    ]) {
      expect(text).toContain(part);
    }
  });
});

describe('verifyBvmDeposit, taproot specifics', () => {
  const wallet = testWallet('p2tr', 'regtest');
  const c = bvmCase(wallet);

  it('origin-inputs: a tapInternalKey that does not tweak to our address', () => {
    const other = testWallet('p2tr', 'regtest', 8).internalKey!;
    const spec = standardSpec(c);
    spec.inputs[0] = { ...spec.inputs[0]!, tapInternalKey: other };
    const result = verifyBvmDeposit(checkInput(c, bvmQuote(c, buildPsbt(c, spec).toHex())));
    expect(failing(result)).toEqual(['origin-inputs']);
    expect(detail(result, 'origin-inputs')).toContain('tapInternalKey does not tweak to our address');
  });

  it('no-unexpected-steps: SIGHASH_DEFAULT is accepted on taproot', () => {
    const spec = standardSpec(c);
    spec.inputs[0] = { ...spec.inputs[0]!, sighashType: Transaction.SIGHASH_DEFAULT };
    const hex = buildPsbt(c, spec).toHex();
    expect(parseBvmPsbt(hex, wallet.network).psbt?.inputs[0]?.sighashType).toBe(0); // it really is in the PSBT
    expect(failing(verifyBvmDeposit(checkInput(c, bvmQuote(c, hex))))).toEqual([]);
  });

  it('no-unexpected-steps: SIGHASH_DEFAULT is refused on P2WPKH, where it is no valid sighash', () => {
    const p2wpkh = bvmCase(testWallet('p2wpkh', 'regtest'));
    const spec = standardSpec(p2wpkh);
    spec.inputs[0] = { ...spec.inputs[0]!, sighashType: Transaction.SIGHASH_DEFAULT };
    const result = verifyBvmDeposit(checkInput(p2wpkh, bvmQuote(p2wpkh, buildPsbt(p2wpkh, spec).toHex())));
    expect(failing(result)).toEqual(['no-unexpected-steps']);
    expect(detail(result, 'no-unexpected-steps')).toContain('input 0 requests sighash 0x0 (DEFAULT)');
  });
});

describe('verifyBvmDeposit, inputs bitcoinjs will not build', () => {
  const wallet = testWallet('p2wpkh', 'regtest');
  const c = bvmCase(wallet);

  it('origin-inputs: a non-witness input (previous transaction only) is refused', () => {
    const prev = new Transaction();
    prev.addInput(new Uint8Array(32).fill(5), 0);
    prev.addOutput(wallet.script, UTXO_VALUES[0]);
    const utxos = [{ txid: prev.getId(), vout: 0, value: UTXO_VALUES[0], confirmed: true }, c.utxos[1]!];
    const psbt = buildPsbt({ ...c, utxos }, { ...standardSpec(c), inputs: [] });
    psbt.addInput({ hash: prev.getId(), index: 0, sequence: RBF_SEQUENCE, nonWitnessUtxo: prev.toBuffer() });
    psbt.addInput({
      hash: c.utxos[1]!.txid,
      index: 3,
      sequence: RBF_SEQUENCE,
      witnessUtxo: { script: wallet.script, value: UTXO_VALUES[1] },
    });
    const result = verifyBvmDeposit(checkInput(c, bvmQuote(c, psbt.toHex()), { origin: { utxos } }));
    expect(detail(result, 'origin-inputs')).toBe(`input 0 (${prev.getId()}:0) has no witnessUtxo; non-witness inputs are refused`);
    expect(detail(result, 'fee-cap')).toBe('cannot estimate the signed size: input 0 has no witnessUtxo; its signed size is unknown');
    expect(detail(result, 'fee-floor')).toBe('cannot estimate the signed size: input 0 has no witnessUtxo; its signed size is unknown');
    expect(failing(result)).toEqual(['depositor', 'origin-inputs', 'fee-cap', 'fee-floor', 'tx-size']);
  });

  it('a P2SH-wrapped input is refused as not our script', () => {
    const spec = standardSpec(c);
    const p2sh = payments.p2sh({ redeem: payments.p2wpkh({ output: wallet.script }) }).output!; // built from a known script
    spec.inputs[1] = { ...spec.inputs[1]!, script: p2sh };
    const result = verifyBvmDeposit(checkInput(c, bvmQuote(c, buildPsbt(c, spec).toHex())));
    expect(detail(result, 'origin-inputs')).toContain('spends a script neither P2WPKH nor P2TR that is not our address');
    expect(failing(result)).toEqual(['origin-inputs', 'fee-cap', 'fee-floor', 'tx-size']);
  });
});

describe('verifyBvmDeposit on bad PSBT text', () => {
  const c = bvmCase(testWallet('p2wpkh', 'bitcoin'));
  const good = buildPsbt(c, standardSpec(c)).toHex();
  const SKIPPED: DepositRuleId[] = [
    'deposit-id',
    'depositor',
    'deposit-kind',
    'origin-inputs',
    'fee-cap',
    'fee-floor',
    'miner-fee-cap',
    'rbf-signal',
    'locktime',
    'tx-size',
    'change',
  ];

  it.each([
    ['garbage', 'zz', 'not an even-length hex string'],
    ['a truncated PSBT', good.slice(0, 2 * Math.floor(good.length / 4)), 'does not parse as a PSBT'],
    ['the published prefix', '70736274ff0100fdb4010200000007d5', 'does not parse as a PSBT'],
  ])('%s: deposit-call fails, the rules needing the PSBT are skipped, nothing throws', (_what, text, problem) => {
    const result = verifyBvmDeposit(checkInput(c, bvmQuote(c, text)));
    expect(detail(result, 'deposit-call')).toContain(problem);
    for (const rule of SKIPPED) expect(detail(result, rule)).toBe('skipped: deposit-call failed');
    expect(failing(result)).toEqual(['deposit-call', ...SKIPPED, 'no-unexpected-steps']);
    expect(result.results.approve.ok).toBe(true);
  });

  it('no item carries a PSBT', () => {
    const quote = bvmQuote(c, good);
    delete quote.steps[0]!.items[0]!.data['psbt'];
    const result = verifyBvmDeposit(checkInput(c, quote));
    expect(detail(result, 'deposit-call')).toBe('no step item carries data.psbt (1 item(s)); a Bitcoin deposit is one PSBT');
  });

  it('our wallet is not a Bitcoin address: refused, not thrown', () => {
    const input = checkInput(c, bvmQuote(c, good));
    input.expect = { ...input.expect, user: '0x03508bb71268bba25ecacc8f620e01866650532c' };
    const result = verifyBvmDeposit(input);
    expect(failing(result)).toEqual(['depositor', 'origin-inputs', 'change']);
    expect(detail(result, 'origin-inputs')).toContain('is not a Bitcoin address');
  });
});
