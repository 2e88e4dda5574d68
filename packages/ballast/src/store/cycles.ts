/**
 * The `cycles` table: one row per pass of the pipeline (docs/design.md "One cycle = one pass of this pipeline").
 * A row is written when the cycle starts and completed when it ends, so a crashed cycle is visible as a row
 * without `finished_at_ms`.
 */
import type { StoreDb } from './db.ts';
import { StoreTransitionError } from './errors.ts';
import { rowShape } from './rowColumns.ts';
import { checkMs, fromJsonText, toJsonText } from './values.ts';

/** How the cycle was started. */
export type CycleMode = 'once' | 'daemon' | 'plan';
/**
 * How it ended: `refused` = stopped by policy or verification, `error` = failed, `aborted` = the run died before
 * finishing it (crash, kill, power loss) and the next run closed it, or, with a leader lease, the leader's term
 * ended before it finished and the leader that took over closed it.
 */
export type CycleOutcome = 'ok' | 'refused' | 'error' | 'aborted';

/** A stored cycle. */
export interface CycleRow {
  id: number;
  mode: CycleMode;
  startedAtMs: number;
  finishedAtMs: number | null;
  outcome: CycleOutcome | null;
  summary: unknown;
  error: string | null;
}

/**
 * Records the start of a cycle.
 *
 * @returns the cycle id
 * @throws StoreValueError when `startedAtMs` is not integer milliseconds
 */
export async function startCycle(db: StoreDb, c: { mode: CycleMode; startedAtMs: number }): Promise<number> {
  const row = await db.get<{ id: number }>(
    'INSERT INTO cycles (mode, started_at_ms) VALUES (?, ?) RETURNING id',
    c.mode,
    checkMs(c.startedAtMs, 'startedAtMs'),
  );
  return (row as { id: number }).id; // RETURNING always yields the inserted row
}

/**
 * Records the end of a cycle. Only an unfinished cycle can be finished.
 *
 * @param summary JSON-serialisable summary (bigints become decimal strings)
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when the cycle does not exist or is already finished
 */
export async function finishCycle(
  db: StoreDb,
  id: number,
  f: { outcome: CycleOutcome; finishedAtMs: number; summary?: object; error?: string },
): Promise<void> {
  const r = await db.run(
    `UPDATE cycles SET outcome = ?, finished_at_ms = ?, summary_json = ?, error = ?
       WHERE id = ? AND finished_at_ms IS NULL`,
    f.outcome,
    checkMs(f.finishedAtMs, 'finishedAtMs'),
    f.summary === undefined ? null : toJsonText(f.summary, 'summary'),
    f.error ?? null,
    id,
  );
  if (r.changes !== 1) {
    throw new StoreTransitionError(
      'STORE_TRANSITION_CONFLICT',
      'cycles',
      id,
      'running',
      f.outcome,
      `cycle ${id} is not running (missing or already finished); it cannot be finished again`,
    );
  }
}

/**
 * Why the cycles {@link closeAbandonedCycles} closes were left unfinished: `run_ended`, the run died (run lock,
 * SQLite: one process at a time); `term_ended`, its leader's term ended (leader lease, PostgreSQL: the process
 * crashed, was paused or was cut off from the database, and may still be alive).
 */
export type AbandonCause = 'run_ended' | 'term_ended';

/** The `error` each {@link AbandonCause} leaves on the cycle row. */
const ABANDONED_ERROR: Readonly<Record<AbandonCause, string>> = {
  run_ended: 'the run ended before this cycle finished (crash, kill or power loss); closed by the next run',
  term_ended:
    "its leader's term ended before this cycle finished (crash, pause, or cut off from the database); closed by the leader that took over, which reconciles its transfers",
};

/**
 * Closes the cycles of runs that stopped mid-cycle: every `once`/`daemon` cycle still unfinished is marked
 * `aborted`. Call it only while holding the run lock or, with a leader lease, as the leader: those modes run only
 * under the lock or the lease, so any of their unfinished cycles belongs to a run that is gone or whose term is
 * over (a `plan` cycle takes neither and is left alone).
 *
 * @param cause why they were left unfinished (the row's `error` says it); default `run_ended`
 * @returns the ids of the cycles closed, oldest first
 */
export async function closeAbandonedCycles(db: StoreDb, nowMs: number, cause: AbandonCause = 'run_ended'): Promise<number[]> {
  const rows = (await db.all(
    `UPDATE cycles SET outcome = 'aborted', finished_at_ms = ?, error = ?
       WHERE finished_at_ms IS NULL AND mode IN ('once', 'daemon') RETURNING id`,
    checkMs(nowMs, 'nowMs'),
    ABANDONED_ERROR[cause],
  )) as {
    id: number;
  }[]; // RETURNING one INTEGER column
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/**
 * A `cycles` row as read (`SELECT *`): times integer ms, the summary JSON text. Query results are cast to it
 * unchecked; {@link CYCLE_ROW} ties it to the migrated schema of both engines (test/unit/store/rowTypes.test.ts).
 */
interface CycleDbRow {
  id: number;
  mode: CycleMode;
  started_at_ms: number;
  finished_at_ms: number | null;
  outcome: CycleOutcome | null;
  summary_json: string | null;
  error: string | null;
}

/** Columns of {@link CycleDbRow}: every column of `cycles`. */
export const CYCLE_ROW = rowShape<CycleDbRow>({
  name: 'CycleDbRow',
  table: 'cycles',
  allColumns: true,
  columns: {
    id: 'integer',
    mode: 'text',
    started_at_ms: 'integer',
    finished_at_ms: 'integer?',
    outcome: 'text?',
    summary_json: 'text?',
    error: 'text?',
  },
});

/**
 * Reads one cycle.
 *
 * @returns the cycle, or undefined when there is none with that id
 */
export async function getCycle(db: StoreDb, id: number): Promise<CycleRow | undefined> {
  const row = (await db.get('SELECT * FROM cycles WHERE id = ?', id)) as CycleDbRow | undefined; // columns checked by CYCLE_ROW
  if (!row) return undefined;
  return {
    id: row.id,
    mode: row.mode,
    startedAtMs: row.started_at_ms,
    finishedAtMs: row.finished_at_ms,
    outcome: row.outcome,
    summary: fromJsonText(row.summary_json),
    error: row.error,
  };
}
