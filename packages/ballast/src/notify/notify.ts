/**
 * The one entry point of notifications for the code that sees something happen: {@link notify} queues an event
 * for every configured sink that wants it, in the store, and returns. It never throws and never sends: delivery
 * is the dispatcher's job (src/notify/dispatcher.ts), so a slow or dead sink cannot slow or fail a cycle.
 * Without `notify:` in the config it does nothing at all (not even a store read).
 */
import type { Logger } from 'pino';
import type { NotifyConfig } from '../config/notifySchema.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { StoreDb } from '../store/db.ts';
import { enqueueNotification } from '../store/notifications.ts';
import { atLeast, dedupeKey, NOTIFY_EVENT_SEVERITY, type NotifyEvent } from './events.ts';

export type { NotifyEvent } from './events.ts';

/** What {@link notify} needs: the store, a clock and the config's `notify` section (absent: notifications off). */
export interface NotifyDeps {
  db: StoreDb;
  now: () => number;
  config?: { notify?: NotifyConfig | undefined };
  /** A failure to queue is logged here at warn (never thrown). */
  logger?: Pick<Logger, 'warn'>;
}

/**
 * Queues `event` once for each sink whose `events` and `minSeverity` accept it; a sink that already holds the
 * same dedupe key (src/notify/events.ts `dedupeKey`) is skipped, so reporting an event twice queues it once.
 * Inside a caller's transaction the insert is a savepoint of it (a failure here cannot abort that transaction).
 *
 * @returns how many deliveries were queued now (0 when notifications are off, no sink wants it, or all were
 *   queued before, or the store failed: logged, never thrown)
 */
export async function notify(deps: NotifyDeps, event: NotifyEvent): Promise<number> {
  const section = deps.config?.notify;
  if (!section) return 0;
  const severity = NOTIFY_EVENT_SEVERITY[event.kind];
  const sinks = section.sinks.filter((s) => (s.events === '*' || s.events.includes(event.kind)) && atLeast(severity, s.minSeverity));
  return await notifySinks(
    deps,
    sinks.map((s) => s.name),
    event,
  );
}

/**
 * Queues `event` for the named sinks, whatever their `events` and `minSeverity` (the end of a condition goes to
 * the sinks told of its start; a digest to the sink that asked for it); deduplicated per sink as {@link notify}.
 *
 * @param sinks names of configured sinks
 * @returns how many deliveries were queued now (0 for none, duplicates only, or a store failure: logged, never thrown)
 */
export async function notifySinks(deps: NotifyDeps, sinks: readonly string[], event: NotifyEvent): Promise<number> {
  if (sinks.length === 0) return 0;
  try {
    const severity = NOTIFY_EVENT_SEVERITY[event.kind];
    const key = dedupeKey(event);
    const payload = JSON.stringify(event.payload);
    const nowMs = deps.now();
    const write = async (): Promise<number> => {
      let queued = 0;
      for (const sink of sinks) {
        const added = await enqueueNotification(deps.db, {
          sink,
          event: event.kind,
          severity,
          dedupeKey: key,
          summary: event.summary,
          payload,
          nowMs,
        });
        if (added) queued++;
      }
      return queued;
    };
    return deps.db.inTransaction() ? await deps.db.transaction(write) : await write();
  } catch (error) {
    deps.logger?.warn({ component: 'notify', event: event.kind, err: shortErrorMessage(error) }, 'notification not queued');
    return 0;
  }
}
