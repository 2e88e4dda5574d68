/**
 * checkQuote (src/cycle/checkQuote.ts) on its own: one planned transfer quoted by the in-memory Relay service,
 * judged by the fee policy and verified against the in-memory chains, with every step recorded in a real SQLite
 * store. Each outcome variant carries what exists at its step and nothing more.
 */
import { describe, expect, it } from 'vitest';
import { checkQuote, type CheckStage } from '../../../packages/ballast/src/cycle/checkQuote.ts';
import { getQuote } from '../../../packages/ballast/src/store/quotes.ts';
import { checkArgs, checkDeps, oneNeed, pipelineSuite, rowsForPlan, withPolicy } from './pipelineWorld.ts';

const suite = pipelineSuite();

describe('checkQuote', () => {
  it('ends `quoted` with the quote, the accepted fee decision, the verdict and the floor, all recorded', async () => {
    const w = await suite.world('quoted');
    const stages: CheckStage[] = [];
    const attempt = await checkQuote(checkDeps(w), checkArgs(w), (s) => stages.push(s));
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
    const { config: model } = suite.env;
    const config = withPolicy(model, { maxFees: { ...model.policy.maxFees, totalUsd: '0.000001' } });
    const w = await suite.world('skipped-fee', { config });
    const attempt = await checkQuote(checkDeps(w), checkArgs(w));
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
    const w = await suite.world('quote-error', { schedule: oneNeed({ relayFaults: [1] }) });
    const attempt = await checkQuote(checkDeps(w), checkArgs(w));
    expect(attempt.outcome).toBe('quote_error');
    expect(attempt.quote).toBeUndefined();
    expect(attempt.fee).toBeUndefined();
    expect(attempt.request?.amount).toBe(w.planned.amountIn.toString());
    expect(attempt.error).toMatch(/socket hang up/);
    expect(await rowsForPlan(w, 'quote_errors')).toBe(1);
  });
});
