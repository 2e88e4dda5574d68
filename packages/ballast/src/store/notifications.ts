/**
 * The notification delivery queue (migration 14, `notifications`): one row per (event, sink), unique by
 * `(sink, dedupe_key)` so the same event is queued once per sink however often it is reported
 * (docs/notifications.md "Delivery"). Rows move `pending` → `delivered`, or → `failed` after the last attempt.
 *
 * Every write is a single statement outside the write-ahead path: a notification is not a signature, so any
 * process (a follower replica included) may queue one, and a due row is claimed by a compare-and-set on its
 * next attempt time, so two dispatchers never send the same attempt (docs/ha.md).
 */
import type { StoreDb } from './db.ts';
import { inList } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { checkMs } from './values.ts';

/** Delivery states of a row. */
export type NotificationStatus = 'pending' | 'delivered' | 'failed';

/** What {@link enqueueNotification} writes for one sink. `payload` is JSON text. */
export interface NotificationInsert {
  sink: string;
  event: string;
  severity: 'info' | 'warning' | 'critical';
  dedupeKey: string;
  summary: string;
  payload: string;
  nowMs: number;
}

/** One queued delivery as read. Times Unix ms. */
export interface NotificationRow {
  id: number;
  sink: string;
  event: string;
  severity: 'info' | 'warning' | 'critical';
  dedupeKey: string;
  summary: string;
  /** JSON text of the event payload. */
  payload: string;
  status: NotificationStatus;
  attempts: number;
  nextAttemptAtMs: number;
  lastError: string | null;
  createdAtMs: number;
  finishedAtMs: number | null;
}

/** A `notifications` row as stored. */
interface NotificationDbRow {
  id: number;
  sink: string;
  event: string;
  severity: string;
  dedupe_key: string;
  summary: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at_ms: number;
  last_error: string | null;
  created_at_ms: number;
  finished_at_ms: number | null;
}

/** Columns of {@link NotificationDbRow}: every column of `notifications`. */
export const NOTIFICATION_ROW = rowShape<NotificationDbRow>({
  name: 'NotificationDbRow',
  table: 'notifications',
  allColumns: true,
  columns: {
    id: 'integer',
    sink: 'text',
    event: 'text',
    severity: 'text',
    dedupe_key: 'text',
    summary: 'text',
    payload: 'text',
    status: 'text',
    attempts: 'integer',
    next_attempt_at_ms: 'integer',
    last_error: 'text?',
    created_at_ms: 'integer',
    finished_at_ms: 'integer?',
  },
});

function fromDb(r: NotificationDbRow): NotificationRow {
  return {
    id: Number(r.id),
    sink: r.sink,
    event: r.event,
    severity: r.severity as NotificationRow['severity'], // CHECK constraint of the column
    dedupeKey: r.dedupe_key,
    summary: r.summary,
    payload: r.payload,
    status: r.status as NotificationStatus, // CHECK constraint of the column
    attempts: Number(r.attempts),
    nextAttemptAtMs: Number(r.next_attempt_at_ms),
    lastError: r.last_error,
    createdAtMs: Number(r.created_at_ms),
    finishedAtMs: r.finished_at_ms === null ? null : Number(r.finished_at_ms),
  };
}

/** Longest `last_error` kept, characters. */
const MAX_ERROR_CHARS = 500;

/**
 * Queues one delivery, due at once, unless the sink already has a row with the same dedupe key.
 *
 * @returns true when a row was written, false for a duplicate
 * @throws StoreValueError on a bad time; the engine's error when the database fails
 */
export async function enqueueNotification(db: StoreDb, n: NotificationInsert): Promise<boolean> {
  checkMs(n.nowMs, 'nowMs');
  const result = await db.run(
    `INSERT INTO notifications (sink, event, severity, dedupe_key, summary, payload, status, attempts, next_attempt_at_ms, created_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)
     ON CONFLICT (sink, dedupe_key) DO NOTHING`,
    n.sink,
    n.event,
    n.severity,
    n.dedupeKey,
    n.summary,
    n.payload,
    n.nowMs,
    n.nowMs,
  );
  return result.changes > 0;
}

/** Pending rows due at `nowMs` (next attempt at or before it), oldest due first, at most `limit`. */
export async function listDueNotifications(db: StoreDb, nowMs: number, limit: number): Promise<NotificationRow[]> {
  const rows = await db.all<NotificationDbRow>(
    `SELECT * FROM notifications WHERE status = 'pending' AND next_attempt_at_ms <= ? ORDER BY next_attempt_at_ms, id LIMIT ?`,
    checkMs(nowMs, 'nowMs'),
    limit,
  );
  return rows.map(fromDb);
}

/**
 * Claims a due row for one attempt: counts the attempt and moves its next attempt time to `untilMs` (past the
 * request's timeout), only if the row is still pending with the next attempt time it was read with. A crash
 * during the attempt leaves it due again at `untilMs`.
 *
 * @returns true when this caller owns the attempt; false when another dispatcher claimed it first
 */
export async function claimNotification(
  db: StoreDb,
  row: Pick<NotificationRow, 'id' | 'nextAttemptAtMs'>,
  untilMs: number,
): Promise<boolean> {
  const result = await db.run(
    `UPDATE notifications SET attempts = attempts + 1, next_attempt_at_ms = ?
      WHERE id = ? AND status = 'pending' AND next_attempt_at_ms = ?`,
    checkMs(untilMs, 'untilMs'),
    row.id,
    row.nextAttemptAtMs,
  );
  return result.changes > 0;
}

/** Marks a claimed row delivered. */
export async function markNotificationDelivered(db: StoreDb, id: number, nowMs: number): Promise<void> {
  await db.run(
    `UPDATE notifications SET status = 'delivered', finished_at_ms = ?, last_error = NULL WHERE id = ? AND status = 'pending'`,
    checkMs(nowMs, 'nowMs'),
    id,
  );
}

/** Records a failed attempt of a claimed row that will be tried again at `nextAttemptAtMs`. */
export async function markNotificationRetry(db: StoreDb, id: number, nextAttemptAtMs: number, error: string): Promise<void> {
  await db.run(
    `UPDATE notifications SET next_attempt_at_ms = ?, last_error = ? WHERE id = ? AND status = 'pending'`,
    checkMs(nextAttemptAtMs, 'nextAttemptAtMs'),
    error.slice(0, MAX_ERROR_CHARS),
    id,
  );
}

/** Gives a claimed row up (`failed`) with its last error. */
export async function markNotificationFailed(db: StoreDb, id: number, nowMs: number, error: string): Promise<void> {
  await db.run(
    `UPDATE notifications SET status = 'failed', finished_at_ms = ?, last_error = ? WHERE id = ? AND status = 'pending'`,
    checkMs(nowMs, 'nowMs'),
    error.slice(0, MAX_ERROR_CHARS),
    id,
  );
}

/** Rows of the queue, newest first (at most `limit`), for reports and tests. */
export async function listNotifications(db: StoreDb, limit: number): Promise<NotificationRow[]> {
  const rows = await db.all<NotificationDbRow>('SELECT * FROM notifications ORDER BY id DESC LIMIT ?', limit);
  return rows.map(fromDb);
}

/** A delivered event that opened a condition its sink has not been told the end of ({@link listOpenConditions}). */
export interface OpenCondition {
  sink: string;
  dedupeKey: string;
  /** JSON text of the opening event's payload. */
  payload: string;
}

/**
 * Delivered rows of event `opening` whose sink holds no row keyed `<resolving>:<their dedupe key>`: the conditions
 * each sink was told of and not yet told the end of, oldest first. Pending rows are left out (the end must not
 * overtake the start) and so are failed ones (a start never delivered opened nothing).
 *
 * @param opening the event that opens the condition, e.g. `transfer_stalled`
 * @param resolving the event that ends it, e.g. `transfer_unstalled`
 */
export async function listOpenConditions(db: StoreDb, opening: string, resolving: string): Promise<OpenCondition[]> {
  const rows = await db.all<{ sink: string; dedupe_key: string; payload: string }>(
    `SELECT n.sink, n.dedupe_key, n.payload FROM notifications n
      WHERE n.event = ? AND n.status = 'delivered'
        AND NOT EXISTS (SELECT 1 FROM notifications r WHERE r.sink = n.sink AND r.dedupe_key = CAST(? AS TEXT) || n.dedupe_key)
      ORDER BY n.id`,
    opening,
    `${resolving}:`,
  );
  return rows.map((r) => ({ sink: r.sink, dedupeKey: r.dedupe_key, payload: r.payload }));
}

/** Whether `sink` holds a row with dedupe key `dedupeKey` (in any status). */
export async function hasNotification(db: StoreDb, sink: string, dedupeKey: string): Promise<boolean> {
  return (
    (await db.get<{ one: number }>('SELECT 1 AS one FROM notifications WHERE sink = ? AND dedupe_key = ?', sink, dedupeKey)) !== undefined
  );
}

/** Number of pending rows. */
export async function countPendingNotifications(db: StoreDb): Promise<number> {
  const row = await db.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM notifications WHERE status = 'pending'`);
  return Number(row?.n ?? 0);
}

/** A pending row deleted by {@link pruneNotifications} before it was delivered. */
export interface DroppedNotification {
  sink: string;
  event: string;
}

/**
 * Keeps the queue bounded: deletes delivered and failed rows finished before `finishedBeforeMs`; then, while more
 * than `maxRows` rows remain, the oldest finished rows, and last the oldest pending ones (returned, so the caller
 * can count them dropped).
 *
 * @returns the pending rows deleted
 */
export async function pruneNotifications(db: StoreDb, opts: { finishedBeforeMs: number; maxRows: number }): Promise<DroppedNotification[]> {
  await db.run(
    `DELETE FROM notifications WHERE status <> 'pending' AND finished_at_ms < ?`,
    checkMs(opts.finishedBeforeMs, 'finishedBeforeMs'),
  );
  const total = Number((await db.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM notifications'))?.n ?? 0);
  let excess = total - opts.maxRows;
  if (excess <= 0) return [];
  const finished = await db.all<{ id: number }>(`SELECT id FROM notifications WHERE status <> 'pending' ORDER BY id LIMIT ?`, excess);
  if (finished.length > 0)
    await deleteIds(
      db,
      finished.map((r) => Number(r.id)),
    );
  excess -= finished.length;
  if (excess <= 0) return [];
  const pending = await db.all<{ id: number; sink: string; event: string }>(
    `SELECT id, sink, event FROM notifications WHERE status = 'pending' ORDER BY id LIMIT ?`,
    excess,
  );
  if (pending.length > 0)
    await deleteIds(
      db,
      pending.map((r) => Number(r.id)),
    );
  return pending.map((r) => ({ sink: r.sink, event: r.event }));
}

async function deleteIds(db: StoreDb, ids: number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    await db.run(`DELETE FROM notifications WHERE id IN ${inList(chunk)}`, ...chunk);
  }
}
