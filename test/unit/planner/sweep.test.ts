/**
 * Sweeping (policy.sweepTo, src/planner/sweep.ts): a surplus no deficit took goes to the asset's home holding, after
 * the deficits were served, within the transfer bounds; without sweepTo it stays.
 */
import { describe, expect, it } from 'vitest';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { PlanInput, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { reading, target, units } from './presets.ts';

const alpha = target('alpha');
const beta = target('beta');
const gamma = target('gamma');
const plan = (balances: string[], extra: Partial<PlanInput> = {}) =>
  planRebalance({
    targets: [alpha, beta, gamma],
    balances: [alpha, beta, gamma].map((t: TargetBand, i) => reading(t, balances[i]!)),
    inFlight: [],
    minTransfer: '100',
    maxTransfer: '1000000',
    ...extra,
  });
const moves = (p: ReturnType<typeof plan>) => p.transfers.map((t) => `${t.from.chain}→${t.to.chain}:${t.amountIn}`);

describe('sweep to a home holding', () => {
  it('moves a surplus no deficit took to the home, and says so', () => {
    // Band 20000/50000/80000: alpha and gamma above max, no deficit anywhere; home is beta (in band).
    const p = plan(['90000', '50000', '85000'], { sweepTo: { USDC: { chain: 'beta' } } });
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '40000')}`, `gamma→beta:${units(gamma, '35000')}`]);
    expect(p.decisions.find((d) => d.kind === 'sweep')?.detail).toBe('USDC: 75000 of 75000 unused surplus swept to home beta');
    expect(p.decisions.filter((d) => d.kind === 'surplus_unused')).toEqual([]);
  });

  it('serves the deficits first and sweeps only what is left', () => {
    const p = plan(['90000', '50000', '10000'], { sweepTo: { USDC: { chain: 'beta' } } });
    expect(moves(p)).toEqual([`alpha→gamma:${units(alpha, '40000')}`]);
    expect(p.decisions.some((d) => d.kind === 'sweep')).toBe(false);
  });

  it('joins a sweep to the transfer a deficit already makes on the same route (one fee)', () => {
    // beta needs 40000 of alpha's 50000 surplus; the 10000 left is swept to beta too, in the same transfer.
    const p = plan(['100000', '10000', '50000'], { sweepTo: { USDC: { chain: 'beta' } } });
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '50000')}`]);
    expect(p.transfers[0]!.reason).toBe('beta below min: 10000 < 20000 USDC; alpha above max: 100000 > 80000 USDC; plus 10000 USDC swept');
  });

  it('never sweeps the home into itself, and does nothing without sweepTo', () => {
    const home = plan(['90000', '50000', '50000'], { sweepTo: { USDC: { chain: 'alpha' } } });
    expect(moves(home)).toEqual([]);
    expect(moves(plan(['90000', '50000', '50000']))).toEqual([]);
  });
});
