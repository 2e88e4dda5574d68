/**
 * The attempt union's constructors and outcome classes (src/cycle/transferAttempt.ts): what each variant keeps
 * of the checked quote, and how each outcome counts for its cycle.
 */
import { describe, expect, it } from 'vitest';
import type { PlannedTransfer, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { buildQuoteRequest } from '../../../packages/ballast/src/cycle/expectations.ts';
import {
  executedAttempt,
  haltedAttempt,
  heldAttempt,
  outcomeClass,
  type AttemptOutcome,
  type QuotedAttempt,
} from '../../../packages/ballast/src/cycle/transferAttempt.ts';
import { offlineQuote } from '../../fixtures/offlineQuote.ts';

const end = (chain: string): TargetBand => ({
  asset: 'USDC',
  chain,
  chainId: chain === 'alpha' ? 1 : 2,
  currency: '0x',
  wallet: 'treasury',
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  decimals: 6,
  min: 0n,
  target: 0n,
  max: 0n,
});
const planned: PlannedTransfer = { asset: 'USDC', from: end('alpha'), to: end('beta'), amountIn: 1_000_000n, reason: 'test' };

function quoted(): QuotedAttempt {
  const breakdown = {
    inputUsdMicros: 1_000_000n,
    components: { execution: 10n, swap: 0n, platform: 0n, app: 0n },
    sponsoredMicros: 0n,
    totalMicros: 10n,
  };
  return {
    planned,
    planId: 7,
    outcome: 'quoted',
    request: buildQuoteRequest(planned, {}),
    quote: offlineQuote().quote,
    quoteId: 3,
    requestId: '0xabc',
    fee: { accepted: true, breakdown },
    minOutRequired: 990_000n,
    verdict: { ok: true, orderId: null, depositItem: null, rules: [] },
  };
}

describe('executedAttempt', () => {
  it.each([
    ['success', 'success'],
    ['failure', 'failure'],
    ['refund', 'refund'],
    ['origin_failed', 'origin_failed'],
    ['deposited', 'in_flight'],
    ['broadcast', 'in_flight'],
    ['prepared', 'in_flight'],
  ] as const)('a transfer left %s ends the attempt %s, keeping the checked quote', (status, outcome) => {
    const a = executedAttempt(quoted(), { transferId: 11, status, originTxHashes: ['0x1'] });
    expect(a.outcome).toBe(outcome);
    expect([a.transferId, a.transferStatus, a.originTxHashes, a.quoteId, a.verdict.ok]).toEqual([11, status, ['0x1'], 3, true]);
    expect('error' in a).toBe(false);
  });

  it('keeps the execution error when there is one', () => {
    expect(executedAttempt(quoted(), { transferId: 1, status: 'deposited', originTxHashes: [], error: 'outcome unknown' }).error).toBe(
      'outcome unknown',
    );
  });
});

describe('heldAttempt and haltedAttempt', () => {
  it('a held attempt keeps its quote, fee and verdict and says why', () => {
    const a = heldAttempt(quoted(), 'skipped_limit', 'daily_notional: over');
    expect([a.outcome, a.error, a.quoteId, a.fee.accepted, a.minOutRequired]).toEqual([
      'skipped_limit',
      'daily_notional: over',
      3,
      true,
      990_000n,
    ]);
  });

  it('a halted attempt has no request or quote', () => {
    expect(haltedAttempt(planned, 7, 'policy.limits.killSwitch is true')).toEqual({
      planned,
      planId: 7,
      outcome: 'skipped_limit',
      error: 'policy.limits.killSwitch is true',
    });
  });
});

describe('outcomeClass', () => {
  it('counts failures as error, deliberate refusals as refused, the rest as ok', () => {
    const all: AttemptOutcome[] = [
      'quoted',
      'success',
      'in_flight',
      'skipped_fee',
      'skipped_limit',
      'refused_verification',
      'quote_error',
      'origin_failed',
      'failure',
      'refund',
      'handed_over',
    ];
    expect(Object.fromEntries(all.map((o) => [o, outcomeClass(o)]))).toEqual({
      quoted: 'ok',
      success: 'ok',
      in_flight: 'ok',
      skipped_fee: 'refused',
      skipped_limit: 'refused',
      refused_verification: 'refused',
      quote_error: 'error',
      origin_failed: 'error',
      failure: 'error',
      refund: 'error',
      handed_over: 'ok',
    });
  });
});
