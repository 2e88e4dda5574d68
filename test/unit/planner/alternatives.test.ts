/**
 * Route alternatives (src/planner/alternatives.ts, planRebalance `maxAlternatives`): other donors that could send a
 * planned transfer's value from surplus nothing else takes, and every donor's spare.
 */
import { describe, expect, it } from 'vitest';
import { targetKey } from '../../../packages/ballast/src/planner/effective.ts';
import type { PlanInput, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { planOf, target, units } from './presets.ts';

const alpha = target('alpha');
const beta = target('beta');
const gamma = target('gamma');
const delta18 = target('delta', { decimals: 18, currency: '0x' + 'd'.repeat(40) });

const plan = (targets: TargetBand[], balances: string[], extra: Partial<PlanInput> = {}) =>
  planOf(targets, balances, { maxAlternatives: 2, ...extra });
const alts = (p: ReturnType<typeof plan>) => p.transfers.map((t) => (t.alternatives ?? []).map((a) => `${a.from.chain}:${a.amountIn}`));

describe('route alternatives', () => {
  it('lists a donor whose unused surplus covers the transfer, with the same value, and reports spares', () => {
    // beta needs 40000; alpha (surplus 50000) is the pick, gamma (surplus 40000) could send it as well.
    const p = plan([alpha, beta, gamma], ['100000', '10000', '90000']);
    expect(p.transfers.map((t) => `${t.from.chain}→${t.to.chain}:${t.amountIn}`)).toEqual([`alpha→beta:${units(alpha, '40000')}`]);
    expect(alts(p)).toEqual([[`gamma:${units(gamma, '40000')}`]]);
    expect(p.transfers[0]!.alternatives![0]!.why).toBe('gamma (treasury) has 40000 USDC of surplus no other transfer takes');
    expect(p.spare?.get(targetKey(alpha))).toBe(units(alpha, '10000'));
    expect(p.spare?.get(targetKey(gamma))).toBe(units(gamma, '40000'));
  });

  it('lists no donor whose spare falls short of the transfer', () => {
    // beta needs 40000: gamma gives its whole 35000 surplus, alpha 5000 of its 31000; alpha's spare 26000 cannot
    // carry gamma's 35000, and gamma has nothing left for alpha's 5000.
    const p = plan([alpha, beta, gamma], ['81000', '10000', '85000']);
    expect(p.transfers.map((t) => `${t.from.chain}:${t.amountIn}`)).toEqual([
      `gamma:${units(gamma, '35000')}`,
      `alpha:${units(alpha, '5000')}`,
    ]);
    expect(alts(p)).toEqual([[], []]);
    expect(p.spare?.get(targetKey(alpha))).toBe(units(alpha, '26000'));
    expect(p.spare?.get(targetKey(gamma))).toBe(0n);
  });

  it("converts the value to the alternative donor's decimals", () => {
    const a = target('alpha');
    const d = { ...delta18, asset: 'USDC' };
    const p = plan([a, beta, d], ['100000', '10000', '90000']);
    expect(alts(p)).toEqual([[`delta:${units(d, '40000')}`]]);
  });

  it('gives no alternatives without maxAlternatives, and leaves the plan without spares', () => {
    const p = plan([alpha, beta, gamma], ['100000', '10000', '90000'], { maxAlternatives: 0 });
    expect(alts(p)).toEqual([[]]);
    expect(p.spare).toBeUndefined();
  });

  it('gives a transfer carrying a sweep no alternatives (its donor was chosen for its leftover)', () => {
    const p = plan([alpha, beta, gamma], ['100000', '10000', '90000'], { sweepTo: { USDC: { chain: 'beta' } } });
    // alpha's whole surplus (40000 needed + 10000 swept) goes to beta in one transfer; gamma's is swept too.
    expect(p.transfers.map((t) => `${t.from.chain}→${t.to.chain}`)).toEqual(['alpha→beta', 'gamma→beta']);
    expect(alts(p)).toEqual([[], []]);
  });

  it('caps the list at maxAlternatives, largest spare first', () => {
    const d = target('delta');
    const p = plan([alpha, beta, gamma, d], ['200000', '10000', '90000', '100000'], { maxAlternatives: 1 });
    expect(alts(p)).toEqual([[`delta:${units(d, '40000')}`]]);
  });
});
