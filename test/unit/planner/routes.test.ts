/**
 * Route rules (`policy.routes`, `policy.onlyListedRoutes`; src/planner/routes.ts): resolution of the first matching
 * entry, and what the planner and the sweep do with it: skip a refused pair and say why, use a pair's own bounds at
 * the asset's common scale, and name the entry in the transfer's reason.
 */
import { describe, expect, it } from 'vitest';
import { PlanInputError } from '../../../packages/ballast/src/planner/errors.ts';
import { routeRuleFor } from '../../../packages/ballast/src/planner/routes.ts';
import type { Plan, PlanInput, RouteRule, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { moves, planOf, said, target, units } from './presets.ts';

const alpha = target('alpha');
const beta = target('beta');
const gamma = target('gamma');
const ops = target('beta', { wallet: 'ops', address: '0x2222222222222222222222222222222222222222' });

/** Plans USDC on alpha, beta, gamma (band 20000/50000/80000) with the given whole-unit balances. */
const plan = (balances: [string, string, string], extra: Partial<PlanInput> = {}, targets: TargetBand[] = [alpha, beta, gamma]): Plan =>
  planOf(targets, balances, extra);

describe('routeRuleFor', () => {
  const rules: RouteRule[] = [
    { from: 'alpha', to: 'beta:ops', allow: false },
    { from: 'alpha', to: 'beta', asset: 'USDC', minTransfer: '500', maxTransfer: '20000' },
    { from: '*', to: 'beta', maxFees: { totalBps: 5 } },
  ];

  it('takes the first matching entry, wallet-specific ends before chain-wide ones', () => {
    expect(routeRuleFor({ routes: rules }, alpha, ops)).toEqual({ allowed: false, index: 0, text: 'policy.routes[0]' });
    expect(routeRuleFor({ routes: rules }, alpha, beta)).toEqual({
      allowed: true,
      index: 1,
      text: 'policy.routes[1]',
      minTransfer: '500',
      maxTransfer: '20000',
    });
    // gamma → beta passes over [1] (another origin) and lands on the wildcard [2].
    expect(routeRuleFor({ routes: rules }, gamma, beta)).toEqual({
      allowed: true,
      index: 2,
      text: 'policy.routes[2]',
      maxFees: { totalBps: 5 },
    });
  });

  it('an entry for another asset does not match', () => {
    const eth = target('alpha', { asset: 'ETH', decimals: 18 });
    const ethBeta = target('beta', { asset: 'ETH', decimals: 18 });
    expect(routeRuleFor({ routes: rules }, eth, ethBeta).index).toBe(2);
  });

  it('a route no entry matches is allowed, unless only listed routes are', () => {
    expect(routeRuleFor({ routes: rules }, beta, gamma)).toEqual({ allowed: true });
    expect(routeRuleFor({ routes: rules, onlyListedRoutes: true }, beta, gamma)).toEqual({
      allowed: false,
      text: 'policy.onlyListedRoutes (no entry of policy.routes matches)',
    });
    expect(routeRuleFor({}, beta, gamma)).toEqual({ allowed: true });
  });
});

describe('planner with route rules', () => {
  it('skips a refused pair, says why, and serves the deficit from the next donor', () => {
    // beta needs 40000; alpha (40000 surplus) may not send to beta, gamma (35000) may.
    const p = plan(['90000', '10000', '85000'], { routes: [{ from: 'alpha', to: 'beta', allow: false }] });
    expect(moves(p)).toEqual([`gamma→beta:${units(gamma, '35000')}`]);
    expect(said(p, 'route_not_allowed')).toEqual(['alpha → beta: not allowed by policy.routes[0]']);
    expect(p.decisions.find((d) => d.kind === 'route_not_allowed')?.chain).toBe('beta');
    expect(said(p, 'surplus_unused')).toEqual(['alpha: 40000 USDC of 40000 USDC surplus left unused']);
  });

  it('without the rule the larger donor is taken (control)', () => {
    expect(moves(plan(['90000', '10000', '85000']))).toEqual([`alpha→beta:${units(alpha, '40000')}`]);
  });

  it('first match wins: an allow entry above a wildcard refusal lets that one route through', () => {
    const routes: RouteRule[] = [
      { from: 'gamma', to: 'beta' },
      { from: '*', to: 'beta', allow: false },
    ];
    const p = plan(['90000', '10000', '85000'], { routes });
    expect(moves(p)).toEqual([`gamma→beta:${units(gamma, '35000')}`]);
    expect(said(p, 'route_not_allowed')).toEqual(['alpha → beta: not allowed by policy.routes[1]']);
    expect(p.transfers[0]!.reason).toBe(
      'beta below min: 10000 < 20000 USDC; gamma above max: 85000 > 80000 USDC; route gamma → beta per policy.routes[0]: min 100, max 1000000 USDC',
    );
    // The same entries the other way round: the refusal comes first and wins for gamma too.
    const reversed = plan(['90000', '10000', '85000'], { routes: [...routes].reverse() });
    expect(moves(reversed)).toEqual([]);
    expect(said(reversed, 'route_not_allowed')).toEqual([
      'alpha → beta: not allowed by policy.routes[0]',
      'gamma → beta: not allowed by policy.routes[0]',
    ]);
  });

  it('onlyListedRoutes refuses every route no entry matches', () => {
    const p = plan(['90000', '10000', '85000'], { routes: [{ from: 'gamma', to: '*' }], onlyListedRoutes: true });
    expect(moves(p)).toEqual([`gamma→beta:${units(gamma, '35000')}`]);
    expect(said(p, 'route_not_allowed')).toEqual([
      'alpha → beta: not allowed by policy.onlyListedRoutes (no entry of policy.routes matches)',
    ]);
  });

  it("uses a route's own maxTransfer and minTransfer and names the entry in the reason", () => {
    const routes: RouteRule[] = [{ from: 'alpha', to: 'beta', asset: 'USDC', minTransfer: '500', maxTransfer: '20000' }];
    const p = plan(['90000', '10000', '50000'], { routes });
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '20000')}`]);
    expect(p.transfers[0]!.reason).toBe(
      'beta below min: 10000 < 20000 USDC; alpha above max: 90000 > 80000 USDC; route alpha → beta per policy.routes[0]: min 500, max 20000 USDC',
    );
    expect(said(p, 'capped_max_transfer')).toEqual(['alpha → beta: capped at maxTransfer 20000 USDC; the rest follows in a later cycle']);
    // Other routes keep the asset's bounds: gamma → beta is not capped.
    const other = plan(['50000', '10000', '90000'], { routes });
    expect(moves(other)).toEqual([`gamma→beta:${units(gamma, '40000')}`]);
    expect(other.transfers[0]!.reason).not.toContain('route');
  });

  it("a route's higher minTransfer skips a donor whose surplus is below it", () => {
    const narrow = { min: '49000', target: '50000', max: '51000' };
    const [a, b, g] = [target('alpha', { band: narrow }), target('beta', { band: narrow }), target('gamma', { band: narrow })];
    // beta needs 13000: gamma gives 10000, then alpha could give 3000, below its routes' minimum of 5000.
    const routes: RouteRule[] = [{ from: 'alpha', to: '*', minTransfer: '5000' }];
    const p = plan(['53000', '37000', '60000'], { routes }, [a, b, g]);
    expect(moves(p)).toEqual([`gamma→beta:${units(g, '10000')}`]);
    expect(said(p, 'below_min_transfer')).toEqual(['alpha → beta: 3000 USDC is below minTransfer 5000 USDC; skipped']);
    expect(moves(plan(['53000', '37000', '60000'], {}, [a, b, g]))).toEqual([
      `gamma→beta:${units(g, '10000')}`,
      `alpha→beta:${units(a, '3000')}`,
    ]);
    const q = plan(['53000', '47000', '0'], { routes, batchSmallDeficits: false }, [a, b]);
    // beta needs 3000 (≥ the asset's 100) and alpha can give 3000, but alpha's routes want 5000: nothing moves.
    expect(moves(q)).toEqual([]);
    expect(said(q, 'below_min_transfer')).toEqual(['alpha → beta: 3000 USDC is below minTransfer 5000 USDC; skipped']);
  });

  it("a route's lower minTransfer plans a deficit the asset's minimum would leave", () => {
    const narrow = { min: '49900', target: '50000', max: '50050' };
    const [a, b] = [target('alpha', { band: narrow }), target('beta', { band: narrow })];
    const balances: [string, string, string] = ['50100', '49850', '0'];
    const base = { minTransfer: '500', batchSmallDeficits: false };
    expect(moves(plan(balances, base, [a, b]))).toEqual([]);
    const p = plan(balances, { ...base, routes: [{ from: 'alpha', to: 'beta', minTransfer: '50' }] }, [a, b]);
    expect(moves(p)).toEqual([`alpha→beta:${units(a, '100')}`]);
  });

  it('converts route bounds at the common scale across decimals (6 → 18)', () => {
    const a6 = target('alpha', { decimals: 6 });
    const b18 = target('beta', { decimals: 18 });
    const routes: RouteRule[] = [{ from: 'alpha', to: 'beta', maxTransfer: '12345.678901' }];
    const p = plan(['90000', '10000', '0'], { routes }, [a6, b18]);
    expect(p.transfers.map((t) => t.amountIn)).toEqual([12_345_678_901n]); // origin (6 dp) base units
    // A minimum finer than 6 decimals rounds nothing away: 40000 + 1e-18 is above a 40000 surplus.
    const fine = plan(
      ['90000', '10000', '0'],
      { routes: [{ from: 'alpha', to: 'beta', minTransfer: '40000.000000000000000001' }], batchSmallDeficits: false },
      [a6, b18],
    );
    expect(fine.transfers).toEqual([]);
    expect(said(fine, 'below_min_transfer')).toEqual([
      'alpha → beta: 40000 USDC is below minTransfer 40000.000000000000000001 USDC; skipped',
    ]);
  });

  it('refuses route bounds finer than the asset can express, and inverted bounds, naming the entry', () => {
    const routes: RouteRule[] = [{ from: 'alpha', to: 'beta', minTransfer: '0.0000001' }];
    expect(() => plan(['90000', '10000', '50000'], { routes })).toThrow(
      /routes\[0\]\.minTransfer: 0\.0000001 cannot be expressed in USDC at 6 decimals/,
    );
    expect(() => plan(['90000', '10000', '50000'], { routes: [{ from: '*', to: '*', minTransfer: '10', maxTransfer: '5' }] })).toThrow(
      PlanInputError,
    );
  });

  it('a wallet-specific entry concerns that wallet only', () => {
    // beta (treasury) and beta (ops) both below min; only the ops holding is refused.
    const targets = [alpha, beta, ops];
    const p = plan(['150000', '10000', '10000'], { routes: [{ from: '*', to: 'beta:ops', allow: false }] }, targets);
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '40000')}`]);
    expect(said(p, 'route_not_allowed')).toEqual(['alpha → beta (ops): not allowed by policy.routes[0]']);
  });
});

describe('sweep with route rules', () => {
  it('does not sweep over a refused route, and says so', () => {
    // No deficit; alpha and gamma above max; home beta. alpha → beta is refused.
    const p = plan(['90000', '50000', '85000'], {
      sweepTo: { USDC: { chain: 'beta' } },
      routes: [{ from: 'alpha', to: 'beta', allow: false }],
    });
    expect(moves(p)).toEqual([`gamma→beta:${units(gamma, '35000')}`]);
    expect(said(p, 'route_not_allowed')).toEqual(['alpha → beta: not allowed by policy.routes[0]']);
    expect(p.decisions.find((d) => d.kind === 'sweep')?.detail).toBe('USDC: 35000 of 75000 unused surplus swept to home beta');
  });

  it("joins a sweep to a deficit's transfer only within the route's maxTransfer", () => {
    // beta needs 40000 of alpha's 50000 surplus; the 10000 left would be swept to beta too.
    const routes: RouteRule[] = [{ from: 'alpha', to: 'beta', maxTransfer: '45000' }];
    const p = plan(['100000', '10000', '50000'], { sweepTo: { USDC: { chain: 'beta' } }, routes });
    // 40000 + 10000 > 45000: the sweep stays a transfer of its own on the same route.
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '40000')}`, `alpha→beta:${units(alpha, '10000')}`]);
    const joined = plan(['100000', '10000', '50000'], { sweepTo: { USDC: { chain: 'beta' } } });
    expect(moves(joined)).toEqual([`alpha→beta:${units(alpha, '50000')}`]);
  });
});
