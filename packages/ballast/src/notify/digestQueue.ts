/**
 * Queues the daily digest of every sink whose `digest:` is due (docs/notifications.md "Daily digest"), from the
 * store: the route totals `ballast report` prints (src/ledger/routeReport.ts over `countTransfersByRoute` and
 * `listLedgerSince`) for the 24 hours before the digest's time, the routes and wallets paused now and the approval
 * requests open now. Each dispatch pass runs it (src/notify/dispatcher.ts `scheduled`); the digest of a day is
 * keyed `daily_digest:<YYYY-MM-DD>` in its sink's queue, so however many passes or replicas find it due, it is
 * queued once, and sent through the same queue, retries and metrics as any event.
 */
import type { Logger } from 'pino';
import type { NotifyConfig } from '../config/notifySchema.ts';
import { pausedWallets } from '../cycle/pausedRoutes.ts';
import { buildRouteReports } from '../ledger/routeReport.ts';
import { listApprovalRequests } from '../store/approvalReads.ts';
import type { StoreDb } from '../store/db.ts';
import { countTransfersByRoute, listLedgerSince } from '../store/ledger.ts';
import { hasNotification } from '../store/notifications.ts';
import { listOpenWalletPauses } from '../store/walletPauses.ts';
import { digestDue, digestEvent, type DigestSetting } from './digest.ts';
import { dedupeKey } from './events.ts';
import { currentRoutePauses } from './incidents.ts';
import { notifySinks } from './notify.ts';

const DAY_MS = 86_400_000;

/** What {@link queueDailyDigests} needs: the store, a clock, the `notify` section, the pause threshold and the wallets. */
export interface DigestDeps {
  db: StoreDb;
  now: () => number;
  config: {
    notify?: NotifyConfig | undefined;
    policy: { pauseRouteAfterOriginFailures: number };
    /** Configured wallets by name (names the wallets paused by screening). */
    wallets: Record<string, { address: string }>;
  };
  logger?: Pick<Logger, 'warn'>;
}

/**
 * Queues each due digest not queued yet: for every sink with `digest:` whose time of day has passed in its zone
 * today, unless its queue already holds `daily_digest:<today>`.
 *
 * @returns how many digests were queued now
 * @throws the store's error when a read fails (the dispatcher logs it and tries again next pass)
 */
export async function queueDailyDigests(deps: DigestDeps): Promise<number> {
  let queued = 0;
  for (const sink of deps.config.notify?.sinks ?? []) {
    if (!sink.digest) continue;
    const nowMs = deps.now();
    const due = digestDue(nowMs, sink.digest);
    if (!due || (await hasNotification(deps.db, sink.name, dedupeKey({ kind: 'daily_digest', subject: due.day })))) continue;
    queued += await notifySinks(deps, [sink.name], await composeDigest(deps, sink.digest, due, nowMs));
  }
  return queued;
}

/** Reads the store and builds the digest of `due.day`, covering the 24 hours before `due.atMs` up to `nowMs`. */
async function composeDigest(deps: DigestDeps, setting: DigestSetting, due: { day: string; atMs: number }, nowMs: number) {
  const sinceMs = due.atMs - DAY_MS;
  const wallets = Object.entries(deps.config.wallets).map(([name, w]) => ({ name, address: w.address }));
  return digestEvent({
    day: due.day,
    timezone: setting.timezone,
    sinceMs,
    untilMs: nowMs,
    routes: buildRouteReports(await countTransfersByRoute(deps.db, sinceMs), await listLedgerSince(deps.db, sinceMs)),
    pausedRoutes: await currentRoutePauses(deps.db, deps.config.policy.pauseRouteAfterOriginFailures),
    pausedWallets: pausedWallets(await listOpenWalletPauses(deps.db), wallets),
    openRequests: await listApprovalRequests(deps.db),
  });
}
