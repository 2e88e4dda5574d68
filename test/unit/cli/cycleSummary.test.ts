/**
 * The closing summary of `ballast plan` and `ballast run --once` (src/cli/cycleSummary.ts) never contradicts the
 * report: after a failure it says what failed and the fix, with no balance table and no word about the bands; a
 * holding out of band is named with the reason nothing moves it (a surplus no deficit takes, a deficit below
 * minTransfer, transfers in flight that cover it, an unread chain); "every target is in band" only when it is so.
 */
import { describe, expect, it } from 'vitest';
import { ALL_IN_BAND, cycleHeadline, cycleSummary } from '../../../packages/ballast/src/cli/cycleSummary.ts';
import { renderReport } from '../../../packages/ballast/src/cli/renderReport.ts';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { CycleReport } from '../../../packages/ballast/src/cycle/runCycle.ts';
import type { BalanceReading, InFlightTransfer, PlanInput, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { inFlight, reading, target, unreadable } from '../planner/presets.ts';

const alpha = target('alpha', { band: { min: '40000', target: '50000', max: '70000' } });
const beta = target('beta', { band: { min: '5000', target: '10000', max: '20000' } });

/** A plan-mode report of `balances` (one per target: whole units, or a reading) planned as a cycle would. */
function reportOf(
  balances: (string | BalanceReading)[],
  extra: Partial<PlanInput> & { inFlight?: InFlightTransfer[] } = {},
  targets: TargetBand[] = [alpha, beta],
): CycleReport {
  const readings = balances.map((b, i) => (typeof b === 'string' ? reading(targets[i]!, b) : b));
  const plan = planRebalance({ targets, balances: readings, inFlight: [], minTransfer: '100', maxTransfer: '50000', ...extra });
  return {
    cycleId: 19,
    mode: 'plan',
    outcome: 'ok',
    startedAtMs: 0,
    finishedAtMs: 0,
    targets,
    unresolved: [],
    balances: readings,
    plan,
    attempts: [],
  };
}

describe('nothing planned', () => {
  it('names a surplus no deficit can take, and points at policy.sweepTo, instead of "every target is in band"', () => {
    const r = reportOf(['90000', '10000']);
    expect(r.plan.transfers).toEqual([]);
    expect(cycleSummary(r)).toEqual([
      'nothing to move this cycle, though 1 target is out of band or unread:',
      '  USDC alpha is 20000 USDC above max (90000 > 70000 USDC), and no holding of USDC has a deficit to receive it; set policy.sweepTo.USDC to park surpluses at a home holding',
    ]);
    const text = renderReport(r);
    expect(text).toContain('above max');
    expect(text).not.toContain('in band (or');
    expect(text).not.toContain(ALL_IN_BAND);
  });

  it('says the sweep home keeps what it receives when the surplus sits at the home itself', () => {
    const r = reportOf(['90000', '10000'], { sweepTo: { USDC: { chain: 'alpha' } } });
    expect(cycleSummary(r, { sweepTo: { USDC: 'alpha' } })[1]).toBe(
      '  USDC alpha is 20000 USDC above max (90000 > 70000 USDC), and no holding of USDC has a deficit to receive it; it is the sweep home (policy.sweepTo.USDC), which keeps what it receives',
    );
  });

  it('says a deficit below minTransfer waits', () => {
    // beta needs 5010 to its refill point, below minTransfer 6000; alpha's surplus then has no deficit to take it.
    const r = reportOf(['71000', '4990'], { minTransfer: '6000', batchSmallDeficits: false });
    expect(r.plan.transfers).toEqual([]);
    expect(cycleSummary(r)).toEqual([
      'nothing to move this cycle, though 2 targets are out of band or unread:',
      expect.stringMatching(/^ {2}USDC alpha is 1000 USDC above max .*; set policy.sweepTo.USDC to park surpluses at a home holding$/),
      expect.stringMatching(/^ {2}USDC beta is 10 USDC below min \(4990 < 5000 USDC\), and it waits: beta: .*below minTransfer 6000/),
    ]);
  });

  it('says transfers in flight already cover a holding below min by its reading', () => {
    const r = reportOf(['50000', '1000'], { inFlight: [inFlight(alpha, beta, '9000', { settled: true })] });
    expect(r.plan.transfers).toEqual([]);
    expect(cycleSummary(r)[1]).toMatch(
      /^ {2}USDC beta is 4000 USDC below min \(1000 < 5000 USDC\), and transfers in flight already cover it \(beta: read 1000, in flight \+9000/,
    );
  });

  it('names an unread chain and never claims its targets are in band', () => {
    const r = reportOf(['50000', unreadable(beta, 'rpc timeout')]);
    expect(cycleSummary(r)).toEqual([
      'nothing to move this cycle, though 1 target is out of band or unread:',
      '  USDC beta could not be read (rpc timeout); nothing was planned for it',
    ]);
  });

  it('does not say no holding has a deficit when one could not be read', () => {
    const r = reportOf(['90000', unreadable(beta, 'rpc timeout')]);
    expect(cycleSummary(r)[1]).toBe(
      '  USDC alpha is 20000 USDC above max (90000 > 70000 USDC), and no holding of USDC that was read has a deficit to receive it (beta could not be read)',
    );
  });

  it('says every target is in band only when every reading is', () => {
    expect(cycleSummary(reportOf(['50000', '10000']))).toEqual([ALL_IN_BAND]);
  });
});

describe('transfers planned', () => {
  it('adds the targets out of band that no transfer touches, and nothing otherwise', () => {
    const gamma = target('gamma', { band: { min: '100', target: '200', max: '300' } });
    const r = reportOf(['90000', '1000', '200'], {}, [alpha, beta, gamma]);
    expect(r.plan.transfers.map((t) => `${t.from.chain}→${t.to.chain}`)).toEqual(['alpha→beta']);
    expect(cycleSummary(r)).toEqual([]);
    const left = reportOf(['90000', '1000', '5000'], { routes: [{ from: 'gamma', to: 'beta', allow: false }] }, [alpha, beta, gamma]);
    expect(cycleSummary(left)).toEqual([
      'also out of band or unread, and not moved this cycle:',
      expect.stringMatching(/^ {2}USDC gamma is 4700 USDC above max \(5000 > 300 USDC\), and /),
    ]);
  });
});

describe('a failed cycle', () => {
  const failed: CycleReport = {
    ...reportOf(['50000', '10000']),
    outcome: 'error',
    targets: [],
    balances: [],
    plan: { transfers: [], decisions: [] },
    error:
      'GET /chains failed: Relay GET /chains could not be reached: fetch failed (ECONNREFUSED). Fix: check relay.baseUrl and network access',
  };

  it('prints what failed and the fix: no table, no "in band" line', () => {
    const text = renderReport(failed);
    expect(text.split('\n')).toEqual([
      'cycle 19 (plan) failed: GET /chains failed: Relay GET /chains could not be reached: fetch failed (ECONNREFUSED). Fix: check relay.baseUrl and network access',
      'nothing was planned or signed; check the Relay API: `ballast api-check` probes every endpoint Ballast uses at relay.baseUrl',
    ]);
  });

  it('words an execution cycle and an error with no fix of its own', () => {
    const run = { ...failed, mode: 'once' as const, error: 'SQLITE_BUSY: database is locked' };
    expect(cycleHeadline(run)).toBe('cycle 19 (once) failed: SQLITE_BUSY: database is locked');
    expect(cycleSummary(run)).toEqual([
      'nothing was signed or moved this cycle; the log lines on stderr carry the cause; `ballast check-config` checks the configuration offline',
    ]);
  });
});
