/**
 * The ends of conditions Ballast told a sink about (docs/notifications.md "Events"): a stalled transfer that reached
 * a final status (`transfer_unstalled`), a paused route whose pause is over (`route_resumed`). They are found, not
 * reported: each dispatch pass reads the stall and pause events each sink was delivered and not yet told the end
 * of (src/store/notifications.ts `listOpenConditions`), and checks the store for their end, so an end is found
 * whichever process or path brought it (a tracker, a webhook, another replica, `ballast resume`).
 *
 * The end is queued for exactly the sinks that were delivered the start, keyed `<ending event>:<start's key>`, so
 * it is queued once however many passes or replicas find it; the PagerDuty sink turns it into the `resolve` of the
 * start's incident (src/notify/pagerduty.ts).
 */
import type { Logger } from 'pino';
import type { NotifyConfig } from '../config/notifySchema.ts';
import { originFailurePauses, pausedRoutes, type PausedRoute } from '../cycle/pausedRoutes.ts';
import { listOriginFailureStreaks, listUnresolvedFailures } from '../store/failures.ts';
import type { StoreDb } from '../store/db.ts';
import { listOpenConditions, type OpenCondition } from '../store/notifications.ts';
import { getTransfer, IN_FLIGHT_STATUSES } from '../store/transfers.ts';
import { routePausedEvent, routeResumedEvent, transferUnstalledEvent } from './eventOf.ts';
import { dedupeKey, type NotifyEvent } from './events.ts';
import { parseStoredPayload } from './format.ts';
import { notifySinks } from './notify.ts';

/** What {@link queueResolutions} needs: the store, a clock, the `notify` section and the pause threshold. */
export interface ResolutionDeps {
  db: StoreDb;
  now: () => number;
  config: { notify?: NotifyConfig | undefined; policy: { pauseRouteAfterOriginFailures: number } };
  logger?: Pick<Logger, 'warn'>;
}

/**
 * Queues the end of every stall and pause a sink was told of that is over now (see the module doc).
 *
 * @returns how many deliveries were queued
 * @throws the store's error when a read fails (the dispatcher logs it and tries again next pass)
 */
export async function queueResolutions(deps: ResolutionDeps): Promise<number> {
  if (!deps.config.notify) return 0;
  let queued = 0;
  for (const [opened, { sinks, payload }] of bySubject(await listOpenConditions(deps.db, 'transfer_stalled', 'transfer_unstalled'))) {
    const id = payload.transferId;
    const transfer = typeof id === 'number' ? await getTransfer(deps.db, id) : undefined;
    if (!transfer || IN_FLIGHT_STATUSES.includes(transfer.status)) continue;
    queued += await notifySinks(deps, sinks, transferUnstalledEvent(transfer, opened));
  }
  const pauses = bySubject(await listOpenConditions(deps.db, 'route_paused', 'route_resumed'));
  if (pauses.size === 0) return queued;
  const current = new Set(
    (await currentRoutePauses(deps.db, deps.config.policy.pauseRouteAfterOriginFailures)).map((r) => dedupeKey(routePausedEvent(r))),
  );
  for (const [opened, { sinks, payload }] of pauses) {
    if (current.has(opened)) continue;
    queued += await notifySinks(deps, sinks, routeResumedEvent(payload, opened));
  }
  return queued;
}

/**
 * The routes paused now, as a cycle reads them (src/cycle/cycleSteps.ts `readPauses`): by unresolved failed
 * deposits, and by `pauseRouteAfterOriginFailures` origin transactions failing on chain in a row.
 */
export async function currentRoutePauses(db: StoreDb, pauseRouteAfterOriginFailures: number): Promise<PausedRoute[]> {
  return [
    ...pausedRoutes(await listUnresolvedFailures(db)),
    ...originFailurePauses(await listOriginFailureStreaks(db), pauseRouteAfterOriginFailures),
  ];
}

/** Open conditions by the start's dedupe key: the sinks that got it and its payload (the same for every sink). */
function bySubject(rows: readonly OpenCondition[]): Map<string, { sinks: string[]; payload: NotifyEvent['payload'] }> {
  const out = new Map<string, { sinks: string[]; payload: NotifyEvent['payload'] }>();
  for (const row of rows) {
    const entry = out.get(row.dedupeKey) ?? { sinks: [], payload: parseStoredPayload(row.payload) };
    entry.sinks.push(row.sink);
    out.set(row.dedupeKey, entry);
  }
  return out;
}
