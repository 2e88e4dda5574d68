/**
 * The refund follow-up of closed transfers (src/cycle/followRefund.ts): what came back on the origin chain after
 * a request ended `refund` (or `failure`), written once per transfer (columns of migration 12).
 * https://docs.relay.link/references/api/api_core_concepts/refunds
 */
import type { StoreDb } from './db.ts';
import { queryTransfers, type TransferRow } from './transferRows.ts';

/** What {@link recordRefund} writes: origin base units, the refund transaction, `refundFailReason` (null: `N/A`). */
export interface RefundRecord {
  amount: bigint | null;
  txHash: string | null;
  failReason: string | null;
  nowMs: number;
}

/**
 * Records the refund follow-up of transfer `id`, once: only while it is `refund` or `failure` and not yet
 * followed up (guarded update).
 *
 * @returns true when this call wrote it; false when it was already recorded or the transfer is in another status
 * @throws store errors
 */
export async function recordRefund(db: StoreDb, id: number, r: RefundRecord): Promise<boolean> {
  const changes = await db.run(
    `UPDATE transfers SET refunded_amount = ?, refund_tx_hash = ?, refund_fail_reason = ?, refund_checked_at_ms = ?
      WHERE id = ? AND status IN ('refund', 'failure') AND refund_checked_at_ms IS NULL`,
    r.amount === null ? null : r.amount.toString(),
    r.txHash,
    r.failReason,
    r.nowMs,
    id,
  );
  return changes.changes === 1;
}

/**
 * Transfers closed `refund` or `failure` since `sinceMs` (unix ms, by `updated_at_ms`) whose refund follow-up is
 * not recorded yet, oldest first, at most `limit`.
 */
export async function listRefundsToFollow(db: StoreDb, sinceMs: number, limit: number): Promise<TransferRow[]> {
  return queryTransfers(
    db,
    `SELECT * FROM transfers WHERE status IN ('refund', 'failure') AND refund_checked_at_ms IS NULL AND request_id IS NOT NULL
      AND updated_at_ms >= ? ORDER BY id LIMIT ?`,
    sinceMs,
    limit,
  );
}
