/**
 * checkQuote (src/cycle/checkQuote.ts) on its own: one planned transfer quoted by the in-memory Relay service,
 * judged by the fee policy and verified against the in-memory chains, with every step recorded in a real SQLite
 * store. Each outcome variant carries what exists at its step and nothing more.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkQuote, type CheckQuoteDeps, type CheckStage } from '../../../src/cycle/checkQuote.ts';
import { getQuote } from '../../../src/store/quotes.ts';
import { createModelEnv, type ModelEnv } from '../../model/harness.ts';
import { oneNeed, pipelineWorld, withPolicy, type PipelineWorld } from './pipelineWorld.ts';

let env: ModelEnv;
let w: PipelineWorld | undefined;

beforeAll(() => {
  env = createModelEnv();
});
afterEach(() => w?.close());
afterAll(() => env.close());

/** Just what checkQuote declares, taken from the world's parts. */
function checkDeps(p: PipelineWorld): CheckQuoteDeps {
  const { config, db, relay, chains, wallets, metrics, logger, now } = p.deps;
  return { config, db, relay, chains, wallets, metrics, logger, now };
}

async function quoteErrorCount(p: PipelineWorld): Promise<number> {
  const row = await p.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM quote_errors WHERE plan_id = ?', p.planId); // one INTEGER column
  return row!.n;
}

describe('checkQuote', () => {
  it('ends `quoted` with the quote, the accepted fee decision, the verdict and the floor, all recorded', async () => {
    w = await pipelineWorld(env, 'quoted');
    const stages: CheckStage[] = [];
    const attempt = await checkQuote(
      checkDeps(w),
      { cycleId: w.cycleId, planId: w.planId, planned: w.planned, chainsDoc: w.chainsDoc },
      (s) => stages.push(s),
    );
    expect(attempt.outcome, attempt.error).toBe('quoted');
    if (attempt.outcome !== 'quoted') return;
    // Narrowed: the fields of a checked quote exist without `!`.
    expect(attempt.fee.accepted).toBe(true);
    expect(attempt.verdict.ok).toBe(true);
    expect(attempt.minOutRequired > 0n && attempt.minOutRequired <= w.planned.amountIn).toBe(true);
    expect(attempt.request.amount).toBe(w.planned.amountIn.toString());
    expect(stages).toEqual(['quoted', 'verified']);
    const row = await getQuote(w.db, attempt.quoteId);
    expect(row?.planId).toBe(w.planId);
    expect(row?.fee?.accepted).toBe(true);
    expect(row?.verdict?.ok).toBe(true);
  });

  it('ends `skipped_fee` with the rejected decision and no verdict when the fee caps are exceeded', async () => {
    const config = withPolicy(env.config, { maxFees: { ...env.config.policy.maxFees, totalUsd: '0.000001' } });
    w = await pipelineWorld(env, 'skipped-fee', { config });
    const attempt = await checkQuote(checkDeps(w), { cycleId: w.cycleId, planId: w.planId, planned: w.planned, chainsDoc: w.chainsDoc });
    expect(attempt.outcome).toBe('skipped_fee');
    if (attempt.outcome !== 'skipped_fee') return;
    expect(attempt.fee.accepted).toBe(false);
    expect(attempt.fee.exceeded).toContain('total_usd');
    expect(attempt.verdict).toBeUndefined();
    expect(attempt.minOutRequired).toBeUndefined();
    const row = await getQuote(w.db, attempt.quoteId);
    expect(row?.fee).toMatchObject({ accepted: false, reason: 'total_usd' });
    expect(row?.verdict).toBeNull();
  });

  it('ends `quote_error` with the request and the error, and no quote, when POST /quote/v2 fails', async () => {
    // Relay calls of the world: #0 GET /chains (building the world), #1 the quote.
    w = await pipelineWorld(env, 'quote-error', { schedule: oneNeed({ relayFaults: [1] }) });
    const attempt = await checkQuote(checkDeps(w), { cycleId: w.cycleId, planId: w.planId, planned: w.planned, chainsDoc: w.chainsDoc });
    expect(attempt.outcome).toBe('quote_error');
    expect(attempt.quote).toBeUndefined();
    expect(attempt.fee).toBeUndefined();
    expect(attempt.request?.amount).toBe(w.planned.amountIn.toString());
    expect(attempt.error).toMatch(/socket hang up/);
    expect(await quoteErrorCount(w)).toBe(1);
  });
});
