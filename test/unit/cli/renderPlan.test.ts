/**
 * `ballast plan` in words: the report lists why each transfer is proposed (the planner's reason, naming a route
 * rule that applied) and the new decisions (`batched`, `route_not_allowed`); when nothing is planned because a
 * route is refused, the summary says so instead of claiming every target is in band.
 */
import { describe, expect, it } from 'vitest';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import { renderAttempts, renderDecisions, renderReasons, renderReport } from '../../../packages/ballast/src/cli/renderReport.ts';
import { cycleSummary } from '../../../packages/ballast/src/cli/cycleSummary.ts';
import type { CycleReport } from '../../../packages/ballast/src/cycle/runCycle.ts';
import type { PlanInput } from '../../../packages/ballast/src/planner/types.ts';
import { reading, target } from '../planner/presets.ts';

const alpha = target('alpha', { band: { min: '40000', target: '50000', max: '60000' } });
const beta = target('beta', { band: { min: '10010', target: '10040', max: '20000' } });

function report(extra: Partial<PlanInput>): CycleReport {
  const targets = [alpha, beta];
  const balances = [reading(alpha, '90000'), reading(beta, '10000')];
  const plan = planRebalance({ targets, balances, inFlight: [], minTransfer: '100', maxTransfer: '50000', ...extra });
  return {
    cycleId: 7,
    mode: 'plan',
    outcome: 'ok',
    startedAtMs: 0,
    finishedAtMs: 0,
    targets,
    unresolved: [],
    balances,
    plan,
    attempts: [],
  };
}

describe('plan rendering', () => {
  it('says why each transfer is proposed, with the route rule and the batching decision', () => {
    const r = report({ routes: [{ from: 'alpha', to: 'beta', minTransfer: '500' }] });
    expect(renderReasons(r)).toBe(
      'why:\n  1. USDC alpha → beta: beta below min: 10000 < 10010 USDC; alpha above max: 90000 > 60000 USDC; raised from 40 USDC to minTransfer so the flat fee is paid once; route alpha → beta per policy.routes[0]: min 500, max 50000 USDC',
    );
    const text = renderReport(r);
    expect(text).toContain('batched');
    expect(text).toContain('planned 500 USDC from alpha so the flat fee is paid once');
    expect(text.indexOf('why:')).toBeGreaterThan(text.indexOf('not attempted'));
  });

  it('names refused routes when nothing is planned', () => {
    const r = report({ routes: [{ from: 'alpha', to: 'beta', allow: false }] });
    expect(renderReasons(r)).toBe('');
    expect(renderDecisions(r)).toContain('alpha → beta: not allowed by policy.routes[0]');
    expect(renderAttempts(r)).toBe('');
    expect(cycleSummary(r)).toEqual([
      'nothing to move this cycle, though 2 targets are out of band or unread:',
      '  USDC alpha is 30000 USDC above max (90000 > 60000 USDC), and no holding of USDC has a deficit to receive it; set policy.sweepTo.USDC to park surpluses at a home holding',
      '  USDC beta is 10 USDC below min (10000 < 10010 USDC), and the route that could fill it is refused (alpha → beta: not allowed by policy.routes[0]; see policy.routes, policy.onlyListedRoutes); it waits: beta: needs 40 USDC, below minTransfer; no surplus could give a minTransfer its band can take this cycle, so it waits until the deficit reaches minTransfer',
    ]);
  });
});
