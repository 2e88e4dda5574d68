/**
 * Manual transfers queued for the process that holds the run lock or the leader lease (migration 8,
 * `transfer_requests`): `ballast transfer --queue` writes one `pending`; that process takes it at its next cycle
 * (`taken`), runs it like `ballast transfer` and records how it ended (`done` with the one-transfer cycle it ran
 * in, `refused` with the reason it cannot be done, or `failed` when it could not be run, e.g. GET /chains or a
 * balance read failed; neither is run again). A request still `taken` when a process starts belonged to a run that died
 * while running it; it is marked `abandoned`, never run again (its transfer, if one was signed, is reconciled like
 * any other).
 */
import type { StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { checkMs } from './values.ts';

/** States of a queued request. */
export type TransferRequestState = 'pending' | 'taken' | 'done' | 'refused' | 'failed' | 'abandoned';

/** One queued request; `amount` in whole units of the asset, `fromRef`/`toRef` as `<chain>:<asset>[:<wallet>]`. */
export interface TransferRequestRow {
  id: number;
  fromRef: string;
  toRef: string;
  amount: string;
  requestedBy: string;
  requestedAtMs: number;
  state: TransferRequestState;
  cycleId?: number;
  /** The transfer attempt's outcome (`success`, `skipped_fee`, …) once done. */
  outcome?: string;
  detail?: string;
  finishedAtMs?: number;
}

/**
 * Queues a request.
 *
 * @returns its id
 * @throws StoreValueError on a bad time
 */
export async function enqueueTransferRequest(
  db: StoreDb,
  r: { fromRef: string; toRef: string; amount: string; requestedBy: string; requestedAtMs: number },
): Promise<number> {
  checkMs(r.requestedAtMs, 'requestedAtMs');
  const row = await db.get<{ id: number }>(
    `INSERT INTO transfer_requests (from_ref, to_ref, amount, requested_by, requested_at_ms, state) VALUES (?, ?, ?, ?, ?, 'pending') RETURNING id`,
    r.fromRef,
    r.toRef,
    r.amount,
    r.requestedBy,
    r.requestedAtMs,
  );
  return (row as { id: number }).id; // RETURNING always yields the inserted row
}

/**
 * Marks every request still `taken` as `abandoned` (the caller holds the run lock or lease, so no live process
 * is running one), then takes the pending ones, oldest first.
 *
 * @returns the abandoned ids and the requests now `taken` by the caller
 */
export async function takePendingTransferRequests(
  db: StoreDb,
  nowMs: number,
): Promise<{ abandoned: number[]; taken: TransferRequestRow[] }> {
  checkMs(nowMs, 'nowMs');
  return db.transaction(async () => {
    const stale = await db.all<{ id: number }>(`SELECT id FROM transfer_requests WHERE state = 'taken' ORDER BY id${db.forUpdate}`);
    for (const { id } of stale) {
      await db.run(
        `UPDATE transfer_requests SET state = 'abandoned', detail = ?, finished_at_ms = ? WHERE id = ? AND state = 'taken'`,
        'the process running it stopped before it finished; not run again: see `ballast history` for a transfer it may have signed, and queue it again if none was sent',
        nowMs,
        id,
      );
    }
    const pending = await db.all<TransferRequestDbRow>(
      `SELECT * FROM transfer_requests WHERE state = 'pending' ORDER BY id${db.forUpdate}`,
    );
    for (const r of pending) await db.run(`UPDATE transfer_requests SET state = 'taken' WHERE id = ? AND state = 'pending'`, r.id);
    return { abandoned: stale.map((s) => s.id), taken: pending.map((r) => ({ ...fromDb(r), state: 'taken' as const })) };
  });
}

/** Records how a taken request ended. */
export async function finishTransferRequest(
  db: StoreDb,
  id: number,
  end: { state: 'done' | 'refused' | 'failed'; cycleId?: number; outcome?: string; detail: string; finishedAtMs: number },
): Promise<void> {
  checkMs(end.finishedAtMs, 'finishedAtMs');
  await db.run(
    `UPDATE transfer_requests SET state = ?, cycle_id = ?, outcome = ?, detail = ?, finished_at_ms = ? WHERE id = ? AND state = 'taken'`,
    end.state,
    end.cycleId ?? null,
    end.outcome ?? null,
    end.detail,
    end.finishedAtMs,
    id,
  );
}

/** One request by id, or undefined. */
export async function getTransferRequest(db: StoreDb, id: number): Promise<TransferRequestRow | undefined> {
  const row = await db.get<TransferRequestDbRow>('SELECT * FROM transfer_requests WHERE id = ?', id);
  return row ? fromDb(row) : undefined;
}

/**
 * A `transfer_requests` row as read (`SELECT *`): times integer ms, `amount` whole units as typed by the
 * operator. Query results are typed as it unchecked; {@link TRANSFER_REQUEST_ROW} ties it to the migrated schema
 * of both engines (test/unit/store/rowTypes.test.ts).
 */
interface TransferRequestDbRow {
  id: number;
  from_ref: string;
  to_ref: string;
  amount: string;
  requested_by: string;
  requested_at_ms: number;
  state: TransferRequestState;
  cycle_id: number | null;
  outcome: string | null;
  detail: string | null;
  finished_at_ms: number | null;
}

/** Columns of {@link TransferRequestDbRow}: every column of `transfer_requests`. */
export const TRANSFER_REQUEST_ROW = rowShape<TransferRequestDbRow>({
  name: 'TransferRequestDbRow',
  table: 'transfer_requests',
  allColumns: true,
  columns: {
    id: 'integer',
    from_ref: 'text',
    to_ref: 'text',
    amount: 'text',
    requested_by: 'text',
    requested_at_ms: 'integer',
    state: 'text',
    cycle_id: 'integer?',
    outcome: 'text?',
    detail: 'text?',
    finished_at_ms: 'integer?',
  },
});

function fromDb(r: TransferRequestDbRow): TransferRequestRow {
  return {
    id: r.id,
    fromRef: r.from_ref,
    toRef: r.to_ref,
    amount: r.amount,
    requestedBy: r.requested_by,
    requestedAtMs: r.requested_at_ms,
    state: r.state,
    ...(r.cycle_id === null ? {} : { cycleId: r.cycle_id }),
    ...(r.outcome === null ? {} : { outcome: r.outcome }),
    ...(r.detail === null ? {} : { detail: r.detail }),
    ...(r.finished_at_ms === null ? {} : { finishedAtMs: r.finished_at_ms }),
  };
}

/** Puts a taken request back to `pending` (the process is shutting down before it ran it). */
export async function releaseTransferRequest(db: StoreDb, id: number): Promise<void> {
  await db.run(`UPDATE transfer_requests SET state = 'pending' WHERE id = ? AND state = 'taken'`, id);
}
