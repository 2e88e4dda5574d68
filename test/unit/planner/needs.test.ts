/**
 * Needs held by the planner (docs/needs.md): a holding keeps min plus the needs due within the horizon, is refilled
 * to target plus them, and as a donor never gives what they will take.
 */
import { describe, expect, it } from 'vitest';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { PlanNeed, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { reading, target, units } from './presets.ts';

const alpha = target('alpha');
const beta = target('beta');
const DUE = Date.parse('2026-12-06T09:00:00Z');

function need(t: TargetBand, id: number, whole: string, dueAtMs = DUE): PlanNeed {
  return { id, chain: t.chain, currency: t.currency, address: t.address, amount: units(t, whole), dueAtMs };
}

function plan(balances: [string, string], needs: PlanNeed[]) {
  return planRebalance({
    targets: [alpha, beta],
    balances: [reading(alpha, balances[0]), reading(beta, balances[1])],
    inFlight: [],
    minTransfer: '100',
    maxTransfer: '1000000',
    needs,
  });
}

describe('needs', () => {
  it('a holding in band with a need it cannot pay and stay above min is refilled to target plus the need', () => {
    expect(plan(['150000', '40000'], []).transfers).toEqual([]); // beta in band: nothing without the need
    const p = plan(['150000', '40000'], [need(beta, 7, '50000')]);
    expect(p.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn, t.funds])).toEqual([
      ['alpha', 'beta', units(alpha, '60000'), [7]], // 40000 − 50000 = −10000 → target 50000 needs 60000
    ]);
    expect(p.decisions.find((d) => d.kind === 'need_held')?.detail).toBe(
      'beta: holds 50000 USDC for need #7 (50000 due 2026-12-06T09:00:00.000Z)',
    );
    expect(p.decisions.find((d) => d.kind === 'deficit' && d.chain === 'beta')?.detail).toMatch(/^beta below min: -10000 < 20000 USDC/);
  });

  it('a need that leaves the holding at or above min holds nothing back, and is still named', () => {
    const q = plan(['70000', '40000'], [need(beta, 1, '15000')]);
    expect(q.transfers).toEqual([]);
    expect(q.decisions.find((d) => d.chain === 'beta' && d.kind === 'in_band')?.detail).toBe(
      'beta: 25000 after its needs within [20000, 80000] USDC',
    );
  });

  it('a donor never gives what its own needs will take; several needs are held in due order', () => {
    const needs = [need(alpha, 4, '5000', DUE + 3_600_000), need(alpha, 3, '20000')];
    const p = plan(['90000', '10000'], needs); // alpha 90000 − 25000 = 65000: in band, no surplus to give
    expect(p.transfers).toEqual([]);
    expect(p.decisions.find((d) => d.kind === 'need_held')?.detail).toBe(
      'alpha: holds 25000 USDC for needs #3 (20000 due 2026-12-06T09:00:00.000Z), #4 (5000 due 2026-12-06T10:00:00.000Z)',
    );
    expect(p.decisions.find((d) => d.kind === 'deficit_unmet')?.chain).toBe('beta');
    const more = plan(['150000', '10000'], needs); // 150000 − 25000 = 125000: gives down to target 50000
    expect(more.transfers.map((t) => [t.amountIn, t.funds])).toEqual([[units(beta, '40000'), undefined]]);
  });

  it('refuses a need that is not a positive amount', () => {
    expect(() => plan(['50000', '50000'], [{ ...need(beta, 1, '1'), amount: 0n }])).toThrow(/needs\[0\]\.amount/);
  });
});
