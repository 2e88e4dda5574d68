/**
 * Flow-aware strategy (src/planner/flowMode.ts): pre-funding a holding whose outflow will take it below min within
 * the horizon, leaving alone a surplus whose flow nets to zero, the min floor kept whatever the flow says, and
 * plain bands when the strategy or the history is missing.
 */
import { describe, expect, it } from 'vitest';
import { PlanInputError } from '../../../packages/ballast/src/planner/errors.ts';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import { applyWeights } from '../../../packages/ballast/src/planner/weights.ts';
import type { FlowStrategy, HoldingFlow, PlanInput, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { reading, target, units } from './presets.ts';

// Band 20000 / 50000 / 80000 USDC (6 decimals) on every holding.
const alpha = target('alpha');
const beta = target('beta');
const gamma = target('gamma');
const FLOW: FlowStrategy = { kind: 'flow', halfLifeSec: 3600, horizonSec: 900, deadbandPerHour: '100', minSamples: 3 };

/** A flow of `perSec` whole USDC per second (may be fractional) at `t`, with `samples` intervals behind it. */
const flow = (t: TargetBand, perSec: string, samples = 5): HoldingFlow => {
  const negative = perSec.startsWith('-');
  const abs = units(t, negative ? perSec.slice(1) : perSec);
  return { chain: t.chain, currency: t.currency, address: t.address, netFlowPerSec: negative ? -abs : abs, samples };
};

const plan = (balances: string[], extra: Partial<PlanInput> = {}) =>
  planRebalance({
    targets: [alpha, beta, gamma],
    balances: [alpha, beta, gamma].map((t, i) => reading(t, balances[i]!)),
    inFlight: [],
    minTransfer: '100',
    maxTransfer: '1000000',
    strategy: { USDC: FLOW },
    ...extra,
  });
const moves = (p: ReturnType<typeof plan>) => p.transfers.map((t) => `${t.from.chain}→${t.to.chain}:${t.amountIn}`);
const detail = (p: ReturnType<typeof plan>, chain: string) => p.decisions.filter((d) => d.chain === chain).map((d) => d.detail);

describe('flow strategy: pre-funding', () => {
  it('funds a holding whose outflow crosses min within the horizon, up to its projected target', () => {
    // beta 25000, draining 10 USDC/s: 900 s ahead it holds 16000 < 20000; it needs 50000 - 16000 = 34000.
    const p = plan(['90000', '25000', '50000'], { flows: [flow(alpha, '0'), flow(beta, '-10'), flow(gamma, '0')] });
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '34000')}`]);
    expect(detail(p, 'beta')[0]).toBe(
      'beta projected below min: 16000 < 20000 USDC; needs 34000 to keep its projected balance at target 50000; net flow -36000/h (5 samples), -9000 over 900 s',
    );
  });

  it('plans nothing for the same balances on bands alone, or before enough history', () => {
    const bands = plan(['90000', '25000', '50000'], { strategy: undefined, flows: [flow(beta, '-10')] });
    expect(moves(bands)).toEqual([]);
    const cold = plan(['90000', '25000', '50000'], { flows: [flow(beta, '-10', 2)] });
    expect(moves(cold)).toEqual([]);
    expect(detail(cold, 'beta')[0]).toBe('beta: 25000 within [20000, 80000] USDC; flow history 2/3 samples: bands alone');
  });

  it('funds every holding below min before pre-funding another', () => {
    // alpha gives 40000. beta 20000 draining 20 USDC/s (projected 2000) would need 48000; gamma 15000 is below min
    // and needs 35000: gamma first, although smaller, then beta gets what is left.
    const p = plan(['90000', '20000', '15000'], { flows: [flow(beta, '-20')] });
    expect(moves(p)).toEqual([`alpha→gamma:${units(alpha, '35000')}`, `alpha→beta:${units(alpha, '5000')}`]);
  });

  it('gives a draining holding below min what bands give it: the floor of every holding comes first', () => {
    // beta 10000 and gamma 5000 below min, beta draining 10 USDC/s; alpha can give 60000: beta 40000, gamma 45000 -
    // what is left after the larger one. The projection never enlarges a floor need at the expense of another.
    const p = plan(['110000', '10000', '5000'], { flows: [flow(beta, '-10')] });
    expect(moves(p)).toEqual([`alpha→gamma:${units(alpha, '45000')}`, `alpha→beta:${units(alpha, '15000')}`]);
  });

  it('keeps the transfer bounds: a pre-funding is capped at maxTransfer', () => {
    const p = plan(['90000', '25000', '50000'], { maxTransfer: '10000', flows: [flow(beta, '-10')] });
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '10000')}`]);
    expect(p.decisions.some((d) => d.kind === 'capped_max_transfer')).toBe(true);
  });
});

describe('flow strategy: the floor and the deadband', () => {
  it('always funds a holding below min, even when its inflow would bring it back', () => {
    const p = plan(['90000', '10000', '50000'], { flows: [flow(beta, '100')] });
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '40000')}`]);
  });

  it('treats a flow inside the deadband as zero', () => {
    // -0.02 USDC/s = -72/h, inside the 100/h deadband: no projection, beta stays in band.
    const p = plan(['90000', '25000', '50000'], { flows: [flow(beta, '-0.02')] });
    expect(moves(p)).toEqual([]);
    expect(detail(p, 'beta')[0]).toBe('beta: 25000 within [20000, 80000] USDC; net flow -72/h (5 samples), inside the deadband');
  });

  it('never leaves a draining donor with less than min plus its outflow over the horizon', () => {
    // alpha 90000 draining 40 USDC/s: keeps 20000 + 36000 = 56000 (above its target 50000), gives 34000 of gamma's 40000.
    const p = plan(['90000', '50000', '10000'], { flows: [flow(alpha, '-40')] });
    expect(moves(p)).toEqual([`alpha→gamma:${units(alpha, '34000')}`]);
    expect(detail(p, 'alpha')[0]).toContain('can give 34000 down to 56000, min plus its projected outflow');
  });
});

describe('flow strategy: surpluses that stay', () => {
  const sweepTo = { USDC: { chain: 'beta' } };

  it('does not sweep a surplus whose flow nets to zero, nor one its outflow brings back to max', () => {
    expect(moves(plan(['90000', '50000', '50000'], { sweepTo, flows: [flow(alpha, '0')] }))).toEqual([]);
    // -20 USDC/s over 900 s = -18000: 90000 → 72000 <= 80000.
    expect(moves(plan(['90000', '50000', '50000'], { sweepTo, flows: [flow(alpha, '-20')] }))).toEqual([]);
  });

  it('sweeps a surplus still filling up, and one without history (bands)', () => {
    expect(moves(plan(['90000', '50000', '50000'], { sweepTo, flows: [flow(alpha, '5')] }))).toEqual([
      `alpha→beta:${units(alpha, '40000')}`,
    ]);
    expect(moves(plan(['90000', '50000', '50000'], { sweepTo }))).toEqual([`alpha→beta:${units(alpha, '40000')}`]);
  });

  it('still gives to a deficit from a surplus that stays', () => {
    const p = plan(['90000', '50000', '10000'], { sweepTo, flows: [flow(alpha, '0')] });
    expect(moves(p)).toEqual([`alpha→gamma:${units(alpha, '40000')}`]);
  });
});

describe('flow strategy: input checks', () => {
  it('names the field at fault', () => {
    const bad = (s: Partial<FlowStrategy>) => () => plan(['50000', '50000', '50000'], { strategy: { USDC: { ...FLOW, ...s } } });
    expect(bad({ horizonSec: 0 })).toThrow(PlanInputError);
    expect(bad({ horizonSec: 0 })).toThrow(/strategy\.USDC\.horizonSec/);
    expect(bad({ minSamples: -1 })).toThrow(/strategy\.USDC\.minSamples/);
    expect(bad({ deadbandPerHour: 'lots' })).toThrow(/strategy\.USDC\.deadbandPerHour/);
  });
});

describe('flow strategy: composition', () => {
  it('counts a transfer in flight to a draining holding, so the pre-funding is not sent twice', () => {
    // beta 25000 draining 10 USDC/s already has 34000 on the way: effective 59000, projected 50000; nothing more,
    // although alpha could give 40000.
    const inFlight = [
      {
        asset: 'USDC',
        originChain: 'alpha',
        originCurrency: alpha.currency,
        originAddress: alpha.address,
        destinationChain: 'beta',
        destinationCurrency: beta.currency,
        destinationAddress: beta.address,
        amountIn: units(alpha, '34000'),
        guaranteedOut: units(beta, '34000'),
        originSettled: true,
      },
    ];
    const p = plan(['90000', '25000', '50000'], { inFlight, flows: [flow(beta, '-10')] });
    expect(moves(p)).toEqual([]);
    expect(moves(plan(['90000', '25000', '50000'], { flows: [flow(beta, '-10')] }))).toEqual([`alpha→beta:${units(alpha, '34000')}`]);
  });

  it('works on weighted bands as on any band', () => {
    // Weights 1:1:2 of a 200000 total, ±1000 bps (20000): alpha and beta 30000 / 50000 / 70000, gamma 80000 / 100000 /
    // 120000. beta 40000 is in band, but draining 20 USDC/s it is projected at 22000 < 30000.
    const weighted = [alpha, beta, gamma].map((t, i) => ({ ...t, weight: i === 2 ? 2 : 1, toleranceBps: 1000 }));
    const balances = [alpha, beta, gamma].map((t, i) => reading(t, ['75000', '40000', '85000'][i]!));
    const { targets } = applyWeights(weighted, balances, []);
    expect(targets.map((t) => [t.min, t.target, t.max])).toEqual([
      [units(alpha, '30000'), units(alpha, '50000'), units(alpha, '70000')],
      [units(beta, '30000'), units(beta, '50000'), units(beta, '70000')],
      [units(gamma, '80000'), units(gamma, '100000'), units(gamma, '120000')],
    ]);
    const p = planRebalance({
      targets,
      balances,
      inFlight: [],
      minTransfer: '100',
      maxTransfer: '1000000',
      strategy: { USDC: FLOW },
      flows: [flow(beta, '-20')],
    });
    // beta needs 50000 - 22000 = 28000; alpha (75000, above max) gives what it has above target: 25000.
    expect(moves(p)).toEqual([`alpha→beta:${units(alpha, '25000')}`]);
  });
});
