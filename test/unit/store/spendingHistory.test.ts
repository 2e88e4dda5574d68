import { beforeEach, expect, it } from 'vitest';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { StoreValueError } from '../../../packages/ballast/src/store/errors.ts';
import { readSpendingHistory, SPENDING_DAY_MS, SPENDING_HOUR_MS } from '../../../packages/ballast/src/store/spendingHistory.ts';
import { addTransferTx, createTransfer, transitionTransfer, type NewTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';
import { recordPlannedTransfers } from '../../../packages/ballast/src/store/plans.ts';
import { recordFeeDecision, recordQuote } from '../../../packages/ballast/src/store/quotes.ts';
import { insertLedgerEntry } from '../../../packages/ballast/src/store/ledger.ts';
import { BEYOND_U64, newTransfer } from './helpers.ts';

const NOW_MS = 1_700_000_000_000;
const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

describeEachEngine('readSpendingHistory', (engine) => {
  let db: StoreDb;
  let cycleId: number;
  let seq = 0;
  beforeEach(async () => {
    db = await engine.open();
    cycleId = await startCycle(db, { mode: 'daemon', startedAtMs: 1_000 });
  });

  /** Stores a transfer created at `createdAtMs` (signed: two txs, unless `txs: []`), with a unique request id. */
  async function add(createdAtMs: number, over: Partial<NewTransfer> = {}): Promise<number> {
    seq += 1;
    const hex = seq.toString(16).padStart(64, '0');
    return (
      await createTransfer(db, await newTransfer(db, { cycleId, requestId: `0x${hex}`, orderId: `0x${hex}`, nowMs: createdAtMs, ...over }))
    ).transferId;
  }

  it('uses 24 h and 1 h windows', () => {
    expect(SPENDING_DAY_MS).toBe(DAY_MS);
    expect(SPENDING_HOUR_MS).toBe(HOUR_MS);
  });

  it('returns empty sums on an empty database', async () => {
    const h = await readSpendingHistory(db, { nowMs: NOW_MS });
    expect([...h.notional24h]).toEqual([]);
    expect(h.feesUsd24hMicros).toBe(0n);
    expect(h.transfersLastHour).toBe(0);
  });

  it('24 h window: a transfer exactly 24 h old is out, one 1 ms younger is in', async () => {
    await add(NOW_MS - DAY_MS, { amountIn: 1n, feesUsd: '1' });
    await add(NOW_MS - DAY_MS + 1, { amountIn: 20n, feesUsd: '0.25' });
    const h = await readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.notional24h.get('USDC')).toBe(20n);
    expect(h.feesUsd24hMicros).toBe(250_000n);
    expect(h.transfersLastHour).toBe(0);
  });

  it('1 h window: a transfer exactly 1 h old is out, one 1 ms younger and one created at now are in', async () => {
    await add(NOW_MS - HOUR_MS, { amountIn: 1n });
    await add(NOW_MS - HOUR_MS + 1, { amountIn: 2n });
    await add(NOW_MS, { amountIn: 4n });
    const h = await readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.transfersLastHour).toBe(2);
    expect(h.notional24h.get('USDC')).toBe(7n); // all three are inside 24 h
  });

  it('counts a transfer stamped after now (clock stepped back) in both windows', async () => {
    await add(NOW_MS + 5_000, { amountIn: 9n });
    const h = await readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.transfersLastHour).toBe(1);
    expect(h.notional24h.get('USDC')).toBe(9n);
  });

  it('excludes attempts with nothing signed, and counts them once a transaction is signed', async () => {
    const unsigned = await add(NOW_MS - 10, { amountIn: 1_000n, feesUsd: '3', txs: [] });
    await add(NOW_MS - 20, { amountIn: 5n, feesUsd: '0.5' });
    let h = await readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.notional24h.get('USDC')).toBe(5n);
    expect(h.feesUsd24hMicros).toBe(500_000n);
    expect(h.transfersLastHour).toBe(1);

    await addTransferTx(db, unsigned, {
      stepId: 'deposit',
      itemIndex: 0,
      chainId: 8453,
      request: { nonce: 1 },
      txHash: `0x${'33'.repeat(32)}`,
      rawTx: '0x02',
      nowMs: NOW_MS - 5,
    });
    h = await readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.notional24h.get('USDC')).toBe(1_005n);
    expect(h.feesUsd24hMicros).toBe(3_500_000n);
    expect(h.transfersLastHour).toBe(2);
  });

  it('counts signed transfers whatever their status (failed after signing still counts)', async () => {
    const id = await add(NOW_MS - 10, { amountIn: 7n });
    await transitionTransfer(db, id, 'prepared', 'origin_failed', { nowMs: NOW_MS - 5, error: 'reverted' });
    expect((await readSpendingHistory(db, { nowMs: NOW_MS })).notional24h.get('USDC')).toBe(7n);
  });

  it('sums per asset as bigint, beyond 2^64', async () => {
    await add(NOW_MS - 3 * HOUR_MS, { asset: 'ETH', amountIn: BEYOND_U64 });
    await add(NOW_MS - 2 * HOUR_MS, { asset: 'ETH', amountIn: BEYOND_U64 });
    await add(NOW_MS - 1_000, { asset: 'USDC', amountIn: 100_000_000n });
    const h = await readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.notional24h.get('ETH')).toBe(2n * BEYOND_U64);
    expect(h.notional24h.get('USDC')).toBe(100_000_000n);
    expect(h.notional24h.has('BTC')).toBe(false);
    expect(h.transfersLastHour).toBe(1);
  });

  it('sums fees exactly in micro-USD; null fees count 0 and a negative fee counts 0', async () => {
    await add(NOW_MS - 1, { feesUsd: '0.1' });
    await add(NOW_MS - 2, { feesUsd: '0.2' });
    await add(NOW_MS - 3, { feesUsd: null });
    await add(NOW_MS - 4, { feesUsd: '-4' });
    await add(NOW_MS - 5, { feesUsd: '48.000001' });
    const h = await readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.feesUsd24hMicros).toBe(48_300_001n);
    expect(h.transfersLastHour).toBe(5);
  });

  it('rejects a stored fee that is not a decimal string, naming the transfer', async () => {
    const id = await add(NOW_MS - 1);
    await db.run('UPDATE transfers SET fees_usd = ? WHERE id = ?', '$0.52', id);
    await expect(readSpendingHistory(db, { nowMs: NOW_MS })).rejects.toThrow(StoreValueError);
    await expect(readSpendingHistory(db, { nowMs: NOW_MS })).rejects.toThrow(`transfer ${id}`);
  });

  it('rejects a bad nowMs', async () => {
    await expect(readSpendingHistory(db, { nowMs: 1.5 })).rejects.toThrow(StoreValueError);
  });
  it('counts the origin cost estimated before signing, and the origin gas really paid once the ledger has it', async () => {
    // fees_usd 3 = the API's 1 + a 2 USD miner fee estimated from the PSBT (the fee decision's originCostUsd)
    const [planId] = await recordPlannedTransfers(db, cycleId, [
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', amountIn: 1n, reason: 'test' },
    ]);
    const quoteId = await recordQuote(db, {
      cycleId,
      planId: planId!,
      requestId: null,
      orderId: null,
      request: {},
      raw: {},
      receivedAtMs: 1_000,
    });
    await recordFeeDecision(db, quoteId, { accepted: true, breakdown: { totalUsd: '3', originCostUsd: '2' } });
    const id = await add(NOW_MS - 10, { quoteId, feesUsd: '3' });
    await add(NOW_MS - 20, { feesUsd: '0.5' }); // no quote, no ledger: counted as recorded
    expect((await readSpendingHistory(db, { nowMs: NOW_MS })).feesUsd24hMicros).toBe(3_500_000n);

    // Mined: the deposit paid 1.25 USD of miner fee; the estimate is replaced by it.
    await insertLedgerEntry(
      db,
      {
        transferId: id,
        status: 'success',
        asset: 'USDC',
        originChain: 'base',
        destinationChain: 'arbitrum',
        amountIn: 100_000_000n,
        decimalsIn: 6,
        decimalsOut: 6,
        quotedExpectedOut: 99_000_000n,
        quotedMinOut: 98_000_000n,
        receivedOut: 98_500_000n,
        receivedSource: 'requests_v3_route_actual',
        fees: { execution: 1_000_000n, swap: 0n, platform: 0n, app: 0n },
        feesSource: 'requests_v3_actual',
        gasPaid: 1_250n,
        gasDecimals: 8,
        gasUsdMicros: 1_250_000n,
        totalFeesUsdMicros: 2_250_000n,
        signedAtMs: NOW_MS - 10,
        settledAtMs: NOW_MS - 5,
        settleMs: 5,
      },
      NOW_MS - 5,
    );
    expect((await readSpendingHistory(db, { nowMs: NOW_MS })).feesUsd24hMicros).toBe(1_000_000n + 1_250_000n + 500_000n);
  });
});
