/**
 * Routes paused (Ballast), until an operator resolves what paused them (`ballast resume`). Pure.
 *
 * - A failed deposit: after a request ends `failure` its deposit stays in the depository (spec "What the service
 *   does" 5), neither at the origin nor at the destination. Planning the same route again would deposit again for
 *   the same need, cycle after cycle.
 * - Origin transactions failing on chain: `policy.pauseRouteAfterOriginFailures` transfers in a row on the route
 *   ended `origin_failed` with a transaction that was mined and failed (reverted), each paying its fee. Whatever
 *   makes them fail (a program that refuses the deposit, a quote shape the chain rejects) is likely to fail the next
 *   one too, so the route stops paying fees every cycle. Failures proven never to have landed (a dropped or unsent
 *   transaction, a refused simulation) cost nothing and do not count.
 */
import type { Plan, PlannedTransfer } from '../planner/types.ts';
import type { TransferRow } from '../store/transferRows.ts';

/**
 * A paused route: asset, origin chain and destination chain, with the transfers that pause it and why:
 * `failure` (unresolved failed deposits) or `originFailures` (origin transactions that failed on chain in a row).
 */
export interface PausedRoute {
  asset: string;
  originChain: string;
  destinationChain: string;
  transferIds: number[];
  reason?: 'failure' | 'originFailures';
}

function byRoute(rows: readonly TransferRow[], reason: NonNullable<PausedRoute['reason']>): PausedRoute[] {
  const byKey = new Map<string, PausedRoute>();
  for (const f of rows) {
    const key = `${f.asset}\u0000${f.originChain}\u0000${f.destinationChain}`;
    const route = byKey.get(key) ?? { asset: f.asset, originChain: f.originChain, destinationChain: f.destinationChain, transferIds: [], reason };
    route.transferIds.push(f.id);
    byKey.set(key, route);
  }
  return [...byKey.values()];
}

/** Groups unresolved failures by route (asset, origin chain, destination chain), in first-failure order. */
export function pausedRoutes(failures: readonly TransferRow[]): PausedRoute[] {
  return byRoute(failures, 'failure');
}

/**
 * Routes whose origin transactions failed on chain `threshold` times in a row.
 *
 * @param failures the unresolved on-chain origin failures since each route's last landed deposit
 *   (`listOriginFailureStreaks`, src/store/failures.ts), oldest first
 * @param threshold `policy.pauseRouteAfterOriginFailures` (≥ 1)
 * @returns the routes with at least `threshold` of them, with all their ids
 */
export function originFailurePauses(failures: readonly TransferRow[], threshold: number): PausedRoute[] {
  return byRoute(failures, 'originFailures').filter((r) => r.transferIds.length >= threshold);
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
    decisions.push({ asset: t.asset, chain: t.to.chain, kind: 'route_paused', detail: pausedDetail(t, paused) });
  }
  return { transfers, decisions, ...(plan.spare ? { spare: plan.spare } : {}) };
}

function pausedDetail(t: PlannedTransfer, paused: PausedRoute): string {
  const route = `${t.asset} ${t.from.chain} → ${t.to.chain} is paused`;
  if (paused.reason === 'originFailures') {
    const last = paused.transferIds[paused.transferIds.length - 1]!;
    return (
      `${route}: the origin transactions of transfers ${paused.transferIds.join(', ')} failed on chain, ${paused.transferIds.length} in a row ` +
      `(policy.pauseRouteAfterOriginFailures), each paying its fee; find out why (\`ballast history\`), then run \`ballast resume --transfer ${last}\``
    );
  }
  return (
    `${route}: transfer(s) ${paused.transferIds.join(', ')} ended in failure and ` +
    'their deposit is still in the depository; recover it, then run `ballast resume --transfer <id>`'
  );
}
