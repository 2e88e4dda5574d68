/**
 * The rebalancing planner (docs/design.md "planner"): targets, bands, balances and in-flight transfers in; transfers
 * and the decisions behind them out. Pure: no clock, no network, no database; deterministic for a given input.
 */
import { formatUnits } from 'viem';
import {
  effectiveFromIndex,
  findUnreadableChains,
  indexInFlight,
  indexReadings,
  memoTargetKey,
  type InFlightIndex,
  type ReadingIndex,
} from './effective.ts';
import { matchAsset, type MatchSide } from './match.ts';
import { lowestMinAt, pairBoundsAt } from './routes.ts';
import { sweepLeftovers } from './sweep.ts';
import { attachAlternatives } from './alternatives.ts';
import { donorFloor, flowView, indexFlows, validateStrategies, type FlowView } from './flowMode.ts';
import { indexNeeds, needsNote, type NeedIndex } from './needs.ts';
import type { Plan, PlanDecision, PlanInput, PlannedTransfer, RefillPoint, TargetBand } from './types.ts';
import { commonScale, transferBoundsAt, validatePlanInput } from './validate.ts';

/**
 * Plans this cycle's transfers.
 *
 * Per asset:
 * 1. A chain whose reading is null (or missing) is unreadable: nothing is planned for any target on it, in any
 *    asset (`chain_unreadable`); other chains are still planned (docs/design.md "Fail closed").
 * 2. effective = reading + Σ in-flight `guaranteedOut` to the target − Σ in-flight `amountIn` from it whose origin
 *    is not settled (`in_flight_credited` when either is non-zero).
 * 3. In-flight transfers may cancel a need, never create one: max(reading, effective) < min → deficit of
 *    (target − that); min(reading, effective) > max → surplus of (that − target); otherwise `in_band`. (A
 *    transfer whose deposit and fill already show in the readings, but whose status is not known yet, is thus
 *    never answered with a transfer back.)
 * 4. Amounts are compared at the asset's largest decimals; min/maxTransfer are converted with `wholeToBaseUnits`
 *    at that scale. Deficits (largest first) are served from surpluses (largest first, ties by chain name), one
 *    transfer per (from, to) pair, each within [minTransfer, maxTransfer], rounded down into the origin's base
 *    units. Origin and destination are never the same holding.
 * 5. Route rules (`routes`, `onlyListedRoutes`; src/planner/routes.ts): a pair whose route is not allowed is
 *    skipped (`route_not_allowed`); an allowed pair uses its entry's min/maxTransfer (else the asset's), and the
 *    transfer's reason names the entry.
 * 6. Batching (`batchSmallDeficits`, default on): a deficit whose whole need is below its pair's minTransfer is
 *    raised to that minimum when its band can take it (effective + minTransfer <= max) and a donor can give it
 *    (`batched`); otherwise it waits (`below_min_transfer`).
 *
 * No transfer takes a donor below its target (or gas reserve); a recipient never passes its target, except by a
 * batched transfer, which never takes it above its max. The amounts moved at the common scale balance exactly
 * (what leaves one target arrives, before fees, at another).
 *
 * 5. With `maxAlternatives` > 0 (route choice), each transfer lists up to that many other donors whose surplus no
 *    transfer takes could send the same value (src/planner/alternatives.ts), and the plan carries every donor's
 *    `spare`.
 * 7. Flow strategy (`strategy.<asset>.kind` `flow`, with `flows`; src/planner/flowMode.ts): a holding whose
 *    smoothed outflow takes it below min within the horizon is a deficit now (served after every holding already
 *    below min), a draining donor keeps min plus its outflow over the horizon, and a surplus whose flow nets to
 *    zero or brings it back is not swept. A recipient funded ahead is funded until its projected balance (not its
 *    balance now) reaches target. Without a strategy for the asset, the plan is exactly the one described above.
 * 8. Refill point (`refillTo`, per asset): a deficit is refilled to its target (the default) or to a point inside
 *    its band, min + a share of (max − min) ({@link refillLevel}); needs and the flow projection come on top.
 * 9. Needs (`needs`, docs/needs.md): a holding holds its needs on top of everything above: it is judged at its
 *    balance less the needs held on it (`need_held`), so it is a deficit until it can pay them and stay at or above
 *    min, is refilled to target plus its needs, and as a donor never gives what its needs will take. A transfer to
 *    a holding with needs lists them (`funds`).
 *
 * @returns transfers (amountIn in origin base units) and decisions, grouped by asset in ascending asset order
 * @throws PlanInputError (code `PLAN_INPUT_INVALID`) on an inconsistent input (see `validatePlanInput`)
 */
export function planRebalance(input: PlanInput): Plan {
  const keyOf = memoTargetKey();
  validatePlanInput(input, keyOf);
  validateStrategies(input.strategy);
  const unreadable = findUnreadableChains(input.targets, input.balances, keyOf);
  // Indexed once per plan (map lookups per target), so planning grows linearly with targets, readings and
  // in-flight transfers.
  const index: PlanIndex = {
    keyOf,
    unreadable,
    readings: indexReadings(input.balances),
    inFlight: indexInFlight(input.inFlight),
    flows: indexFlows(input.flows),
    needs: indexNeeds(input.needs),
  };
  const transfers: PlannedTransfer[] = [];
  const decisions: PlanDecision[] = [];
  const spare = new Map<string, bigint>();
  const byAsset = new Map<string, TargetBand[]>();
  for (const t of input.targets) {
    const list = byAsset.get(t.asset);
    if (list) list.push(t);
    else byAsset.set(t.asset, [t]);
  }
  const assets = [...byAsset.keys()].sort();
  for (const asset of assets) {
    const targets = sortedByLocation(byAsset.get(asset)!); // keys of byAsset
    const out = planAsset(asset, targets, input, index);
    transfers.push(...out.transfers.map((t) => withFunds(t, index)));
    decisions.push(...out.decisions);
    for (const [k, v] of out.spare ?? []) spare.set(k, v);
  }
  // Spares matter only to route choice; without it the plan stays transfers and decisions.
  return (input.maxAlternatives ?? 0) > 0 ? { transfers, decisions, spare } : { transfers, decisions };
}

/**
 * Where a holding below min is refilled to (`refillTo`): its target, or a point inside its band, min + bps of
 * (max − min), never below min. Base units of the holding.
 */
export function refillLevel(t: TargetBand, point: RefillPoint | undefined): bigint {
  if (point === undefined || point === 'target') return t.target;
  return t.min + ((t.max - t.min) * BigInt(point.bandBps)) / 10_000n;
}

/** The transfer with the ids of the needs its recipient holds (none: as it is). */
function withFunds(t: PlannedTransfer, index: PlanIndex): PlannedTransfer {
  const held = index.needs.get(index.keyOf(t.to));
  return held ? { ...t, funds: held.needs.map((n) => n.id) } : t;
}

/** Targets ordered by chain, currency, address (as given), each sort key built once. */
function sortedByLocation(targets: TargetBand[]): TargetBand[] {
  return targets
    .map((t) => ({ t, k: `${t.chain}\u0000${t.currency}\u0000${t.address}` }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map((x) => x.t);
}

/** Lookups built once per plan: unreadable chains, readings and in-flight sums by holding. */
interface PlanIndex {
  keyOf: (t: TargetBand) => string;
  unreadable: Map<string, string>;
  readings: ReadingIndex;
  inFlight: InFlightIndex;
  /** Flow signals by holding key (src/planner/flowMode.ts). */
  flows: ReturnType<typeof indexFlows>;
  /** Needs held by holding key (src/planner/needs.ts). */
  needs: NeedIndex;
}

/** Plans one asset. `targets` are that asset's targets, sorted. */
function planAsset(asset: string, targets: TargetBand[], input: PlanInput, index: PlanIndex): Plan {
  const decisions: PlanDecision[] = [];
  const scale = commonScale(targets);
  const { minN, maxN } = transferBoundsAt(input, scale, asset);
  const boundsFor = pairBoundsAt(input, asset, scale, { minN, maxN });
  const floorN = boundsFor ? lowestMinAt(input, asset, scale, minN) : minN;
  const batching = input.batchSmallDeficits !== false;
  const chainCount = new Map<string, number>();
  for (const t of targets) chainCount.set(t.chain, (chainCount.get(t.chain) ?? 0) + 1);
  const label = (t: TargetBand): string => ((chainCount.get(t.chain) ?? 0) > 1 ? `${t.chain} (${t.wallet})` : t.chain);
  const deficits: MatchSide[] = [];
  const surpluses: MatchSide[] = [];
  const strategy = input.strategy?.[asset];
  /** Surpluses left where they are by the flow strategy: donors to deficits, never swept. */
  const still = new Set<MatchSide>();

  for (const t of targets) {
    const fmt = (n: bigint): string => formatUnits(n, t.decimals);
    const toScale = (n: bigint): bigint => n * 10n ** BigInt(scale - t.decimals);
    const why = index.unreadable.get(t.chain);
    const reading = index.readings.get(index.keyOf(t));
    if (why !== undefined || reading === undefined) {
      decisions.push({
        asset,
        chain: t.chain,
        kind: 'chain_unreadable',
        detail: `${label(t)}: ${why ?? 'no reading'}; nothing planned for this chain`,
      });
      continue;
    }
    const eff = effectiveFromIndex(t, reading, index.inFlight, index.keyOf(t));
    if (eff.credit !== 0n || eff.debit !== 0n) {
      decisions.push({
        asset,
        chain: t.chain,
        kind: 'in_flight_credited',
        detail: `${label(t)}: read ${fmt(reading)}, in flight +${fmt(eff.credit)} / -${fmt(eff.debit)}, effective ${fmt(eff.effective)} ${asset}`,
      });
    }
    // In-flight transfers may cancel a need, never create one: a deficit must show in both the reading and the
    // effective balance, and so must a surplus. A transfer counted at both ends while it already landed (its
    // deposit in the origin reading, its fill in the destination reading, its status not yet known) then makes
    // no transfer back the other way: the worst case is a need planned a cycle later, never a need paid twice.
    // A holding's needs are held on top of it all: it is judged at what it keeps once they are paid.
    const held = index.needs.get(index.keyOf(t));
    const heldN = held?.total ?? 0n;
    if (held) {
      decisions.push({ asset, chain: t.chain, kind: 'need_held', detail: `${label(t)}: ${needsNote(held, fmt, asset)}` });
    }
    const forDeficit = (eff.effective > reading ? eff.effective : reading) - heldN;
    const forSurplus = (eff.effective < reading ? eff.effective : reading) - heldN;
    const view: FlowView | undefined = strategy ? flowView(t, strategy, index.flows.get(index.keyOf(t))) : undefined;
    const flowNote = view ? `; ${view.note}` : '';
    // Draining (flow strategy): a holding in band is judged by its balance projected over the horizon. One below min
    // now needs what bands say (its floor first, for every such holding); its projected need follows next cycle.
    const projected = view && view.delta < 0n && forDeficit >= t.min ? forDeficit + view.delta : forDeficit;
    if (projected < t.min) {
      const why =
        forDeficit < t.min
          ? `${label(t)} below min: ${fmt(forDeficit)} < ${fmt(t.min)} ${asset}`
          : `${label(t)} projected below min: ${fmt(projected)} < ${fmt(t.min)} ${asset}`;
      const roomN = batching ? { roomN: toScale(t.max - forDeficit) } : {};
      // Below min now comes first: a pre-funding never takes what the floor of another holding needs.
      const rank = forDeficit < t.min ? {} : { rank: 1 };
      const level = refillLevel(t, input.refillTo?.[asset]);
      const point = level === t.target ? `target ${fmt(t.target)}` : `its refill point ${fmt(level)}`;
      deficits.push({ band: t, label: label(t), why, amountN: toScale(level - projected), key: index.keyOf(t), ...roomN, ...rank });
      const reach = projected === forDeficit ? `reach ${point}` : `keep its projected balance at ${point}`;
      decisions.push({
        asset,
        chain: t.chain,
        kind: 'deficit',
        detail: `${why}; needs ${fmt(level - projected)} to ${reach}${flowNote}`,
      });
    } else if (forSurplus > t.max) {
      const why = `${label(t)} above max: ${fmt(forSurplus)} > ${fmt(t.max)} ${asset}`;
      // Never below the gas reserve: the wallet must still pay for its transactions; with the flow strategy, never
      // below min + its outflow over the horizon.
      const reserve = t.reserve ?? 0n;
      const floor = donorFloor(t, view);
      if (forSurplus > floor) {
        const side: MatchSide = { band: t, label: label(t), why, amountN: toScale(forSurplus - floor), key: index.keyOf(t) };
        surpluses.push(side);
        const down =
          floor === t.target
            ? `down to target ${fmt(t.target)}`
            : floor === reserve
              ? `down to its gas reserve ${fmt(reserve)} (above target ${fmt(t.target)})`
              : `down to ${fmt(floor)}, min plus its projected outflow`;
        const stays = view?.warm === true && (view.delta === 0n || forSurplus + view.delta <= t.max);
        if (stays) still.add(side);
        const stay = stays ? '; left where it is unless a deficit needs it (flow strategy)' : '';
        decisions.push({
          asset,
          chain: t.chain,
          kind: 'surplus',
          detail: `${why}; can give ${fmt(forSurplus - floor)} ${down}${flowNote}${stay}`,
        });
      } else {
        decisions.push({
          asset,
          chain: t.chain,
          kind: 'surplus_unused',
          detail:
            floor === reserve
              ? `${why}; gives nothing: its gas reserve is ${fmt(reserve)}`
              : `${why}; gives nothing: it keeps ${fmt(floor)}, min plus its projected outflow${flowNote}`,
        });
      }
    } else {
      decisions.push({
        asset,
        chain: t.chain,
        kind: 'in_band',
        detail: `${label(t)}: ${fmt(eff.effective - heldN)}${held ? ' after its needs' : ''} within [${fmt(t.min)}, ${fmt(t.max)}] ${asset}${flowNote}`,
      });
    }
  }

  const bounds = { minN: floorN, maxN, ...(boundsFor ? { boundsFor } : {}) };
  const matched = matchAsset({ asset, scale, ...bounds, deficits, surpluses });
  /** An alternative donor must be allowed on its route, and the value must fit that route's bounds. */
  const routeAllows = boundsFor
    ? (from: TargetBand, to: TargetBand, n: bigint) => {
        const pair = boundsFor(from, to);
        return pair.allowed && n >= pair.minN && n <= pair.maxN;
      }
    : undefined;
  /** Lists the alternative donors of the final transfers (none for those carrying a sweep). */
  const withAlternatives = (final: PlannedTransfer[], sweeping: ReadonlySet<PlannedTransfer>) =>
    attachAlternatives({
      asset,
      scale,
      surpluses,
      transfers: final,
      sweeping,
      maxAlternatives: input.maxAlternatives ?? 0,
      ...(routeAllows ? { routeAllows } : {}),
    });
  const home = input.sweepTo?.[asset];
  if (!home) {
    const alt = withAlternatives(matched.transfers, new Set());
    return { transfers: alt.transfers, decisions: [...decisions, ...matched.decisions], spare: alt.spare };
  }
  const sweepable = still.size === 0 ? surpluses : surpluses.filter((s) => !still.has(s));
  const swept = sweepLeftovers({ asset, scale, ...bounds, home, targets, surpluses: sweepable, transfers: matched.transfers });
  // A swept surplus is no longer "unused": its decision gives way to the sweep's.
  const sweptFrom = new Set(swept.transfers.map((t) => t.from.chain));
  const kept = matched.decisions.filter((d) => !(d.kind === 'surplus_unused' && d.chain !== undefined && sweptFrom.has(d.chain)));
  // A sweep on a route a deficit already uses joins that transfer when the sum stays within the route's
  // maxTransfer: one fee.
  const transfers = [...matched.transfers];
  const sweeping = new Set<PlannedTransfer>();
  for (const s of swept.transfers) {
    const same = transfers.find((t) => index.keyOf(t.from) === index.keyOf(s.from) && index.keyOf(t.to) === index.keyOf(s.to));
    const sumN = same ? (same.amountIn + s.amountIn) * 10n ** BigInt(scale - s.from.decimals) : 0n;
    const pair = boundsFor?.(s.from, s.to);
    const joined =
      same && sumN <= (pair?.allowed ? pair.maxN : maxN)
        ? {
            ...same,
            amountIn: same.amountIn + s.amountIn,
            reason: `${same.reason}; plus ${formatUnits(s.amountIn, s.from.decimals)} ${asset} swept`,
          }
        : s;
    if (joined !== s) transfers[transfers.indexOf(same!)] = joined;
    else transfers.push(s);
    sweeping.add(joined);
  }
  const alt = withAlternatives(transfers, sweeping);
  return { transfers: alt.transfers, decisions: [...decisions, ...kept, ...swept.decisions], spare: alt.spare };
}
