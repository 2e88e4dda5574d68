/**
 * The refill point (`refillTo`, per asset): a holding below min is refilled to its target by default, or to a point
 * inside its band (min + a share of max − min).
 */
import { describe, expect, it } from 'vitest';
import { planRebalance, refillLevel } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { RefillPoint } from '../../../packages/ballast/src/planner/types.ts';
import { reading, target, units } from './presets.ts';

const alpha = target('alpha');
const beta = target('beta');

function plan(refillTo?: Record<string, RefillPoint>) {
  return planRebalance({
    targets: [alpha, beta],
    balances: [reading(alpha, '150000'), reading(beta, '10000')],
    inFlight: [],
    minTransfer: '100',
    maxTransfer: '1000000',
    ...(refillTo ? { refillTo } : {}),
  });
}

describe('refillTo', () => {
  it('refills to target by default and to the band point when set', () => {
    expect(plan().transfers.map((t) => t.amountIn)).toEqual([units(beta, '40000')]); // to target 50000
    expect(plan({ USDC: 'target' }).transfers.map((t) => t.amountIn)).toEqual([units(beta, '40000')]);
    const p = plan({ USDC: { bandBps: 4000 } }); // 20000 + 40 % of 60000 = 44000
    expect(p.transfers.map((t) => t.amountIn)).toEqual([units(beta, '34000')]);
    expect(p.decisions.find((d) => d.kind === 'deficit')?.detail).toBe(
      'beta below min: 10000 < 20000 USDC; needs 34000 to reach its refill point 44000',
    );
    expect(plan({ USDT: { bandBps: 0 } }).transfers.map((t) => t.amountIn)).toEqual([units(beta, '40000')]); // another asset's point
  });

  it('computes the point in base units, from min to max', () => {
    expect([0, 5000, 10_000].map((bandBps) => refillLevel(beta, { bandBps }))).toEqual([
      units(beta, '20000'),
      units(beta, '50000'),
      units(beta, '80000'),
    ]);
    expect(() => plan({ USDC: { bandBps: 10_001 } })).toThrow(/refillTo\.USDC/);
  });
});
