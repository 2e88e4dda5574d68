/**
 * The reads that decide whether a request status may still be written to a transfer (src/executor/
 * applyRequestStatus.ts, the executor's tracker, the webhook receiver): row-locked on PostgreSQL so a concurrent
 * close (a webhook event, the next cycle, the tracker) waits until the deciding transaction ends.
 */
import type { StoreDb } from './db.ts';
import { queryTransfers, type TransferRow } from './transferRows.ts';
import type { TransferStatus } from './transferStatus.ts';

/**
 * The current status of transfer `id`, read with `FOR UPDATE` on PostgreSQL (SQLite: its write transactions
 * already exclude each other). Call it inside `db.transaction`, before the writes it decides.
 *
 * @returns a Promise of the status, or of undefined when there is no transfer with that id
 */
export async function lockTransferStatus(db: StoreDb, id: number): Promise<TransferStatus | undefined> {
  const row = await db.get<{ status: TransferStatus }>(`SELECT status FROM transfers WHERE id = ?${db.forUpdate}`, id); // one TEXT column
  return row?.status;
}

/**
 * The transfer filed under `requestId` (request ids are hex: compared case-insensitively), or undefined; its row
 * is read with `FOR UPDATE` on PostgreSQL, so inside `db.transaction` events for the same transfer are applied
 * one after the other.
 *
 * @returns a Promise of the newest such transfer with its transactions and events, or of undefined
 */
export async function transferByRequestId(db: StoreDb, requestId: string): Promise<TransferRow | undefined> {
  const rows = await queryTransfers(
    db,
    `SELECT * FROM transfers WHERE lower(request_id) = ? ORDER BY id DESC LIMIT 1${db.forUpdate}`,
    requestId.toLowerCase(),
  );
  return rows[0];
}
