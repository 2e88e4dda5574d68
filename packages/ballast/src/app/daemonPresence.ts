/**
 * The record a daemon on a SQLite store keeps of itself between its cycles, so that `run --once` can see it is
 * there (README "Operating it": run the daemon or one-shots, never both). The run lock covers a cycle in progress
 * only; between two cycles it is free and a one-shot would run a cycle of its own beside the daemon.
 *
 * The record is a small file beside the store, `<store>.daemon` (mode 0600, JSON `{pid, host, startedAtMs,
 * heartbeatAtMs}`), rewritten every {@link RUN_LOCK_REFRESH_MS} and removed when the daemon stops. It counts only
 * while fresh (a heartbeat within {@link RUN_LOCK_TTL_MS}) and, on this host, while its process lives: a daemon
 * that was killed leaves nothing that blocks for long. A PostgreSQL store needs none: a daemon holds the leader
 * lease between cycles, and a one-shot takes the same lease.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isPostgresUrl } from '../config/storeUrl.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { RUN_LOCK_REFRESH_MS, RUN_LOCK_TTL_MS, processAlive } from './runLock.ts';

/** A daemon's record of itself; times in ms since the epoch. */
export interface DaemonPresence {
  pid: number;
  host: string;
  startedAtMs: number;
  heartbeatAtMs: number;
}

const PresenceSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  startedAtMs: z.number().int(),
  heartbeatAtMs: z.number().int(),
});

/** The record's path for a `store:` setting, or undefined for a store that has none (PostgreSQL, `:memory:`). */
export function daemonPresenceFile(store: string): string | undefined {
  return isPostgresUrl(store) || store === ':memory:' ? undefined : `${store}.daemon`;
}

/**
 * Records this process as the daemon of `store` and keeps the record fresh until `clear()`.
 *
 * @param o.nowMs the clock, ms
 * @returns `clear()`, which stops the heartbeat and removes the record; a no-op for a store without one
 */
export function markDaemonPresence(store: string, o: { nowMs: () => number; logger: Logger }): { clear(): void } {
  const file = daemonPresenceFile(store);
  if (file === undefined) return { clear: () => undefined };
  const startedAtMs = o.nowMs();
  const beat = (): void => {
    const record: DaemonPresence = { pid: process.pid, host: hostname(), startedAtMs, heartbeatAtMs: o.nowMs() };
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify(record), { mode: 0o600 });
      renameSync(`${file}.tmp`, file); // readers see the old record or the new one, never half of one
    } catch (error) {
      o.logger.warn(
        { err: shortErrorMessage(error), file },
        'daemon presence record not written; run --once cannot see this daemon between cycles',
      );
    }
  };
  beat();
  const timer = setInterval(beat, RUN_LOCK_REFRESH_MS);
  timer.unref();
  return {
    clear() {
      clearInterval(timer);
      rmSync(file, { force: true });
    },
  };
}

/**
 * The daemon running on `store`, if its record is fresh and (on this host) its process lives.
 *
 * @param nowMs current time, ms
 * @returns the record, or undefined when no daemon is known to run on the store
 */
export function readDaemonPresence(store: string, nowMs: number): DaemonPresence | undefined {
  const file = daemonPresenceFile(store);
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // fs errors carry an errno code
    throw error;
  }
  let parsed: ReturnType<typeof PresenceSchema.safeParse>;
  try {
    parsed = PresenceSchema.safeParse(JSON.parse(text));
  } catch {
    return undefined; // not JSON: not a record a daemon wrote
  }
  if (!parsed.success) return undefined;
  const record = parsed.data;
  if (nowMs - record.heartbeatAtMs > RUN_LOCK_TTL_MS) return undefined;
  if (record.host === hostname() && record.pid !== process.pid && !processAlive(record.pid)) return undefined;
  return record;
}
