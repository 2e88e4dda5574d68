/**
 * Splits what Relay kept of a same-asset transfer (paid − received, input base units) into one share per fee
 * component, in proportion to the components' USD costs as the order settled. Pure; no I/O.
 */
import { FEE_COMPONENTS, type FeeComponent } from '../policy/feeBreakdown.ts';
import type { ComponentCosts } from '../ledger/requestRecord.ts';

/** One share of the kept amount: its component (`unattributed` when no breakdown was recorded or it is all 0). */
export interface RelayFeeShare {
  component: FeeComponent | 'unattributed';
  /** Input base units, > 0. */
  amount: bigint;
  /** The component's cost as Relay reported it, micro-USD; null for `unattributed`. */
  usdMicros: bigint | null;
}

/**
 * Shares `kept` base units among the components with a positive cost, by largest remainder (Hamilton's method):
 * each gets ⌊kept × cost ÷ Σcost⌋, then the base units left over go one each to the largest fractional parts
 * (ties to the earlier component in {@link FEE_COMPONENTS} order). The shares sum to `kept` exactly; a
 * component whose share is 0 base units gets no row.
 *
 * @param kept paid − received, input base units (nothing is split when ≤ 0)
 * @param costs the components' costs, micro-USD (null: no breakdown recorded)
 * @returns shares in component order; one `unattributed` share when no component has a cost
 */
export function splitRelayFee(kept: bigint, costs: ComponentCosts | null): RelayFeeShare[] {
  if (kept <= 0n) return [];
  const positive = FEE_COMPONENTS.filter((c) => costs !== null && costs[c] > 0n);
  if (costs === null || positive.length === 0) return [{ component: 'unattributed', amount: kept, usdMicros: null }];
  const total = positive.reduce((s, c) => s + costs[c], 0n);
  const shares = positive.map((c, i) => ({ c, i, floor: (kept * costs[c]) / total, rest: (kept * costs[c]) % total }));
  let left = kept - shares.reduce((s, x) => s + x.floor, 0n);
  const byRest = [...shares].sort((a, b) => (a.rest === b.rest ? a.i - b.i : a.rest > b.rest ? -1 : 1));
  for (const s of byRest) {
    if (left === 0n) break;
    s.floor += 1n;
    left -= 1n;
  }
  return shares.filter((s) => s.floor > 0n).map((s) => ({ component: s.c, amount: s.floor, usdMicros: costs[s.c] }));
}
