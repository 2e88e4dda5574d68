import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { StoreValueError } from '../../../src/store/errors.ts';
import { readSpendingHistory, SPENDING_DAY_MS, SPENDING_HOUR_MS } from '../../../src/store/spendingHistory.ts';
import { addTransferTx, createTransfer, transitionTransfer, type NewTransfer } from '../../../src/store/transfers.ts';
import { startCycle } from '../../../src/store/cycles.ts';
import { BEYOND_U64, newTransfer, tempDb, type TempDb } from './helpers.ts';

const NOW_MS = 1_700_000_000_000;
const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

let t: TempDb;
let db: Database.Database;
let cycleId: number;
let seq = 0;
beforeEach(() => {
  t = tempDb();
  db = t.open();
  cycleId = startCycle(db, { mode: 'daemon', startedAtMs: 1_000 });
});
afterEach(() => {
  t.cleanup();
});

/** Stores a transfer created at `createdAtMs` (signed: two txs, unless `txs: []`), with a unique request id. */
function add(createdAtMs: number, over: Partial<NewTransfer> = {}): number {
  seq += 1;
  const hex = seq.toString(16).padStart(64, '0');
  return createTransfer(db, newTransfer(db, { cycleId, requestId: `0x${hex}`, orderId: `0x${hex}`, nowMs: createdAtMs, ...over })).transferId;
}

describe('readSpendingHistory', () => {
  it('uses 24 h and 1 h windows', () => {
    expect(SPENDING_DAY_MS).toBe(DAY_MS);
    expect(SPENDING_HOUR_MS).toBe(HOUR_MS);
  });

  it('returns empty sums on an empty database', () => {
    const h = readSpendingHistory(db, { nowMs: NOW_MS });
    expect([...h.notional24h]).toEqual([]);
    expect(h.feesUsd24hMicros).toBe(0n);
    expect(h.transfersLastHour).toBe(0);
  });

  it('24 h window: a transfer exactly 24 h old is out, one 1 ms younger is in', () => {
    add(NOW_MS - DAY_MS, { amountIn: 1n, feesUsd: '1' });
    add(NOW_MS - DAY_MS + 1, { amountIn: 20n, feesUsd: '0.25' });
    const h = readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.notional24h.get('USDC')).toBe(20n);
    expect(h.feesUsd24hMicros).toBe(250_000n);
    expect(h.transfersLastHour).toBe(0);
  });

  it('1 h window: a transfer exactly 1 h old is out, one 1 ms younger and one created at now are in', () => {
    add(NOW_MS - HOUR_MS, { amountIn: 1n });
    add(NOW_MS - HOUR_MS + 1, { amountIn: 2n });
    add(NOW_MS, { amountIn: 4n });
    const h = readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.transfersLastHour).toBe(2);
    expect(h.notional24h.get('USDC')).toBe(7n); // all three are inside 24 h
  });

  it('counts a transfer stamped after now (clock stepped back) in both windows', () => {
    add(NOW_MS + 5_000, { amountIn: 9n });
    const h = readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.transfersLastHour).toBe(1);
    expect(h.notional24h.get('USDC')).toBe(9n);
  });

  it('excludes attempts with nothing signed, and counts them once a transaction is signed', () => {
    const unsigned = add(NOW_MS - 10, { amountIn: 1_000n, feesUsd: '3', txs: [] });
    add(NOW_MS - 20, { amountIn: 5n, feesUsd: '0.5' });
    let h = readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.notional24h.get('USDC')).toBe(5n);
    expect(h.feesUsd24hMicros).toBe(500_000n);
    expect(h.transfersLastHour).toBe(1);

    addTransferTx(db, unsigned, { stepId: 'deposit', itemIndex: 0, chainId: 8453, request: { nonce: 1 }, txHash: `0x${'33'.repeat(32)}`, rawTx: '0x02', nowMs: NOW_MS - 5 });
    h = readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.notional24h.get('USDC')).toBe(1_005n);
    expect(h.feesUsd24hMicros).toBe(3_500_000n);
    expect(h.transfersLastHour).toBe(2);
  });

  it('counts signed transfers whatever their status (failed after signing still counts)', () => {
    const id = add(NOW_MS - 10, { amountIn: 7n });
    transitionTransfer(db, id, 'prepared', 'origin_failed', { nowMs: NOW_MS - 5, error: 'reverted' });
    expect(readSpendingHistory(db, { nowMs: NOW_MS }).notional24h.get('USDC')).toBe(7n);
  });

  it('sums per asset as bigint, beyond 2^64', () => {
    add(NOW_MS - 3 * HOUR_MS, { asset: 'ETH', amountIn: BEYOND_U64 });
    add(NOW_MS - 2 * HOUR_MS, { asset: 'ETH', amountIn: BEYOND_U64 });
    add(NOW_MS - 1_000, { asset: 'USDC', amountIn: 100_000_000n });
    const h = readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.notional24h.get('ETH')).toBe(2n * BEYOND_U64);
    expect(h.notional24h.get('USDC')).toBe(100_000_000n);
    expect(h.notional24h.has('BTC')).toBe(false);
    expect(h.transfersLastHour).toBe(1);
  });

  it('sums fees exactly in micro-USD; null fees count 0 and a negative fee counts 0', () => {
    add(NOW_MS - 1, { feesUsd: '0.1' });
    add(NOW_MS - 2, { feesUsd: '0.2' });
    add(NOW_MS - 3, { feesUsd: null });
    add(NOW_MS - 4, { feesUsd: '-4' });
    add(NOW_MS - 5, { feesUsd: '48.000001' });
    const h = readSpendingHistory(db, { nowMs: NOW_MS });
    expect(h.feesUsd24hMicros).toBe(48_300_001n);
    expect(h.transfersLastHour).toBe(5);
  });

  it('rejects a stored fee that is not a decimal string, naming the transfer', () => {
    const id = add(NOW_MS - 1);
    db.prepare('UPDATE transfers SET fees_usd = ? WHERE id = ?').run('$0.52', id);
    expect(() => readSpendingHistory(db, { nowMs: NOW_MS })).toThrow(StoreValueError);
    expect(() => readSpendingHistory(db, { nowMs: NOW_MS })).toThrow(`transfer ${id}`);
  });

  it('rejects a bad nowMs', () => {
    expect(() => readSpendingHistory(db, { nowMs: 1.5 })).toThrow(StoreValueError);
  });
});
