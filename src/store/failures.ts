/**
 * Failed deposits an operator has not resolved yet. A request that ended `failure` left its deposit in the
 * depository (spec "What the service does" 5: unfilled deposits stay there until the depositor reclaims them),
 * so its route is paused until an operator says the funds are back or dealt with (`ballast resume`).
 */
import type Database from 'better-sqlite3';
import { StoreNotFoundError, StoreTransitionError } from './errors.ts';
import { queryTransfers, type TransferRow } from './transferRows.ts';

/** Transfers in status `failure` with no operator resolution, oldest first. */
export function listUnresolvedFailures(db: Database.Database): TransferRow[] {
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
export function resolveFailure(db: Database.Database, id: number, note: string, nowMs: number): void {
  db.transaction(() => {
    const row = db.prepare('SELECT status, resolved_at_ms FROM transfers WHERE id = ?').get(id) as
      | { status: string; resolved_at_ms: number | null }
      | undefined; // two columns of one row
    if (!row) throw new StoreNotFoundError('transfers', id);
    if (row.status !== 'failure' || row.resolved_at_ms !== null) {
      throw new StoreTransitionError('STORE_TRANSITION_CONFLICT', 'transfers', id, 'failure (unresolved)', row.status,
        `transfer ${id} is ${row.status}${row.resolved_at_ms !== null ? ', already resolved' : ''}; only an unresolved failure can be resolved`);
    }
    db.prepare('UPDATE transfers SET resolved_at_ms = ?, resolution = ?, updated_at_ms = ? WHERE id = ?').run(nowMs, note, nowMs, id);
    db.prepare('INSERT INTO transfer_events (transfer_id, from_status, to_status, at_ms, detail) VALUES (?, ?, ?, ?, ?)').run(
      id, 'failure', 'failure', nowMs, `resolved by the operator: ${note}`);
  }).immediate();
}
