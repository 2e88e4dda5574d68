/**
 * Properties of the flow strategy (src/planner/flowMode.ts) on random holdings, balances and flows: no plan takes a
 * donor below its min (or, when it drains, below min plus its outflow over the horizon); a holding below min is
 * planned whenever a donor has something to give; with zero flow the transfers to holdings below min are those of
 * bands alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wholeToBaseUnits } from '../../../packages/protocol/src/core/units.ts';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import type { FlowStrategy, HoldingFlow, PlanInput, TargetBand } from '../../../packages/ballast/src/planner/types.ts';

const CHAINS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];

/** A holding: band in whole units (min < target <= max), balance, flow in whole units per second ×1000, samples. */
const holdingArb = fc.record({
  decimals: fc.constantFrom(6, 8, 18),
  min: fc.integer({ min: 1000, max: 20_000 }),
  toTarget: fc.integer({ min: 10, max: 30_000 }),
  toMax: fc.integer({ min: 0, max: 30_000 }),
  balance: fc.integer({ min: 0, max: 150_000 }),
  milliPerSec: fc.integer({ min: -60_000, max: 60_000 }),
  samples: fc.integer({ min: 0, max: 6 }),
});

const inputArb = fc.record({
  holdings: fc.array(holdingArb, { minLength: 2, maxLength: CHAINS.length }),
  horizonSec: fc.integer({ min: 1, max: 3600 }),
  deadbandPerHour: fc.integer({ min: 0, max: 2000 }),
  minSamples: fc.integer({ min: 0, max: 4 }),
  minTransfer: fc.integer({ min: 1, max: 500 }),
  maxTransfer: fc.integer({ min: 500, max: 200_000 }),
});

type Drawn = typeof inputArb extends fc.Arbitrary<infer T> ? T : never;

/** The planner input of a drawn case; `zeroFlow` replaces every flow by 0 (all samples kept). */
function build(d: Drawn, zeroFlow = false): { input: PlanInput; flowOf: Map<TargetBand, HoldingFlow> } {
  const targets: TargetBand[] = [];
  const flows: HoldingFlow[] = [];
  const flowOf = new Map<TargetBand, HoldingFlow>();
  d.holdings.forEach((h, i) => {
    const unit = 10n ** BigInt(h.decimals);
    const min = BigInt(h.min) * unit;
    const t: TargetBand = {
      asset: 'USDC',
      chain: CHAINS[i]!,
      chainId: i + 1,
      currency: `usdc-${i}`,
      wallet: 'w',
      address: `addr-${i}`,
      decimals: h.decimals,
      min,
      target: min + BigInt(h.toTarget) * unit,
      max: min + BigInt(h.toTarget + h.toMax) * unit,
    };
    targets.push(t);
    const f: HoldingFlow = {
      chain: t.chain,
      currency: t.currency,
      address: t.address,
      netFlowPerSec: zeroFlow ? 0n : (BigInt(h.milliPerSec) * unit) / 1000n,
      samples: h.samples,
    };
    flows.push(f);
    flowOf.set(t, f);
  });
  const strategy: FlowStrategy = {
    kind: 'flow',
    halfLifeSec: 3600,
    horizonSec: d.horizonSec,
    deadbandPerHour: String(d.deadbandPerHour),
    minSamples: d.minSamples,
  };
  const input: PlanInput = {
    targets,
    balances: targets.map((t, i) => ({
      chain: t.chain,
      currency: t.currency,
      address: t.address,
      amount: BigInt(d.holdings[i]!.balance) * 10n ** BigInt(t.decimals),
    })),
    inFlight: [],
    minTransfer: String(d.minTransfer),
    maxTransfer: String(d.maxTransfer),
    strategy: { USDC: strategy },
    flows,
  };
  return { input, flowOf };
}

/** Expected change over the horizon as the strategy documents it: 0 when cold or inside the deadband. */
function projectedDelta(d: Drawn, t: TargetBand, f: HoldingFlow): bigint {
  if (f.samples < d.minSamples) return 0n;
  const perHour = f.netFlowPerSec * 3600n;
  const dead = BigInt(d.deadbandPerHour) * 10n ** BigInt(t.decimals);
  if ((perHour < 0n ? -perHour : perHour) <= dead) return 0n;
  return f.netFlowPerSec * BigInt(d.horizonSec);
}

const balanceOf = (input: PlanInput, t: TargetBand): bigint => input.balances.find((b) => b.chain === t.chain)!.amount!;
const RUNS = { numRuns: 400, seed: 20_261_129 };

describe('flow strategy properties', () => {
  it('never takes a donor below its min, nor a draining one below min plus its outflow over the horizon', () => {
    fc.assert(
      fc.property(inputArb, (d) => {
        const { input, flowOf } = build(d);
        const out = new Map<TargetBand, bigint>();
        for (const tr of planRebalance(input).transfers) out.set(tr.from, (out.get(tr.from) ?? 0n) + tr.amountIn);
        for (const [t, sent] of out) {
          const left = balanceOf(input, t) - sent;
          expect(left).toBeGreaterThanOrEqual(t.target);
          const delta = projectedDelta(d, t, flowOf.get(t)!);
          if (delta < 0n) expect(left + delta).toBeGreaterThanOrEqual(t.min);
        }
      }),
      RUNS,
    );
  });

  it('plans a transfer to every holding below min (needing minTransfer or more) when a donor can give it', () => {
    fc.assert(
      fc.property(inputArb, (d) => {
        const { input, flowOf } = build(d);
        const below = input.targets.filter((t) => balanceOf(input, t) < t.min);
        const minN = (t: TargetBand) => wholeToBaseUnits(String(d.minTransfer), t.decimals);
        // A donor: above max, and what it may give (down to target, and min plus its outflow when draining) covers
        // minTransfer and every below-min need (so no other deficit can exhaust it first).
        const needs = below.reduce((s, t) => s + Number(t.target - balanceOf(input, t)) / 10 ** t.decimals, 0);
        const canGive = input.targets.some((t) => {
          const bal = balanceOf(input, t);
          const delta = projectedDelta(d, t, flowOf.get(t)!);
          const floor = delta < 0n && t.min - delta > t.target ? t.min - delta : t.target;
          if (bal <= t.max || bal + delta < t.min || bal - floor < minN(t)) return false;
          return Number(bal - floor) / 10 ** t.decimals >= needs + below.length * d.minTransfer;
        });
        // A need below minTransfer may wait (batching needs room in its band), as with bands alone.
        fc.pre(below.length > 0 && canGive && below.every((t) => t.target - balanceOf(input, t) >= minN(t)));
        const plan = planRebalance(input);
        for (const t of below) expect(plan.transfers.some((tr) => tr.to === t)).toBe(true);
      }),
      { ...RUNS, numRuns: 200 },
    );
  });

  it('with zero flow, plans for holdings below min exactly what bands alone plan', () => {
    fc.assert(
      fc.property(inputArb, (d) => {
        const { input } = build(d, true);
        const { strategy: _s, flows: _f, ...bands } = input;
        const below = new Set(input.targets.filter((t) => balanceOf(input, t) < t.min));
        const toBelow = (p: ReturnType<typeof planRebalance>) =>
          p.transfers.filter((tr) => below.has(tr.to)).map((tr) => `${tr.from.chain}→${tr.to.chain}:${tr.amountIn}`);
        expect(toBelow(planRebalance(input))).toEqual(toBelow(planRebalance(bands)));
      }),
      RUNS,
    );
  });
});
