/**
 * Delivers queued notifications (docs/notifications.md "Delivery"): each pass prunes the queue to its bounds, takes
 * up to `notify.batchSize` due rows, claims each (src/store/notifications.ts `claimNotification`, safe with several
 * replicas), and sends them with at most `notify.concurrency` requests in flight, each limited to
 * `notify.timeoutMs`. A failed attempt is tried again after an exponential backoff (src/notify/format.ts
 * `retryDelayMs`) until `notify.maxAttempts`, then the row is `failed`; so is one the sink refuses for good
 * (PagerDuty's 400 to an invalid event).
 *
 * The daemon runs passes on a timer of their own ({@link startNotificationDispatcher}), never awaited by a cycle;
 * a one-shot run ends with {@link flushNotifications} under a short deadline. Neither ever throws.
 */
import type { Logger } from 'pino';
import type { LoadedNotifySink, NotifyConfig } from '../config/notifySchema.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { NotifyMetrics } from '../metrics/notifyMetrics.ts';
import type { StoreDb } from '../store/db.ts';
import {
  claimNotification,
  countPendingNotifications,
  listDueNotifications,
  markNotificationDelivered,
  markNotificationFailed,
  markNotificationRetry,
  pruneNotifications,
  type NotificationRow,
} from '../store/notifications.ts';
import { parseStoredPayload, retryDelayMs } from './format.ts';
import { sendRequest, sinkRequest } from './sinks.ts';

/** What the dispatcher needs. */
export interface DispatchDeps {
  db: StoreDb;
  config: NotifyConfig;
  metrics: NotifyMetrics;
  logger: Logger;
  now: () => number;
  /**
   * What queues deliveries due by time rather than reported by an event (the ends of conditions,
   * src/notify/incidents.ts; the daily digests, src/notify/digestQueue.ts), each run at the start of every pass and
   * returning how many it queued. A failure of one is logged and the pass goes on.
   */
  scheduled?: ReadonlyArray<() => Promise<number>>;
}

/** Counts of one or more passes. */
export interface DispatchReport {
  delivered: number;
  retried: number;
  failed: number;
  dropped: number;
}

/** A claimed attempt is due again this long after its timeout if the process dies during it, ms. */
const CLAIM_MARGIN_MS = 5_000;
const DAY_MS = 86_400_000;

/**
 * One pass: queue what is due by time (`deps.scheduled`), prune, then send the rows due now (at most `batchSize`).
 *
 * @param opts.timeoutMs a shorter per-request limit than `notify.timeoutMs` (a flush near its deadline)
 * @param opts.signal aborts requests in flight (shutdown); their rows are retried later
 * @returns what the pass did; store failures are logged and end the pass (never thrown)
 */
export async function dispatchNotifications(
  deps: DispatchDeps,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<DispatchReport> {
  const report: DispatchReport = { delivered: 0, retried: 0, failed: 0, dropped: 0 };
  const log = deps.logger.child({ component: 'notify' });
  const cfg = deps.config;
  for (const queue of deps.scheduled ?? [])
    await queue().catch((error: unknown) =>
      log.warn({ err: shortErrorMessage(error) }, 'scheduled notifications not queued; the next pass tries again'),
    );
  try {
    const dropped = await pruneNotifications(deps.db, {
      finishedBeforeMs: Math.max(0, deps.now() - cfg.keepDays * DAY_MS),
      maxRows: cfg.maxRows,
    });
    for (const d of dropped) deps.metrics.notificationsTotal.inc({ sink: d.sink, event: d.event, outcome: 'dropped' });
    report.dropped = dropped.length;
    if (dropped.length > 0)
      log.warn({ dropped: dropped.length, maxRows: cfg.maxRows }, 'notification queue full: oldest undelivered dropped');
    const due = await listDueNotifications(deps.db, deps.now(), cfg.batchSize);
    const timeoutMs = Math.min(opts.timeoutMs ?? cfg.timeoutMs, cfg.timeoutMs);
    const sinks = new Map(cfg.sinks.map((s) => [s.name, s]));
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length && !opts.signal?.aborted) {
        const row = due[next++]!; // next < due.length
        await deliverOne(deps, log, row, sinks.get(row.sink), timeoutMs, report, opts.signal);
      }
    };
    await Promise.all(Array.from({ length: Math.min(cfg.concurrency, due.length) }, worker));
    deps.metrics.notificationsPending.set(await countPendingNotifications(deps.db));
  } catch (error) {
    log.warn({ err: shortErrorMessage(error) }, 'notification pass failed; the next pass retries');
  }
  return report;
}

async function deliverOne(
  deps: DispatchDeps,
  log: Logger,
  row: NotificationRow,
  sink: LoadedNotifySink | undefined,
  timeoutMs: number,
  report: DispatchReport,
  signal: AbortSignal | undefined,
): Promise<void> {
  const labels = { sink: row.sink, event: row.event };
  if (!sink) {
    await markNotificationFailed(deps.db, row.id, deps.now(), `sink ${row.sink} is no longer configured`);
    deps.metrics.notificationsTotal.inc({ ...labels, outcome: 'failed' });
    report.failed++;
    return;
  }
  if (!(await claimNotification(deps.db, row, deps.now() + timeoutMs + CLAIM_MARGIN_MS))) return; // another dispatcher has it
  const attempts = row.attempts + 1;
  const payload = parseStoredPayload(row.payload);
  const request = sinkRequest(
    sink,
    { dedupeKey: row.dedupeKey, event: row.event, severity: row.severity, summary: row.summary, payload, createdAtMs: row.createdAtMs },
    deps.now(),
  );
  const result = await sendRequest(request, timeoutMs, signal);
  if (result.ok) {
    await markNotificationDelivered(deps.db, row.id, deps.now());
    deps.metrics.notificationsTotal.inc({ ...labels, outcome: 'delivered' });
    report.delivered++;
    return;
  }
  if (attempts >= deps.config.maxAttempts || !result.retry) {
    await markNotificationFailed(deps.db, row.id, deps.now(), result.error);
    deps.metrics.notificationsTotal.inc({ ...labels, outcome: 'failed' });
    report.failed++;
    log.error(
      { sink: row.sink, event: row.event, attempts, err: result.error },
      result.retry ? 'notification given up after its last attempt' : 'notification refused by the sink; not retried',
    );
    return;
  }
  const delay = retryDelayMs(attempts, deps.config);
  await markNotificationRetry(deps.db, row.id, deps.now() + delay, result.error);
  deps.metrics.notificationsTotal.inc({ ...labels, outcome: 'retry' });
  report.retried++;
  log.warn(
    { sink: row.sink, event: row.event, attempts, retryInMs: delay, err: result.error },
    'notification not delivered; retried later',
  );
}

/**
 * Runs passes until nothing is due now or `deadlineMs` has passed (each request limited to what is left); for
 * the end of a one-shot run. Never throws.
 *
 * @param deadlineMs how long the flush may take in all, ms
 */
export async function flushNotifications(deps: DispatchDeps, deadlineMs: number): Promise<DispatchReport> {
  const total: DispatchReport = { delivered: 0, retried: 0, failed: 0, dropped: 0 };
  const endAt = Date.now() + deadlineMs;
  for (;;) {
    const left = endAt - Date.now();
    if (left < 100) break;
    const signal = AbortSignal.timeout(left);
    const r = await dispatchNotifications(deps, { timeoutMs: left, signal });
    total.delivered += r.delivered;
    total.retried += r.retried;
    total.failed += r.failed;
    total.dropped += r.dropped;
    if (r.delivered + r.retried + r.failed === 0 || signal.aborted) break;
  }
  return total;
}

/** A running dispatcher timer. */
export interface NotificationDispatcher {
  /** Starts a pass now unless one is running. */
  kick(): void;
  /** Stops the timer, aborts requests in flight and waits for the pass to end. */
  stop(): Promise<void>;
}

/**
 * Runs a pass every `notify.everySec` seconds (never two at once), on a timer that keeps no process alive.
 */
export function startNotificationDispatcher(deps: DispatchDeps): NotificationDispatcher {
  const stopping = new AbortController();
  let running: Promise<unknown> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const schedule = (): void => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(pass, deps.config.everySec * 1000);
    timer.unref();
  };
  const pass = (): void => {
    if (running || stopping.signal.aborted) return;
    if (timer) clearTimeout(timer);
    timer = null;
    running = dispatchNotifications(deps, { signal: stopping.signal }).finally(() => {
      running = null;
      schedule();
    });
  };
  schedule();
  return {
    kick: pass,
    async stop() {
      stopping.abort();
      if (timer) clearTimeout(timer);
      if (running) await running;
    },
  };
}
