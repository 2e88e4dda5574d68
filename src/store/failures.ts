/**
 * Failed deposits an operator has not resolved yet. A request that ended `failure` left its deposit in the
 * depository (spec "What the service does" 5: unfilled deposits stay there until the depositor reclaims them),
 * so its route is paused until an operator says the funds are back or dealt with (`ballast resume`).
 */
import type { StoreDb } from './db.ts';
import { StoreNotFoundError, StoreTransitionError } from './errors.ts';
import { queryTransfers, type TransferRow } from './transferRows.ts';

/** Transfers in status `failure` with no operator resolution, oldest first. */
export async function listUnresolvedFailures(db: StoreDb): Promise<TransferRow[]> {
  return queryTransfers(db, "SELECT * FROM transfers WHERE status = 'failure' AND resolved_at_ms IS NULL ORDER BY id");
}

/**
 * Records an operator's resolution of a failed transfer (e.g. "withdrawn to treasury in 0xabc…"); its route is
 * planned again from the next cycle.
 *
 * @param note what the operator did, kept in the history
 * @throws StoreNotFoundError when there is no such transfer
 * @throws StoreTransitionError `STORE_TRANSITION_CONFLICT` when it is not an unresolved `failure`
 */
export async function resolveFailure(db: StoreDb, id: number, note: string, nowMs: number): Promise<void> {
  await db.transaction(async () => {
    const row = (await db.get(`SELECT status, resolved_at_ms FROM transfers WHERE id = ?${db.forUpdate}`, id)) as
      | { status: string; resolved_at_ms: number | null }
      | undefined; // two columns of one row
    if (!row) throw new StoreNotFoundError('transfers', id);
    if (row.status !== 'failure' || row.resolved_at_ms !== null) {
      throw new StoreTransitionError('STORE_TRANSITION_CONFLICT', 'transfers', id, 'failure (unresolved)', row.status,
        `transfer ${id} is ${row.status}${row.resolved_at_ms !== null ? ', already resolved' : ''}; only an unresolved failure can be resolved`);
    }
    await db.run('UPDATE transfers SET resolved_at_ms = ?, resolution = ?, updated_at_ms = ? WHERE id = ?', nowMs, note, nowMs, id);
    await db.run('INSERT INTO transfer_events (transfer_id, from_status, to_status, at_ms, detail) VALUES (?, ?, ?, ?, ?)', id, 'failure', 'failure', nowMs, `resolved by the operator: ${note}`);
  });
}
