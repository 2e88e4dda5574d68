/**
 * Matching of surpluses to deficits within one asset, at a common decimal scale. Pure.
 *
 * Largest deficit first (within a rank, see {@link MatchSide.rank}), served from the largest remaining surplus
 * first (ties broken by chain name, then currency and address), split across donors when one is not enough. Each
 * (donor, deficit) pair gets at most one transfer per cycle, capped at `maxN`; anything below `minN` is skipped.
 * With `boundsFor` each pair has its own bounds (`policy.routes`, src/planner/routes.ts) or is refused; with a
 * deficit's `roomN` (batching) a deficit smaller than its pair's minimum is raised to that minimum when its band
 * and the donor can take it.
 */
import { formatUnits } from 'viem';
import { targetKey } from './effective.ts';
import type { PairBounds } from './routes.ts';
import type { PlanDecision, PlannedTransfer, TargetBand } from './types.ts';

/** One side of a match. `amountN` is the deficit (or surplus) at the common scale, > 0. */
export interface MatchSide {
  band: TargetBand;
  /** Human label of the target ("beta", or "beta (ops)" when the asset has several wallets on a chain). */
  label: string;
  /** Why this target is a deficit or surplus, e.g. "beta below min: 10000 < 20000 USDC". */
  why: string;
  amountN: bigint;
  /** The holding's {@link targetKey}, when the caller has it already (computed from `band` otherwise). */
  key?: string;
  /**
   * Deficits only, set when small deficits are batched: what the holding can receive before it passes its band's
   * max, at the common scale. A deficit below its pair's minimum is then raised to that minimum when it fits.
   */
  roomN?: bigint;
  /**
   * Deficits only: served in ascending rank, then largest first. Absent: 0. The flow strategy ranks a holding only
   * projected below min at 1, so every holding already below min is served before it.
   */
  rank?: number;
}

/** Parameters of {@link matchAsset}. All `...N` amounts are base units at `scale` decimals. */
export interface MatchParameters {
  asset: string;
  scale: number;
  /** The asset's minimum; with `boundsFor`, the lowest minimum of any pair (a deficit below it suits no route). */
  minN: bigint;
  maxN: bigint;
  deficits: MatchSide[];
  surpluses: MatchSide[];
  /** Per-pair bounds or refusal (src/planner/routes.ts `pairBoundsAt`); absent: every pair has [minN, maxN]. */
  boundsFor?: (from: TargetBand, to: TargetBand) => PairBounds;
}

/** A side being matched: `left` is what remains at the common scale; `name` and `key` are computed once. */
interface Open extends MatchSide {
  left: bigint;
  /** Chain, currency, address as given: the tie-break of {@link bySizeThenName}. */
  name: string;
  /** The holding's {@link targetKey} (normalized addresses): origin and destination are never the same one. */
  key: string;
}

function open(side: MatchSide): Open {
  const b = side.band;
  return { ...side, left: side.amountN, name: `${b.chain}\u0000${b.currency}\u0000${b.address}`, key: side.key ?? targetKey(b) };
}

/** Orders by amount descending, then chain, currency, address ascending (deterministic). */
function bySizeThenName(a: Open, b: Open): number {
  if (a.left !== b.left) return a.left > b.left ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Binary heap of donors, first in {@link bySizeThenName} order on top: popping until a deficit is served visits
 * donors in exactly the order a full sort before each deficit would, in O(log n) per donor visited.
 */
class DonorHeap {
  private readonly items: Open[] = [];

  push(item: Open): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (bySizeThenName(a[i]!, a[parent]!) >= 0) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): Open | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && bySizeThenName(a[l]!, a[m]!) < 0) m = l;
      if (r < a.length && bySizeThenName(a[r]!, a[m]!) < 0) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
    return top;
  }
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * Batching: the amount a small deficit is raised to on this pair, or undefined when it is not raised. Only a
 * deficit nothing was planned for yet, below the pair's minimum, whose band can take the minimum (rounded up to a
 * unit both chains carry, within the pair's maximum) and whose donor can give it.
 */
function batchedAmount(need: Open, donor: Open, pair: { minN: bigint; maxN: bigint }, unit: bigint): bigint | undefined {
  if (need.roomN === undefined || need.left !== need.amountN || need.left >= pair.minN) return undefined;
  const raised = ((pair.minN + unit - 1n) / unit) * unit;
  return raised <= pair.maxN && raised <= need.roomN && raised <= donor.left ? raised : undefined;
}

/**
 * Matches surpluses to deficits.
 *
 * The amount of each transfer is rounded DOWN to a whole base unit of the coarser of the two chains' decimals
 * (never more than the donor's surplus, and representable on both sides), then expressed in the origin's base
 * units. Mutates nothing it is given.
 *
 * @returns the transfers (origin base units) and decisions `below_min_transfer`, `capped_max_transfer`,
 *   `deficit_unmet`, `surplus_unused`, `route_not_allowed`, `batched`
 */
export function matchAsset(p: MatchParameters): { transfers: PlannedTransfer[]; decisions: PlanDecision[] } {
  const { asset, scale, minN, maxN } = p;
  const fmt = (n: bigint): string => `${formatUnits(n, scale)} ${asset}`;
  const transfers: PlannedTransfer[] = [];
  const decisions: PlanDecision[] = [];
  const donors = p.surpluses.map(open);
  const needs = p.deficits.map(open).sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0) || bySizeThenName(a, b));
  // Donors with something left, largest first. Each deficit pops them in order until it is served; the donors it
  // visited go back with what they have left (an exhausted donor is visited by no later deficit).
  const heap = new DonorHeap();
  for (const d of donors) if (d.left > 0n) heap.push(d);

  for (const need of needs) {
    let capped = false;
    let tooSmall = false;
    /** A pair was skipped because this (batchable) deficit is below the pair's minimum and could not be raised. */
    let waits = false;
    /** Records and reports whether what is left of this deficit is too small to plan. */
    const leftTooSmall = (): boolean => {
      if (need.left === 0n || need.left >= minN) return false;
      const untouched = need.left === need.amountN;
      // A small deficit whose band can take minTransfer goes on to the donors, to be raised (batched).
      if (untouched && need.roomN !== undefined && need.roomN >= minN) return false;
      tooSmall = true;
      const band = `${formatUnits(need.band.max, need.band.decimals)} ${asset}`;
      decisions.push({
        asset,
        chain: need.band.chain,
        kind: 'below_min_transfer',
        detail:
          untouched && need.roomN !== undefined
            ? `${need.label}: needs ${fmt(need.left)}, below minTransfer ${fmt(minN)}; waits until the deficit reaches minTransfer (${fmt(minN)} more would take it above its band max ${band})`
            : `${need.label}: remaining deficit ${fmt(need.left)} is below minTransfer ${fmt(minN)}; not planned`,
      });
      return true;
    };
    if (leftTooSmall()) continue;
    const visited: Open[] = [];
    for (let donor = need.left > 0n ? heap.pop() : undefined; donor !== undefined; donor = heap.pop()) {
      visited.push(donor);
      if (donor.key === need.key) continue;
      const pair: PairBounds = p.boundsFor ? p.boundsFor(donor.band, need.band) : { allowed: true, minN, maxN };
      if (!pair.allowed) {
        decisions.push({ asset, chain: need.band.chain, kind: 'route_not_allowed', detail: `${donor.label} → ${need.label}: ${pair.why}` });
        continue;
      }
      const unit = pow10(scale - Math.min(donor.band.decimals, need.band.decimals));
      const batch = batchedAmount(need, donor, pair, unit);
      let want = batch ?? (need.left < donor.left ? need.left : donor.left);
      const capHere = want > pair.maxN;
      if (capHere) want = pair.maxN;
      const moved = want - (want % unit);
      if (moved === 0n || moved < pair.minN) {
        // A small deficit that could not be raised on this pair is said once, on its own chain, below.
        if (need.roomN !== undefined && need.left === need.amountN && need.left < pair.minN) {
          waits = true;
          continue;
        }
        decisions.push({
          asset,
          chain: donor.band.chain,
          kind: 'below_min_transfer',
          detail: `${donor.label} → ${need.label}: ${fmt(moved)} is below minTransfer ${fmt(pair.minN)}; skipped`,
        });
        continue;
      }
      const amountIn = moved / pow10(scale - donor.band.decimals);
      const raised = batch !== undefined ? `; raised from ${fmt(need.left)} to minTransfer so the flat fee is paid once` : '';
      transfers.push({
        asset,
        from: donor.band,
        to: need.band,
        amountIn,
        reason: `${need.why}; ${donor.why}${raised}${pair.note ? `; ${pair.note}` : ''}`,
      });
      donor.left -= moved;
      if (batch !== undefined) {
        decisions.push({
          asset,
          chain: need.band.chain,
          kind: 'batched',
          detail: `${need.label}: needs ${fmt(need.left)}, below minTransfer ${fmt(pair.minN)}; planned ${fmt(moved)} from ${donor.label} so the flat fee is paid once (band max ${formatUnits(need.band.max, need.band.decimals)})`,
        });
      }
      need.left = moved < need.left ? need.left - moved : 0n;
      if (capHere) {
        capped = true;
        decisions.push({
          asset,
          chain: need.band.chain,
          kind: 'capped_max_transfer',
          detail: `${donor.label} → ${need.label}: capped at maxTransfer ${fmt(pair.maxN)}; the rest follows in a later cycle`,
        });
      }
      if (need.left === 0n || leftTooSmall()) break;
    }
    for (const donor of visited) if (donor.left > 0n) heap.push(donor);
    if (need.left > 0n && !tooSmall && (waits || (need.roomN !== undefined && need.amountN === need.left && need.left < minN))) {
      decisions.push({
        asset,
        chain: need.band.chain,
        kind: 'below_min_transfer',
        detail: `${need.label}: needs ${fmt(need.left)}, below minTransfer; no surplus could give a minTransfer its band can take this cycle, so it waits until the deficit reaches minTransfer`,
      });
    } else if (need.left > 0n && !tooSmall) {
      decisions.push({
        asset,
        chain: need.band.chain,
        kind: 'deficit_unmet',
        detail:
          `${need.label}: ${fmt(need.left)} of ${fmt(need.amountN)} not planned this cycle` +
          (capped ? ' (maxTransfer cap or no usable surplus left)' : ' (no usable surplus left)'),
      });
    }
  }
  for (const donor of donors.sort(bySizeThenName)) {
    if (donor.left > 0n) {
      decisions.push({
        asset,
        chain: donor.band.chain,
        kind: 'surplus_unused',
        detail: `${donor.label}: ${fmt(donor.left)} of ${fmt(donor.amountN)} surplus left unused`,
      });
    }
  }
  return { transfers, decisions };
}
