/**
 * Which open needs (docs/needs.md) the planner holds this cycle: those due within `policy.needsHorizonSec` whose
 * holding (asset, chain, wallet) is a target this cycle, located like the target (currency, address). Pure.
 */
import type { PlanNeed, TargetBand } from '../planner/types.ts';

/** An open need as the store holds it; `amount` in base units of its holding. */
export interface OpenNeed {
  id: number;
  asset: string;
  chain: string;
  wallet: string;
  amount: bigint;
  dueAtMs: number;
}

/** The needs split by what the planner does with them. */
export interface NeedsForPlan {
  /** Due within the horizon, on a target: held by the planner. */
  held: PlanNeed[];
  /** Due after the horizon: held once they come into it. */
  later: OpenNeed[];
  /** On a holding that is not a target this cycle (removed from the config, or its decimals unresolved). */
  unmatched: OpenNeed[];
}

/**
 * Splits `open` for the planner.
 *
 * @param horizonMs how far ahead a need is held (`policy.needsHorizonSec` × 1000); 0: none is held
 */
export function needsForPlan(open: readonly OpenNeed[], targets: readonly TargetBand[], nowMs: number, horizonMs: number): NeedsForPlan {
  const out: NeedsForPlan = { held: [], later: [], unmatched: [] };
  for (const n of open) {
    const t = targets.find((x) => x.asset === n.asset && x.chain === n.chain && x.wallet === n.wallet);
    if (!t) out.unmatched.push(n);
    else if (horizonMs <= 0 || n.dueAtMs > nowMs + horizonMs) out.later.push(n);
    else out.held.push({ id: n.id, chain: t.chain, currency: t.currency, address: t.address, amount: n.amount, dueAtMs: n.dueAtMs });
  }
  return out;
}
