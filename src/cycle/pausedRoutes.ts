/**
 * Routes paused by a failed deposit (Ballast): after a request ends `failure` its deposit stays in the depository
 * (spec "What the service does" 5), neither at the origin nor at the destination. Planning the same route again
 * would deposit again for the same need, cycle after cycle, so the route is paused until an operator resolves
 * the failure (`ballast resume`). Pure.
 */
import type { Plan, PlannedTransfer } from '../planner/types.ts';
import type { TransferRow } from '../store/transferRows.ts';

/** A paused route: asset, origin chain and destination chain, with the failed transfers that pause it. */
export interface PausedRoute {
  asset: string;
  originChain: string;
  destinationChain: string;
  transferIds: number[];
}

/** Groups unresolved failures by route (asset, origin chain, destination chain), in first-failure order. */
export function pausedRoutes(failures: readonly TransferRow[]): PausedRoute[] {
  const byKey = new Map<string, PausedRoute>();
  for (const f of failures) {
    const key = `${f.asset}\u0000${f.originChain}\u0000${f.destinationChain}`;
    const route = byKey.get(key) ?? { asset: f.asset, originChain: f.originChain, destinationChain: f.destinationChain, transferIds: [] };
    route.transferIds.push(f.id);
    byKey.set(key, route);
  }
  return [...byKey.values()];
}

function pausedFor(routes: readonly PausedRoute[], t: PlannedTransfer): PausedRoute | undefined {
  return routes.find((r) => r.asset === t.asset && r.originChain === t.from.chain && r.destinationChain === t.to.chain);
}

/**
 * Removes the planned transfers of paused routes and records a `route_paused` decision for each.
 *
 * @returns a new plan; `plan` is not modified
 */
export function withoutPausedRoutes(plan: Plan, routes: readonly PausedRoute[]): Plan {
  const transfers: PlannedTransfer[] = [];
  const decisions = [...plan.decisions];
  for (const t of plan.transfers) {
    const paused = pausedFor(routes, t);
    if (!paused) {
      // An alternative donor on a paused route is no alternative.
      const alternatives = t.alternatives?.filter((a) => !pausedFor(routes, { ...t, from: a.from }));
      transfers.push(alternatives === t.alternatives ? t : { ...t, alternatives: alternatives ?? [] });
      continue;
    }
    decisions.push({
      asset: t.asset,
      chain: t.to.chain,
      kind: 'route_paused',
      detail:
        `${t.asset} ${t.from.chain} → ${t.to.chain} is paused: transfer(s) ${paused.transferIds.join(', ')} ended in failure and ` +
        'their deposit is still in the depository; recover it, then run `ballast resume --transfer <id>`',
    });
  }
  return { transfers, decisions, ...(plan.spare ? { spare: plan.spare } : {}) };
}
