import { beforeEach, describe, expect, it } from 'vitest';
import { recordBalances } from '../../../packages/ballast/src/store/balances.ts';
import { finishCycle, getCycle, startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { StoreTransitionError, StoreValueError } from '../../../packages/ballast/src/store/errors.ts';
import { recordPlanDecisions, recordPlannedTransfers } from '../../../packages/ballast/src/store/plans.ts';
import { getQuote, recordFeeDecision, recordQuote, recordQuoteError, recordVerdict } from '../../../packages/ballast/src/store/quotes.ts';
import { describeEachEngine, expectConstraint } from '../../helpers/storeEngines.ts';
import { BEYOND_U64 } from './helpers.ts';

describeEachEngine('records store', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  describe('cycles', () => {
    it('start then finish once, with a summary holding bigints', async () => {
      const id = await startCycle(db, { mode: 'daemon', startedAtMs: 1000 });
      expect(await getCycle(db, id)).toMatchObject({ mode: 'daemon', finishedAtMs: null, outcome: null });
      await finishCycle(db, id, { outcome: 'refused', finishedAtMs: 2000, summary: { moved: BEYOND_U64 }, error: 'verification' });
      expect(await getCycle(db, id)).toEqual({
        id,
        mode: 'daemon',
        startedAtMs: 1000,
        finishedAtMs: 2000,
        outcome: 'refused',
        summary: { moved: BEYOND_U64.toString() },
        error: 'verification',
      });
      await expect(finishCycle(db, id, { outcome: 'ok', finishedAtMs: 3000 })).rejects.toThrow(StoreTransitionError);
      expect((await getCycle(db, id))?.outcome).toBe('refused');
    });

    it('rejects a non-integer timestamp', async () => {
      await expect(startCycle(db, { mode: 'once', startedAtMs: 1.5 })).rejects.toThrow(StoreValueError);
    });
  });

  describe('balances', () => {
    it('stores reads, failed reads included, with amounts beyond 2^64 exact', async () => {
      const cycleId = await startCycle(db, { mode: 'once', startedAtMs: 1 });
      const base = { chainId: 8453, asset: 'USDC', wallet: 'treasury', address: '0xabc', currency: '0xusdc', readAtMs: 5 };
      await recordBalances(db, cycleId, [
        { ...base, chain: 'base', amount: BEYOND_U64 },
        { ...base, chain: 'arbitrum', chainId: 42161, amount: null, error: 'rpc timeout' },
      ]);
      expect(await db.all('SELECT chain, amount, error FROM balances ORDER BY id')).toEqual([
        { chain: 'base', amount: BEYOND_U64.toString(), error: null },
        { chain: 'arbitrum', amount: null, error: 'rpc timeout' },
      ]);
    });

    it('writes nothing when one row is invalid (negative, or neither amount nor error)', async () => {
      const cycleId = await startCycle(db, { mode: 'once', startedAtMs: 1 });
      const row = { chain: 'base', chainId: 1, asset: 'USDC', wallet: 'w', address: 'a', currency: 'c', readAtMs: 1 };
      await expect(
        recordBalances(db, cycleId, [
          { ...row, amount: 1n },
          { ...row, amount: -1n },
        ]),
      ).rejects.toThrow(/balances\[1\]\.amount/);
      await expectConstraint(
        recordBalances(db, cycleId, [
          { ...row, amount: 1n },
          { ...row, amount: null },
        ]),
        'check',
      );
      expect(await db.get('SELECT COUNT(*) AS n FROM balances')).toEqual({ n: 0 });
    });
  });

  describe('plans', () => {
    it('returns ids in input order and stores decisions', async () => {
      const cycleId = await startCycle(db, { mode: 'plan', startedAtMs: 1 });
      const ids = await recordPlannedTransfers(db, cycleId, [
        { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', amountIn: 10n, reason: 'arbitrum below min' },
        { asset: 'USDC', originChain: 'optimism', destinationChain: 'arbitrum', amountIn: BEYOND_U64, reason: 'second donor' },
      ]);
      expect(ids).toHaveLength(2);
      expect(await db.all('SELECT id, amount_in FROM planned_transfers ORDER BY id')).toEqual([
        { id: ids[0], amount_in: '10' },
        { id: ids[1], amount_in: BEYOND_U64.toString() },
      ]);
      await recordPlanDecisions(db, cycleId, [
        { asset: 'USDC', chain: 'base', kind: 'surplus', detail: 'above max' },
        { asset: 'USDC', kind: 'deficit_unmet', detail: 'no donor' },
      ]);
      expect(await db.all('SELECT chain, kind FROM plan_decisions ORDER BY id')).toEqual([
        { chain: 'base', kind: 'surplus' },
        { chain: null, kind: 'deficit_unmet' },
      ]);
    });
  });

  describe('quotes', () => {
    it('stores the raw quote, fee decision and verdict, readable together', async () => {
      const cycleId = await startCycle(db, { mode: 'once', startedAtMs: 1 });
      const [planId] = await recordPlannedTransfers(db, cycleId, [
        { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', amountIn: 100n, reason: 'r' },
      ]);
      const raw = { steps: [], details: { currencyIn: { amount: '100' } } };
      const quoteId = await recordQuote(db, {
        cycleId,
        planId: planId!,
        requestId: '0xreq',
        orderId: '0xorder',
        request: { amount: '100', tradeType: 'EXACT_INPUT' },
        raw,
        receivedAtMs: 7,
      });
      await recordFeeDecision(db, quoteId, {
        accepted: false,
        reason: 'swap_bps',
        detail: 'swap fee 26 bps',
        breakdown: { totalMicros: 520000n },
      });
      await recordVerdict(db, quoteId, { ok: true, rules: [{ rule: 'recipient', ok: true, detail: 'matches' }] });
      expect(await getQuote(db, quoteId)).toEqual({
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
      await expectConstraint(recordVerdict(db, quoteId, { ok: false, rules: [] }), 'unique');
    });

    it('a refused fee decision needs a reason; quote errors keep the Relay request id', async () => {
      const cycleId = await startCycle(db, { mode: 'once', startedAtMs: 1 });
      const quoteId = await recordQuote(db, {
        cycleId,
        planId: null,
        requestId: null,
        orderId: null,
        request: {},
        raw: null,
        receivedAtMs: 1,
      });
      await expectConstraint(recordFeeDecision(db, quoteId, { accepted: false }), 'check');
      expect((await getQuote(db, quoteId))?.fee).toBeNull();
      const id = await recordQuoteError(db, {
        cycleId,
        planId: null,
        code: 'RELAY_HTTP_400',
        message: 'amount too low',
        relayRequestId: '0xr',
      });
      expect(await db.get('SELECT code, relay_request_id FROM quote_errors WHERE id = ?', id)).toEqual({
        code: 'RELAY_HTTP_400',
        relay_request_id: '0xr',
      });
    });
  });
});
