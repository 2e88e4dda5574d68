/**
 * Weighted targets (src/planner/weights.ts): bands from the asset's current total, exact across decimals, with
 * in-flight value counted once, and no bands (nothing moves) while a holding is unreadable.
 */
import { describe, expect, it } from 'vitest';
import { applyWeights } from '../../../packages/ballast/src/planner/weights.ts';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { InFlightTransfer, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { reading, target, unreadable } from './presets.ts';

const weighted = (chain: string, weight: number, opts: { decimals?: number; toleranceBps?: number } = {}): TargetBand => ({
  ...target(chain, { decimals: opts.decimals ?? 6 }),
  min: 0n,
  target: 0n,
  max: 0n,
  weight,
  toleranceBps: opts.toleranceBps ?? 100,
});

describe('applyWeights', () => {
  it('splits the total by weight with a band of ±tolerance of the total, and the planner then moves the difference', () => {
    const base = weighted('base', 40);
    const arb = weighted('arbitrum', 60);
    const balances = [reading(base, '90000'), reading(arb, '10000')];
    const w = applyWeights([base, arb], balances, []);
    expect(w.targets.map((t) => [t.chain, t.min, t.target, t.max])).toEqual([
      ['base', 39_000_000_000n, 40_000_000_000n, 41_000_000_000n],
      ['arbitrum', 59_000_000_000n, 60_000_000_000n, 61_000_000_000n],
    ]);
    expect(w.decisions).toEqual([
      {
        asset: 'USDC',
        kind: 'weights',
        detail:
          'USDC: 100000 held in total; base weight 40 → target 40000, band [39000, 41000]; arbitrum weight 60 → target 60000, band [59000, 61000]',
      },
    ]);
    const plan = planRebalance({ targets: w.targets, balances, inFlight: [], minTransfer: '100', maxTransfer: '1000000' });
    expect(plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['base', 'arbitrum', 50_000_000_000n]]);
  });

  it('adds holdings of different decimals exactly and converts each band back to its own decimals', () => {
    const a = weighted('alpha', 1, { decimals: 6 });
    const b = weighted('beta', 1, { decimals: 18, toleranceBps: 0 });
    const w = applyWeights([a, b], [reading(a, '1.5'), reading(b, '0.5')], []);
    expect(w.targets[0]!.target).toBe(1_000_000n);
    expect(w.targets[1]!.target).toBe(10n ** 18n);
    expect([w.targets[1]!.min, w.targets[1]!.max]).toEqual([10n ** 18n, 10n ** 18n]);
  });

  it('counts a settled in-flight transfer once, at its destination', () => {
    const base = weighted('base', 50);
    const arb = weighted('arbitrum', 50);
    const flight: InFlightTransfer = {
      asset: 'USDC',
      originChain: 'base',
      originCurrency: base.currency,
      originAddress: base.address,
      destinationChain: 'arbitrum',
      destinationCurrency: arb.currency,
      destinationAddress: arb.address,
      amountIn: 10_000_000_000n,
      guaranteedOut: 9_990_000_000n,
      originSettled: true,
    };
    const w = applyWeights([base, arb], [reading(base, '50000'), reading(arb, '40000')], [flight]);
    expect(w.targets.map((t) => t.target)).toEqual([49_995_000_000n, 49_995_000_000n]); // (90000 + 9990) / 2
    expect(w.decisions[0]!.detail).toContain('99990 held in total (9990 of it in flight)');
  });

  it('plans nothing for the asset while one of its holdings is unreadable', () => {
    const base = weighted('base', 40);
    const arb = weighted('arbitrum', 60);
    const balances = [reading(base, '90000'), unreadable(arb, 'timeout')];
    const w = applyWeights([base, arb], balances, []);
    expect(w.targets[0]).toMatchObject({ min: 90_000_000_000n, target: 90_000_000_000n, max: 90_000_000_000n });
    expect(w.decisions[0]!.detail).toBe(
      'USDC: weights not applied this cycle: arbitrum could not be read, so the total is unknown; nothing planned for USDC',
    );
    expect(planRebalance({ targets: w.targets, balances, inFlight: [], minTransfer: '100', maxTransfer: '1000000' }).transfers).toEqual([]);
  });

  it('leaves banded targets untouched', () => {
    const banded = target('gamma');
    expect(applyWeights([banded], [reading(banded, '1')], [])).toEqual({ targets: [banded], decisions: [] });
  });
});
