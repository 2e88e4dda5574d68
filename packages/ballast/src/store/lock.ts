/**
 * The single-run lock shared by `run --once` and the daemon (docs/design.md: "Both take the same single-run lock
 * (in SQLite), so a cron run and a daemon never act at once").
 *
 * One row (`id = 1`) in `run_lock`. Taking it is one atomic statement (INSERT … ON CONFLICT DO UPDATE … WHERE
 * expired), so two processes racing on the same file cannot both win. A holder that dies stops refreshing,
 * and its lock expires after `ttlMs`. The lock is not re-entrant: acquiring it again with the same owner
 * while it is held returns false (use {@link refreshRunLock} to extend it).
 */
import type { StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { checkMs } from './values.ts';

/** Who holds the lock. */
export interface RunLockHolder {
  owner: string;
  pid: number;
  acquiredAtMs: number;
  expiresAtMs: number;
}

/**
 * Takes the lock if it is free or expired.
 *
 * @param l.owner unique id of this run (e.g. `<pid>:<uuid>`)
 * @param l.pid process id, for operators
 * @param l.nowMs current time, ms
 * @param l.ttlMs lifetime without refresh, ms (> 0)
 * @returns true when this call took the lock
 */
export async function acquireRunLock(db: StoreDb, l: { owner: string; pid: number; nowMs: number; ttlMs: number }): Promise<boolean> {
  const now = checkMs(l.nowMs, 'nowMs');
  const ttl = positiveTtl(l.ttlMs);
  const r = await db.run(
    `INSERT INTO run_lock (id, owner, pid, acquired_at_ms, expires_at_ms) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
         acquired_at_ms = excluded.acquired_at_ms, expires_at_ms = excluded.expires_at_ms
       WHERE run_lock.expires_at_ms <= excluded.acquired_at_ms`,
    l.owner,
    l.pid,
    now,
    now + ttl,
  );
  return r.changes === 1;
}

/**
 * Takes the lock from `expectedOwner`, whatever its expiry: for a holder proven dead (its process is gone on
 * this host). Atomic: when someone else took the lock meanwhile, nothing changes.
 *
 * @returns true when this call took the lock
 */
export async function takeOverRunLock(
  db: StoreDb,
  l: { expectedOwner: string; owner: string; pid: number; nowMs: number; ttlMs: number },
): Promise<boolean> {
  const now = checkMs(l.nowMs, 'nowMs');
  const r = await db.run(
    'UPDATE run_lock SET owner = ?, pid = ?, acquired_at_ms = ?, expires_at_ms = ? WHERE id = 1 AND owner = ?',
    l.owner,
    l.pid,
    now,
    now + positiveTtl(l.ttlMs),
    l.expectedOwner,
  );
  return r.changes === 1;
}

/**
 * Extends the lock held by `owner` to `nowMs + ttlMs`.
 *
 * @returns true when `owner` still holds the lock (false: it was released or taken over after expiry)
 */
export async function refreshRunLock(db: StoreDb, l: { owner: string; nowMs: number; ttlMs: number }): Promise<boolean> {
  const r = await db.run(
    'UPDATE run_lock SET expires_at_ms = ? WHERE id = 1 AND owner = ?',
    checkMs(l.nowMs, 'nowMs') + positiveTtl(l.ttlMs),
    l.owner,
  );
  return r.changes === 1;
}

/**
 * Releases the lock if `owner` holds it; another owner's lock is left alone.
 *
 * @returns true when the lock was released by this call
 */
export async function releaseRunLock(db: StoreDb, owner: string): Promise<boolean> {
  return (await db.run('DELETE FROM run_lock WHERE id = 1 AND owner = ?', owner)).changes === 1;
}

/**
 * The `run_lock` row as read by {@link readRunLock} (every column but `id`, always 1): times integer ms. Query
 * results are cast to it unchecked; {@link RUN_LOCK_ROW} ties it to the migrated schema of both engines
 * (test/unit/store/rowTypes.test.ts).
 */
interface RunLockDbRow {
  owner: string;
  pid: number;
  acquired_at_ms: number;
  expires_at_ms: number;
}

/** Columns of {@link RunLockDbRow}: the select list of {@link readRunLock}. */
export const RUN_LOCK_ROW = rowShape<RunLockDbRow>({
  name: 'RunLockDbRow',
  table: 'run_lock',
  allColumns: false,
  columns: { owner: 'text', pid: 'integer', acquired_at_ms: 'integer', expires_at_ms: 'integer' },
});

/**
 * Reads the current holder (expired or not), for status output.
 *
 * @returns the holder, or undefined when nobody holds the lock
 */
export async function readRunLock(db: StoreDb): Promise<RunLockHolder | undefined> {
  const row = (await db.get('SELECT owner, pid, acquired_at_ms, expires_at_ms FROM run_lock WHERE id = 1')) as RunLockDbRow | undefined; // columns checked by RUN_LOCK_ROW
  return row && { owner: row.owner, pid: row.pid, acquiredAtMs: row.acquired_at_ms, expiresAtMs: row.expires_at_ms };
}

function positiveTtl(ttlMs: number): number {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  return ttlMs;
}
