import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { recordBalances } from '../../../src/store/balances.ts';
import { finishCycle, getCycle, startCycle } from '../../../src/store/cycles.ts';
import { StoreTransitionError, StoreValueError } from '../../../src/store/errors.ts';
import { recordPlanDecisions, recordPlannedTransfers } from '../../../src/store/plans.ts';
import { getQuote, recordFeeDecision, recordQuote, recordQuoteError, recordVerdict } from '../../../src/store/quotes.ts';
import { BEYOND_U64, tempDb, type TempDb } from './helpers.ts';

let t: TempDb;
let db: Database.Database;
beforeEach(() => {
  t = tempDb();
  db = t.open();
});
afterEach(() => {
  t.cleanup();
});

describe('cycles', () => {
  it('start then finish once, with a summary holding bigints', () => {
    const id = startCycle(db, { mode: 'daemon', startedAtMs: 1000 });
    expect(getCycle(db, id)).toMatchObject({ mode: 'daemon', finishedAtMs: null, outcome: null });
    finishCycle(db, id, { outcome: 'refused', finishedAtMs: 2000, summary: { moved: BEYOND_U64 }, error: 'verification' });
    expect(getCycle(db, id)).toEqual({
      id,
      mode: 'daemon',
      startedAtMs: 1000,
      finishedAtMs: 2000,
      outcome: 'refused',
      summary: { moved: BEYOND_U64.toString() },
      error: 'verification',
    });
    expect(() => finishCycle(db, id, { outcome: 'ok', finishedAtMs: 3000 })).toThrow(StoreTransitionError);
    expect(getCycle(db, id)?.outcome).toBe('refused');
  });

  it('rejects a non-integer timestamp', () => {
    expect(() => startCycle(db, { mode: 'once', startedAtMs: 1.5 })).toThrow(StoreValueError);
  });
});

describe('balances', () => {
  it('stores reads, failed reads included, with amounts beyond 2^64 exact', () => {
    const cycleId = startCycle(db, { mode: 'once', startedAtMs: 1 });
    const base = { chainId: 8453, asset: 'USDC', wallet: 'treasury', address: '0xabc', currency: '0xusdc', readAtMs: 5 };
    recordBalances(db, cycleId, [
      { ...base, chain: 'base', amount: BEYOND_U64 },
      { ...base, chain: 'arbitrum', chainId: 42161, amount: null, error: 'rpc timeout' },
    ]);
    expect(db.prepare('SELECT chain, amount, error FROM balances ORDER BY id').all()).toEqual([
      { chain: 'base', amount: BEYOND_U64.toString(), error: null },
      { chain: 'arbitrum', amount: null, error: 'rpc timeout' },
    ]);
  });

  it('writes nothing when one row is invalid (negative, or neither amount nor error)', () => {
    const cycleId = startCycle(db, { mode: 'once', startedAtMs: 1 });
    const row = { chain: 'base', chainId: 1, asset: 'USDC', wallet: 'w', address: 'a', currency: 'c', readAtMs: 1 };
    expect(() => recordBalances(db, cycleId, [{ ...row, amount: 1n }, { ...row, amount: -1n }])).toThrow(/balances\[1\]\.amount/);
    expect(() => recordBalances(db, cycleId, [{ ...row, amount: 1n }, { ...row, amount: null }])).toThrow(/CHECK constraint failed/);
    expect(db.prepare('SELECT COUNT(*) AS n FROM balances').get()).toEqual({ n: 0 });
  });
});

describe('plans', () => {
  it('returns ids in input order and stores decisions', () => {
    const cycleId = startCycle(db, { mode: 'plan', startedAtMs: 1 });
    const ids = recordPlannedTransfers(db, cycleId, [
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', amountIn: 10n, reason: 'arbitrum below min' },
      { asset: 'USDC', originChain: 'optimism', destinationChain: 'arbitrum', amountIn: BEYOND_U64, reason: 'second donor' },
    ]);
    expect(ids).toHaveLength(2);
    expect(db.prepare('SELECT id, amount_in FROM planned_transfers ORDER BY id').all()).toEqual([
      { id: ids[0], amount_in: '10' },
      { id: ids[1], amount_in: BEYOND_U64.toString() },
    ]);
    recordPlanDecisions(db, cycleId, [
      { asset: 'USDC', chain: 'base', kind: 'surplus', detail: 'above max' },
      { asset: 'USDC', kind: 'deficit_unmet', detail: 'no donor' },
    ]);
    expect(db.prepare('SELECT chain, kind FROM plan_decisions ORDER BY id').all()).toEqual([
      { chain: 'base', kind: 'surplus' },
      { chain: null, kind: 'deficit_unmet' },
    ]);
  });
});

describe('quotes', () => {
  it('stores the raw quote, fee decision and verdict, readable together', () => {
    const cycleId = startCycle(db, { mode: 'once', startedAtMs: 1 });
    const [planId] = recordPlannedTransfers(db, cycleId, [
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', amountIn: 100n, reason: 'r' },
    ]);
    const raw = { steps: [], details: { currencyIn: { amount: '100' } } };
    const quoteId = recordQuote(db, {
      cycleId,
      planId: planId!,
      requestId: '0xreq',
      orderId: '0xorder',
      request: { amount: '100', tradeType: 'EXACT_INPUT' },
      raw,
      receivedAtMs: 7,
    });
    recordFeeDecision(db, quoteId, { accepted: false, reason: 'swap_bps', detail: 'swap fee 26 bps', breakdown: { totalMicros: 520000n } });
    recordVerdict(db, quoteId, { ok: true, rules: [{ rule: 'recipient', ok: true, detail: 'matches' }] });
    expect(getQuote(db, quoteId)).toEqual({
      id: quoteId,
      cycleId,
      planId,
      requestId: '0xreq',
      orderId: '0xorder',
      request: { amount: '100', tradeType: 'EXACT_INPUT' },
      raw,
      receivedAtMs: 7,
      fee: { accepted: false, reason: 'swap_bps', detail: 'swap fee 26 bps', breakdown: { totalMicros: '520000' } },
      verdict: { ok: true, rules: [{ rule: 'recipient', ok: true, detail: 'matches' }] },
    });
    expect(() => recordVerdict(db, quoteId, { ok: false, rules: [] })).toThrow(/UNIQUE|PRIMARY KEY/);
  });

  it('a refused fee decision needs a reason; quote errors keep the Relay request id', () => {
    const cycleId = startCycle(db, { mode: 'once', startedAtMs: 1 });
    const quoteId = recordQuote(db, { cycleId, planId: null, requestId: null, orderId: null, request: {}, raw: null, receivedAtMs: 1 });
    expect(() => recordFeeDecision(db, quoteId, { accepted: false })).toThrow(/CHECK constraint failed/);
    expect(getQuote(db, quoteId)?.fee).toBeNull();
    const id = recordQuoteError(db, { cycleId, planId: null, code: 'RELAY_HTTP_400', message: 'amount too low', relayRequestId: '0xr' });
    expect(db.prepare('SELECT code, relay_request_id FROM quote_errors WHERE id = ?').get(id)).toEqual({
      code: 'RELAY_HTTP_400',
      relay_request_id: '0xr',
    });
  });
});
