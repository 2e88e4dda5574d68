/**
 * The Bitcoin adapter's `originFacts` against a scripted Esplora (injected fetch, no network): our unspent
 * outputs with `confirmed`, and (only where `allowOwnUnconfirmedInputs` is set) for unconfirmed ones whether
 * every input of the parent is ours and whether the parent is a transaction of ours in flight; the tip height;
 * the fee estimate for the blocks the order's deadline leaves (or why it could not be read); and the outpoints
 * our in-flight deposits spend, from their records or their raw transactions. Then the facts make the verifier
 * refuse a lagging UTXO view, and any unconfirmed input unless allowed.
 */
import { Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import type { RecordedTx } from '../../../../packages/ballast/src/chains/adapter.ts';
import { createBvmAdapter } from '../../../../packages/ballast/src/chains/bvm/adapter.ts';
import { verifyBvmDeposit } from '../../../../packages/ballast/src/verify/deposit/bvmVerifier.ts';
import {
  buildPsbt,
  bvmCase,
  bvmQuote,
  checkInput,
  NOW_SEC,
  standardSpec,
  strangerAddress,
  testWallet,
} from '../../../fixtures/bvmQuote.ts';

const wallet = testWallet('p2wpkh', 'regtest');
const OURS = Buffer.from(wallet.script).toString('hex');
const STRANGER = Buffer.from(strangerAddress(wallet.network).script).toString('hex');
const [A, B, C, D] = ['a1', 'b2', 'c3', 'd4'].map((b) => b.repeat(32)) as [string, string, string, string];

const status = (confirmed: boolean) =>
  confirmed ? { confirmed: true, block_height: 869_990, block_hash: 'ee'.repeat(32) } : { confirmed: false };
const utxo = (txid: string, vout: number, value: number, confirmed: boolean) => ({ txid, vout, value, status: status(confirmed) });
const parent = (txid: string, scripts: string[]) => ({
  txid,
  vin: scripts.map((scriptpubkey, i) => ({ txid: 'f0'.repeat(32), vout: i, prevout: { scriptpubkey, value: 10_000 }, is_coinbase: false })),
  vout: [{ scriptpubkey: OURS, value: 9_000 }],
  status: status(false),
});

type Routes = Record<string, [number, unknown]>;

/** A fetch answering from `routes` (path → status and body; strings sent as text, others as JSON). */
function scriptedEsplora(routes: Routes, seen: string[] = []): typeof fetch {
  return async (input) => {
    const path = new URL(String(input)).pathname;
    seen.push(path);
    const [code, body] = routes[path] ?? [404, 'Transaction not found'];
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: code });
  };
}

const BASE: Routes = {
  [`/address/${wallet.address}/utxo`]: [
    200,
    [utxo(A, 0, 60_000, true), utxo(B, 1, 5_000, false), utxo(C, 0, 7_000, false), utxo(D, 2, 8_000, false), utxo(B, 2, 6_000, false)],
  ],
  '/blocks/tip/height': [200, '870000\n'],
  '/fee-estimates': [200, { '1': 25.5, '6': 8, '144': 2.1, '1008': 1.2 }],
  [`/tx/${B}`]: [200, parent(B, [OURS, OURS])],
  [`/tx/${C}`]: [200, parent(C, [OURS, STRANGER])],
};

/** A market the test deposit's fee rate clears within its deadline. */
const CHEAP_MARKET: Routes = { '/fee-estimates': [200, { '1': 1, '1008': 1 }] };

function adapterOf(routes: Routes, seen?: string[], allowOwnUnconfirmedInputs = false, nowSec = NOW_SEC) {
  return createBvmAdapter({
    allowOwnUnconfirmedInputs,
    nowMs: () => nowSec * 1000,
    name: 'bitcoin',
    chainId: 8253038,
    esploraUrl: 'http://esplora.test',
    network: 'regtest',
    highValueSats: 100_000_000n,
    minerFeeReserveSats: 0n,
    maxFeeRateSatPerVb: 200,
    signers: new Map(),
    fetch: scriptedEsplora(routes, seen),
  });
}

/** A raw transaction spending `outpoints` (no write-ahead record). */
function rawSpending(outpoints: [string, number][]): string {
  const tx = new Transaction();
  for (const [txid, vout] of outpoints) tx.addInput(Buffer.from(txid, 'hex').reverse(), vout);
  tx.addOutput(wallet.script, 1_000n);
  return tx.toHex();
}

const c = bvmCase(wallet);
const quote = bvmQuote(c, buildPsbt(c, standardSpec(c)).toHex());

describe('bvm adapter originFacts', () => {
  it('reads utxos with confirmation and parent ownership, the tip, the estimate for the deadline and reserved outpoints', async () => {
    const seen: string[] = [];
    const inFlight: RecordedTx[] = [
      { txHash: 'e1'.repeat(32), rawTx: '00', request: { wallet: wallet.address, inputs: `${A}:0,${'AB'.repeat(32)}:7` } },
      { txHash: 'e2'.repeat(32), rawTx: rawSpending([[C, 5]]), request: null },
      { txHash: B, rawTx: rawSpending([['f0'.repeat(32), 0]]), request: null }, // B is a transaction of ours in flight
    ];
    const facts = await adapterOf(BASE, seen, true).originFacts(quote, wallet.address, inFlight);
    expect(facts).toEqual({
      utxos: [
        { txid: A, vout: 0, value: 60_000n, confirmed: true },
        { txid: B, vout: 1, value: 5_000n, confirmed: false, parentOurs: true, parentTracked: true },
        { txid: C, vout: 0, value: 7_000n, confirmed: false, parentOurs: false, parentTracked: false },
        { txid: D, vout: 2, value: 8_000n, confirmed: false },
        { txid: B, vout: 2, value: 6_000n, confirmed: false, parentOurs: true, parentTracked: true },
      ],
      tipHeight: 870_000n,
      // The order's deadline is an hour away: 6 blocks, so the 6-block estimate, not the week-ahead one.
      feeEstimate: { targetBlocks: 6, satPerVb: 8, blocksLeft: 6 },
      reservedOutpoints: [`${A}:0`, `${'ab'.repeat(32)}:7`, `${C}:5`, `${'f0'.repeat(32)}:0`],
    });
    // Each unconfirmed parent is read once; confirmed outputs need no parent read.
    expect(seen.filter((p) => p.startsWith('/tx/')).sort()).toEqual([`/tx/${B}`, `/tx/${C}`, `/tx/${D}`]);
  });

  it('confirmed inputs only by default: no parent is read, and a deposit on unconfirmed change is refused', async () => {
    const seen: string[] = [];
    const facts = await adapterOf(BASE, seen).originFacts(quote, wallet.address, []);
    expect(facts.utxos?.filter((u) => !u.confirmed).every((u) => u.parentOurs === undefined)).toBe(true);
    expect(seen.filter((p) => p.startsWith('/tx/'))).toEqual([]);
    const own = c.utxos.map((u, i) => utxo(u.txid, u.vout, Number(u.value), i !== 0));
    const routes: Routes = {
      ...BASE,
      ...CHEAP_MARKET,
      [`/address/${wallet.address}/utxo`]: [200, own],
      [`/tx/${c.utxos[0]!.txid}`]: [200, parent(c.utxos[0]!.txid, [OURS])],
    };
    const verdict = async (allow: boolean, tracked: RecordedTx[]) => {
      const adapter = adapterOf(routes, undefined, allow);
      const origin = await adapter.originFacts(quote, wallet.address, tracked);
      return verifyBvmDeposit({ ...checkInput(c, quote), origin, limits: { ...checkInput(c, quote).limits, ...adapter.depositLimits } })
        .results['origin-inputs'];
    };
    expect(await verdict(false, [])).toMatchObject({ ok: false, detail: expect.stringContaining('deposits spend confirmed outputs only') });
    expect(await verdict(true, [])).toMatchObject({
      ok: false,
      detail: expect.stringContaining('which is no deposit or cancel of ours in flight'),
    });
    const parentOfOurs: RecordedTx = { txHash: c.utxos[0]!.txid, rawTx: rawSpending([['f1'.repeat(32), 0]]), request: null };
    expect(await verdict(true, [parentOfOurs])).toMatchObject({ ok: true });
  });

  it('the floor follows the deadline: a deadline a block away takes the next-block estimate', async () => {
    const adapter = adapterOf(BASE, undefined, false, NOW_SEC + 3_000);
    const facts = await adapter.originFacts(quote, wallet.address);
    expect(facts.feeEstimate).toEqual({ targetBlocks: 1, satPerVb: 25.5, blocksLeft: 1 });
    // The deposit, which a week-ahead floor (1.2 sat/vB) let through, is refused before signing.
    const input = checkInput(c, quote);
    const verdict = verifyBvmDeposit({
      ...input,
      origin: { ...input.origin, feeEstimate: facts.feeEstimate },
      limits: { ...input.limits, ...adapter.depositLimits },
    });
    expect(verdict.results['fee-floor']).toMatchObject({
      ok: false,
      detail: expect.stringContaining(
        "below the floor of 25.5 sat/vB (the node's 1-block estimate 25.5, for the 1 block(s) the order's deadline leaves",
      ),
    });
  });

  it('an unreadable fee estimate is a problem, not a throw; a failed UTXO read throws', async () => {
    const facts = await adapterOf({ ...BASE, '/fee-estimates': [503, 'overloaded'] }).originFacts(quote, wallet.address);
    expect(facts.feeEstimate).toEqual({ problem: 'chains.bitcoin.esploraUrl answered HTTP 503 to GET /fee-estimates: overloaded' });
    expect(facts.reservedOutpoints).toEqual([]);
    const empty = await adapterOf({ ...BASE, '/fee-estimates': [200, {}] }).originFacts(quote, wallet.address);
    expect(empty.feeEstimate).toEqual({ problem: 'chains.bitcoin.esploraUrl: the node answered GET /fee-estimates with no estimate' });
    await expect(
      adapterOf({ ...BASE, [`/address/${wallet.address}/utxo`]: [500, 'down'] }).originFacts(quote, wallet.address),
    ).rejects.toThrow('chains.bitcoin.esploraUrl answered HTTP 500 to GET /address/');
  });

  it('an in-flight record that names no inputs stops verification (nothing proves a new deposit would not replace it)', async () => {
    const bad: RecordedTx = { txHash: 'e3'.repeat(32), rawTx: 'not hex', request: { wallet: wallet.address } };
    await expect(adapterOf(BASE).originFacts(quote, wallet.address, [bad])).rejects.toMatchObject({
      code: 'BVM_ADAPTER_REFUSED',
      message: expect.stringContaining(`in-flight transaction ${'e3'.repeat(32)} on chain bitcoin names no inputs`),
    });
  });

  it('with a lagging UTXO view (both outputs still listed), a deposit spending an in-flight input is refused', async () => {
    const routes: Routes = {
      ...BASE,
      ...CHEAP_MARKET,
      [`/address/${wallet.address}/utxo`]: [200, c.utxos.map((u) => utxo(u.txid, u.vout, Number(u.value), true))],
    };
    const inFlight: RecordedTx[] = [
      { txHash: 'e4'.repeat(32), rawTx: '00', request: { inputs: `${c.utxos[1]!.txid}:${c.utxos[1]!.vout}` } },
    ];
    const adapter = adapterOf(routes);
    const verdictWith = async (recorded: RecordedTx[]) =>
      verifyBvmDeposit({
        ...checkInput(c, quote),
        origin: await adapter.originFacts(quote, wallet.address, recorded),
        limits: { ...checkInput(c, quote).limits, ...adapter.depositLimits },
      });
    const refused = await verdictWith(inFlight);
    expect(refused.results['origin-inputs']).toMatchObject({
      ok: false,
      detail: expect.stringContaining('is already spent by an in-flight deposit of ours'),
    });
    const alone = await verdictWith([]);
    expect(Object.values(alone.results).filter((r) => !r.ok)).toEqual([]);
  });
});
