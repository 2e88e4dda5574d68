/**
 * The Bitcoin model's node and fee market against what Bitcoin Core 28 and Esplora do, so the money-path
 * model (moneyPath.bvm.property.test.ts) finds the product's faults, not the world's: replacements refused by
 * BIP-125 rules 3–6 (rule 3 counting descendants), the mempool minimum fee refusing and trimming (lowest
 * descendant score first, descendants with their parent), blocks mined by package rate against the clearing
 * rate (CPFP), the estimates table and clearing rate of a market, and GET /tx/:id/outspends.
 */
// The EVM model's Relay first: it and ../world.ts import each other, and only this order initialises both.
import '../inMemoryRelay.ts';
import { describe, expect, it } from 'vitest';
import { BtcChain, BtcRejectError, buildBtcTx, type BtcTx } from './btcChain.ts';
import { inMemoryEsplora } from './btcEsplora.ts';
import { estimatesOf, FeeMarket, LEGACY_ESTIMATES, twoBlockRate } from './btcMarket.ts';
import { quietBtcSchedule } from './btcSchedule.ts';
import { BTC_KEYS, BtcWorld } from './btcWorld.ts';

const ours = BTC_KEYS.treasuryScript;
const COIN = 100_000_000n;

/** A chain with one funded coin of 1 BTC of ours. */
function funded(): { chain: BtcChain; coin: BtcTx } {
  const chain = new BtcChain(0);
  const coin = chain.fund([{ script: ours, value: COIN }], 0);
  return { chain, coin };
}

/** A transaction spending `inputs` to one output of ours, paying `feeSat`. */
function spend(chain: BtcChain, inputs: { txid: string; vout: number }[], feeSat: bigint, label: string): BtcTx {
  const value = inputs.reduce((s, i) => s + chain.prevout(i)!.value, 0n) - feeSat;
  return buildBtcTx(inputs, [{ script: ours, value }], label);
}

const reason = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof BtcRejectError) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('the model node', () => {
  it('refuses a replacement that does not out-pay the transaction it replaces and that one’s children (rule 3)', () => {
    const { chain, coin } = funded();
    const parent = spend(chain, [{ txid: coin.txid, vout: 0 }], 1_000n, 'parent');
    chain.submit(parent);
    const child = spend(chain, [{ txid: parent.txid, vout: 0 }], 5_000n, 'child');
    chain.submit(child);
    // Out-pays the parent alone (fee and rate), not the parent and its child together.
    const cancel = spend(chain, [{ txid: coin.txid, vout: 0 }], 3_000n, 'cancel');
    expect(reason(() => chain.submit(cancel))).toMatch(
      /^insufficient fee, rejecting replacement .*less fees than conflicting txs; 0.00003 < 0.00006$/,
    );
    const enough = spend(chain, [{ txid: coin.txid, vout: 0 }], 6_000n + 110n, 'enough');
    expect(chain.submit(enough).sort()).toEqual([parent.txid, child.txid].sort());
    expect(chain.mempoolIds()).toEqual([enough.txid]);
  });

  it('refuses a replacement below the incremental relay fee (rule 4) or at no higher rate (rule 6)', () => {
    const { chain, coin } = funded();
    const first = spend(chain, [{ txid: coin.txid, vout: 0 }], 1_000n, 'first');
    chain.submit(first);
    const sameRate = buildBtcTx([{ txid: coin.txid, vout: 0 }], [{ script: BTC_KEYS.depositoryScript, value: COIN - 1_000n }], 'same');
    expect(reason(() => chain.submit(sameRate))).toMatch(/^insufficient fee, rejecting replacement .*; new feerate .* <= old feerate/);
    const tooLittle = spend(chain, [{ txid: coin.txid, vout: 0 }], 1_050n, 'little');
    expect(reason(() => chain.submit(tooLittle))).toMatch(/not enough additional fees to relay/);
  });

  it('refuses under its mempool minimum fee, and trims the lowest descendant score first, children with their parent', () => {
    const { chain, coin } = funded();
    const parent = spend(chain, [{ txid: coin.txid, vout: 0 }], 110n, 'parent'); // 1 sat/vB
    chain.submit(parent);
    const child = spend(chain, [{ txid: parent.txid, vout: 0 }], 330n, 'child'); // 3 sat/vB
    chain.submit(child);
    // The parent's descendant score is its package's 2 sat/vB: kept at a minimum of 2, trimmed with its child at 3.
    expect(chain.setMinFee(2n)).toEqual([]);
    expect(chain.setMinFee(3n)).toEqual([parent.txid, child.txid]);
    expect(reason(() => chain.submit(parent))).toBe(`mempool min fee not met, 110 < ${3 * parent.vsize}`);
  });

  it('mines a transaction only when its package reaches the clearing rate (a child can pay for its parent)', () => {
    const { chain, coin } = funded();
    const parent = spend(chain, [{ txid: coin.txid, vout: 0 }], BigInt(2 * 110), 'parent');
    chain.submit(parent);
    expect(chain.mine(60_000, 5n).txids).toEqual([]);
    const child = spend(chain, [{ txid: parent.txid, vout: 0 }], BigInt(9 * 110), 'child');
    chain.submit(child);
    expect(chain.mine(120_000, 5n).txids).toEqual([parent.txid, child.txid]);
  });
});

describe('the model fee market', () => {
  it('keeps the legacy table when no market is drawn, clearing at 5 sat/vB', () => {
    const market = new FeeMarket();
    expect(market.estimates(10, 1n)).toEqual(LEGACY_ESTIMATES);
    expect(market.clearingAt(10)).toBe(5n);
  });

  it('answers a monotone table by target, raised to the mempool minimum, and clears at the two-block rate', () => {
    const table = estimatesOf({ level: 20, slow: 2 });
    const rates = Object.entries(table).sort(([a], [b]) => Number(a) - Number(b));
    expect(rates.map(([t]) => t)).toEqual(['1', '2', '3', '4', '5', '6', '144', '504', '1008']);
    for (let i = 1; i < rates.length; i++) expect(rates[i]![1]).toBeLessThanOrEqual(rates[i - 1]![1]);
    expect(twoBlockRate(table)).toBe(20n);
    const market = new FeeMarket(
      [{ atHeight: 5, level: 20, slow: 2 }],
      [{ afterQuote: 0, level: 45, blocks: 3 }],
      [{ atHeight: 7, satPerVb: 8 }],
    );
    market.quoted(0, 10);
    expect([market.clearingAt(10), market.clearingAt(11), market.clearingAt(13), market.clearingAt(14)]).toEqual([20n, 45n, 45n, 20n]);
    expect(market.estimates(14, market.minFeeAt(14))['1008']).toBe(8);
  });
});

describe('the model Esplora', () => {
  it('answers GET /tx/:id/outspends with one entry per output', async () => {
    const world = new BtcWorld(quietBtcSchedule());
    const funding = world.bitcoin.blocks[1]!.txids[0]!;
    const spender = spend(world.bitcoin, [{ txid: funding, vout: 1 }], 1_000n, 'spender');
    world.bitcoin.submit(spender);
    const fetch = inMemoryEsplora(world, { id: 1, alive: true });
    const res = await fetch(`http://127.0.0.1:9/api/tx/${funding}/outspends`);
    expect(await res.json()).toEqual([
      { spent: false },
      { spent: true, txid: spender.txid, vin: 0, status: { confirmed: false } },
      { spent: false },
    ]);
  });
});
