/**
 * Property-style checks of the planner on seeded random inputs: whatever the balances, the plan never takes a
 * donor below its target, never pushes a recipient above its max (and above its target only by one batched
 * transfer: a need below minTransfer raised to minTransfer), stays within the transfer bounds, never touches an
 * unreadable chain, and conserves the total held per asset.
 */
import { describe, expect, it } from 'vitest';
import { wholeToBaseUnits } from '../../../packages/protocol/src/core/units.ts';
import { planRebalance } from '../../../packages/ballast/src/planner/planRebalance.ts';
import { targetKey } from '../../../packages/ballast/src/planner/effective.ts';
import type { BalanceReading, InFlightTransfer, PlanInput, TargetBand } from '../../../packages/ballast/src/planner/types.ts';

/** mulberry32: small deterministic PRNG so failures reproduce from the seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHAINS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
const DECIMALS = [6, 8, 18];

function randomInput(seed: number): PlanInput {
  const r = rng(seed);
  const int = (n: number): number => Math.floor(r() * n);
  /** Random bigint in [0, max]. */
  const big = (max: bigint): bigint => (max <= 0n ? 0n : (BigInt(int(2 ** 30)) * BigInt(int(2 ** 30)) + BigInt(int(2 ** 30))) % (max + 1n));
  const targets: TargetBand[] = [];
  const balances: BalanceReading[] = [];
  const inFlight: InFlightTransfer[] = [];
  const assets = ['USDC', 'ETH', 'BTC'].slice(0, 1 + int(3));
  for (const asset of assets) {
    const chains = CHAINS.filter(() => r() < 0.6);
    for (const chain of chains) {
      const decimals = DECIMALS[int(DECIMALS.length)]!;
      const unit = 10n ** BigInt(decimals);
      // Some bands narrower than minTransfer, so a small deficit sometimes has no room for a batched transfer.
      const width = r() < 0.3 ? 3000 : 30000;
      const min = BigInt(1000 + int(20000)) * unit;
      const target = min + BigInt(int(width)) * unit;
      const max = target + BigInt(int(width)) * unit;
      const t: TargetBand = {
        asset,
        chain,
        chainId: CHAINS.indexOf(chain) + 1,
        currency: `${asset.toLowerCase()}-on-${chain}`,
        wallet: 'w',
        address: `addr-${chain}`,
        decimals,
        min,
        target,
        max,
      };
      targets.push(t);
      const amount = r() < 0.08 ? null : big(max * 2n);
      if (r() > 0.03)
        balances.push({ chain, currency: t.currency, address: t.address, amount, ...(amount === null ? { error: 'down' } : {}) });
    }
    const mine = targets.filter((t) => t.asset === asset);
    for (let i = 0; mine.length >= 2 && i < int(3); i++) {
      const from = mine[int(mine.length)]!;
      const to = mine[int(mine.length)]!;
      if (from === to) continue;
      inFlight.push({
        asset,
        originChain: from.chain,
        originCurrency: from.currency,
        originAddress: from.address,
        destinationChain: to.chain,
        destinationCurrency: to.currency,
        destinationAddress: to.address,
        amountIn: big(from.target / 2n),
        guaranteedOut: big(to.target / 2n),
        originSettled: r() < 0.5,
      });
    }
  }
  const minWhole = 1 + int(5000);
  return {
    targets,
    balances,
    inFlight,
    minTransfer: String(minWhole),
    maxTransfer: `${minWhole + int(40000)}.${int(1000)}`,
  };
}

const key = (t: { chain: string; currency: string; address: string }): string => `${t.chain}|${t.currency}|${t.address}`;

/** Independent computation of effective balances (reading + credits − unsettled debits), null when unreadable. */
function effectiveOf(input: PlanInput, t: TargetBand): bigint | null {
  const chainDown = input.balances.some((b) => b.chain === t.chain && b.amount === null);
  const read = input.balances.find((b) => key(b) === key(t));
  if (chainDown || read?.amount == null) return null;
  let e = read.amount;
  for (const f of input.inFlight) {
    if (`${f.destinationChain}|${f.destinationCurrency}|${f.destinationAddress}` === key(t)) e += f.guaranteedOut;
    if (!f.originSettled && `${f.originChain}|${f.originCurrency}|${f.originAddress}` === key(t)) e -= f.amountIn;
  }
  return e;
}

let batched = 0; // recipients taken past their target by batching, over every seed

describe('planRebalance properties (seeded random inputs)', () => {
  const SEEDS = Array.from({ length: 400 }, (_, i) => 1 + i * 7919);

  it.each(SEEDS.map((s) => [s]))('seed %i', (seed) => {
    const input = randomInput(seed);
    const plan = planRebalance(input);
    const unreadableChains = new Set(input.targets.filter((t) => effectiveOf(input, t) === null).map((t) => t.chain));
    const pairs = new Set<string>();
    const delta = new Map<string, bigint>(); // per target key, at the asset's scale
    const received = new Map<string, { count: number; unit: bigint }>(); // transfers per recipient, the last one's rounding unit
    for (const tr of plan.transfers) {
      const scale = Math.max(...input.targets.filter((t) => t.asset === tr.asset).map((t) => t.decimals));
      const moved = tr.amountIn * 10n ** BigInt(scale - tr.from.decimals);
      expect(tr.from.asset).toBe(tr.asset);
      expect(tr.to.asset).toBe(tr.asset);
      expect(key(tr.from)).not.toBe(key(tr.to));
      expect(unreadableChains.has(tr.from.chain) || unreadableChains.has(tr.to.chain)).toBe(false);
      expect(moved).toBeGreaterThanOrEqual(wholeToBaseUnits(input.minTransfer, scale));
      expect(moved).toBeLessThanOrEqual(wholeToBaseUnits(input.maxTransfer, scale));
      // What arrives is representable in the destination's base units (no dust lost in conversion).
      expect(moved % 10n ** BigInt(scale - tr.to.decimals)).toBe(0n);
      const pair = `${key(tr.from)}→${key(tr.to)}`;
      expect(pairs.has(pair)).toBe(false);
      pairs.add(pair);
      delta.set(key(tr.from), (delta.get(key(tr.from)) ?? 0n) - moved);
      delta.set(key(tr.to), (delta.get(key(tr.to)) ?? 0n) + moved);
      const unit = 10n ** BigInt(scale - Math.min(tr.from.decimals, tr.to.decimals));
      received.set(key(tr.to), { count: (received.get(key(tr.to))?.count ?? 0) + 1, unit });
    }
    for (const asset of new Set(input.targets.map((t) => t.asset))) {
      const mine = input.targets.filter((t) => t.asset === asset);
      const scale = Math.max(...mine.map((t) => t.decimals));
      let before = 0n;
      let after = 0n;
      for (const t of mine) {
        const eff = effectiveOf(input, t);
        const d = delta.get(key(t)) ?? 0n;
        if (eff === null) {
          expect(d).toBe(0n);
          continue;
        }
        const f = 10n ** BigInt(scale - t.decimals);
        const effN = eff * f;
        const afterN = effN + d;
        if (d < 0n) {
          // Donor: was above max, and the plan never takes it below its target (never more than its surplus).
          expect(eff).toBeGreaterThan(t.max);
          expect(afterN).toBeGreaterThanOrEqual(t.target * f);
        }
        if (d > 0n) {
          // Recipient: was below min; the plan never pushes it past its max, by its reading or its effective
          // balance, and past its target only by batching: its whole need to target (from the higher of the two)
          // was below minTransfer and it received exactly one transfer, of minTransfer rounded up to a unit both
          // chains carry.
          expect(eff).toBeLessThan(t.min);
          const readN = input.balances.find((b) => key(b) === key(t))!.amount! * f;
          expect(afterN).toBeLessThanOrEqual(t.max * f);
          expect(readN + d).toBeLessThanOrEqual(t.max * f);
          if (afterN > t.target * f) {
            const needN = t.target * f - (effN > readN ? effN : readN);
            const minN = wholeToBaseUnits(input.minTransfer, scale);
            const only = received.get(key(t))!;
            expect(needN).toBeLessThan(minN);
            expect(only.count).toBe(1);
            expect(d).toBe(((minN + only.unit - 1n) / only.unit) * only.unit);
            batched++;
          }
        }
        before += effN;
        after += afterN;
      }
      expect(after).toBe(before);
    }
    // Deterministic: the same input, targets shuffled, plans the same transfers.
    const again = planRebalance({ ...input, targets: [...input.targets].reverse(), balances: [...input.balances].reverse() });
    expect(again.transfers).toEqual(plan.transfers);
  });

  it.each(SEEDS.slice(0, 200).map((s) => [s]))(
    'seed %i: route alternatives change nothing planned and each could replace its transfer',
    (seed) => {
      const input = randomInput(seed);
      const plain = planRebalance(input);
      const plan = planRebalance({ ...input, maxAlternatives: 3 });
      expect(plan.transfers.map(({ alternatives: _a, ...t }) => t)).toEqual(plain.transfers);
      for (const tr of plan.transfers) {
        const scale = Math.max(...input.targets.filter((t) => t.asset === tr.asset).map((t) => t.decimals));
        const moved = tr.amountIn * 10n ** BigInt(scale - tr.from.decimals);
        for (const alt of tr.alternatives ?? []) {
          expect(alt.from.asset).toBe(tr.asset);
          expect([key(alt.from) === key(tr.from), key(alt.from) === key(tr.to)]).toEqual([false, false]);
          // The same value, and the donor's spare covers it: replacing the donor keeps it at or above its target.
          expect(alt.amountIn * 10n ** BigInt(scale - alt.from.decimals)).toBe(moved);
          expect(plan.spare!.get(targetKey(alt.from))!).toBeGreaterThanOrEqual(alt.amountIn);
          const eff = effectiveOf(input, alt.from)!;
          const given = plan.transfers.filter((t) => key(t.from) === key(alt.from)).reduce((n, t) => n + t.amountIn, 0n);
          expect(eff - given - alt.amountIn).toBeGreaterThanOrEqual(alt.from.target);
        }
      }
    },
  );

  it('the random inputs exercise real transfers, splits and unreadable chains', () => {
    const plans = SEEDS.map((s) => planRebalance(randomInput(s)));
    expect(plans.reduce((n, p) => n + p.transfers.length, 0)).toBeGreaterThan(100);
    expect(plans.some((p) => p.decisions.some((d) => d.kind === 'chain_unreadable'))).toBe(true);
    expect(plans.some((p) => p.decisions.some((d) => d.kind === 'capped_max_transfer'))).toBe(true);
    expect(plans.some((p) => p.transfers.some((t) => t.from.decimals !== t.to.decimals))).toBe(true);
    expect(plans.some((p) => p.decisions.some((d) => d.kind === 'batched'))).toBe(true);
    expect(batched).toBeGreaterThan(0); // the reworded recipient invariant met its batching branch
    const withAlternatives = SEEDS.slice(0, 200).map((s) => planRebalance({ ...randomInput(s), maxAlternatives: 3 }));
    expect(withAlternatives.filter((p) => p.transfers.some((t) => (t.alternatives ?? []).length > 0)).length).toBeGreaterThan(10);
  });
});
