/**
 * Failures an operator has not resolved yet, which pause their route (src/cycle/pausedRoutes.ts) until
 * `ballast resume`:
 * - failed deposits: a request that ended `failure` left its deposit in the depository (docs/relay-contract.md "What the
 *   service does" 5: unfilled deposits stay there until the depositor reclaims them);
 * - refunds that did not happen: a request that ended `refund` with a `refundFailReason` (recorded by the refund
 *   follow-up, src/cycle/followRefund.ts) left its deposit where an operator must recover it
 *   (https://docs.relay.link/references/api/api_core_concepts/refunds);
 * - origin transactions that failed on chain (`origin_failed` with a `reverted` transaction, or with a deposit ended
 *   by a mined cancel of ours), in a row on one route.
 */
import type { StoreDb } from './db.ts';
import { StoreNotFoundError, StoreTransitionError } from './errors.ts';
import { rowShape } from './rowColumns.ts';
import { CANCEL_STEP_SUFFIX, queryTransfers, type TransferRow } from './transferRows.ts';

/**
 * The on-chain origin failure clause: the transfer `t` paid the chain for nothing. A transaction of it was mined
 * and failed (`reverted`), or its deposit missed its deadline and was ended by a cancel of ours that was mined
 * (step `<step>:cancel`, src/store/transferRows.ts): a deposit fee and a cancel fee, and nothing moved.
 */
const PAID_FOR_NOTHING = `EXISTS (SELECT 1 FROM transfer_txs x WHERE x.transfer_id = t.id
    AND (x.status = 'reverted' OR (x.status = 'confirmed' AND x.step_id LIKE '%${CANCEL_STEP_SUFFIX}')))`;

/** A stored `refund` whose refund did not happen: its follow-up recorded a `refundFailReason`. */
const UNPAID_REFUND = "(status = 'refund' AND refund_fail_reason IS NOT NULL)";

/** Transfers in status `failure`, or `refund` with a `refundFailReason`, with no operator resolution, oldest first. */
export async function listUnresolvedFailures(db: StoreDb): Promise<TransferRow[]> {
  return queryTransfers(
    db,
    `SELECT * FROM transfers WHERE (status = 'failure' OR ${UNPAID_REFUND}) AND resolved_at_ms IS NULL ORDER BY id`,
  );
}

/**
 * Unresolved on-chain origin failures since each route's last landed deposit, oldest first: transfers
 * `origin_failed` with at least one transaction mined and failed (`reverted`: it paid its fee) or a deposit ended
 * by a mined cancel of ours (a deposit fee and a cancel fee, nothing moved), no operator
 * resolution, and no transfer of the same route (asset, origin chain, destination chain) after them whose deposit
 * landed. A transfer whose deposit landed (`deposited`, `success`, `failure`, `refund`) ends the streak
 * of the failures before it; failures proven never to have landed (dropped, never sent) are not listed.
 */
export async function listOriginFailureStreaks(db: StoreDb): Promise<TransferRow[]> {
  return queryTransfers(
    db,
    `SELECT * FROM transfers t
      WHERE t.status = 'origin_failed' AND t.resolved_at_ms IS NULL
        AND ${PAID_FOR_NOTHING}
        AND t.id > COALESCE((SELECT MAX(o.id) FROM transfers o
                              WHERE o.asset = t.asset AND o.origin_chain = t.origin_chain AND o.destination_chain = t.destination_chain
                                AND o.status IN ('deposited', 'success', 'failure', 'refund')), 0)
      ORDER BY t.id`,
  );
}

/**
 * What {@link resolveFailure} reads of the transfer to resolve: six columns of `transfers`. Query results are cast
 * to it unchecked; {@link FAILURE_CHECK_ROW} ties it to the migrated schema of both engines
 * (test/unit/store/rowTypes.test.ts).
 */
interface FailureCheckDbRow {
  status: string;
  resolved_at_ms: number | null;
  asset: string;
  origin_chain: string;
  destination_chain: string;
  refund_fail_reason: string | null;
}

/** Columns of {@link FailureCheckDbRow}: the select list of {@link resolveFailure}. */
export const FAILURE_CHECK_ROW = rowShape<FailureCheckDbRow>({
  name: 'FailureCheckDbRow',
  table: 'transfers',
  allColumns: false,
  columns: {
    status: 'text',
    resolved_at_ms: 'integer?',
    asset: 'text',
    origin_chain: 'text',
    destination_chain: 'text',
    refund_fail_reason: 'text?',
  },
});

/**
 * Records an operator's resolution (e.g. "withdrawn to treasury in 0xabc…", "depositor account topped up"); the
 * route it paused is planned again from the next cycle.
 * - an unresolved `failure`, or a `refund` with a `refundFailReason`: that transfer;
 * - an unresolved on-chain origin failure (`origin_failed` with a `reverted` transaction): it and every earlier
 *   unresolved one of the same route (asset, origin chain, destination chain), so the count of failures in a row
 *   starts again from zero.
 *
 * @param note what the operator did, kept in the history of each transfer resolved
 * @returns the ids resolved, ascending
 * @throws StoreNotFoundError when there is no such transfer
 * @throws StoreTransitionError `STORE_TRANSITION_CONFLICT` when it is neither an unresolved `failure` nor an
 *   unresolved on-chain origin failure
 */
export async function resolveFailure(db: StoreDb, id: number, note: string, nowMs: number): Promise<number[]> {
  return db.transaction(async () => {
    const row = (await db.get(
      `SELECT status, resolved_at_ms, asset, origin_chain, destination_chain, refund_fail_reason FROM transfers WHERE id = ?${db.forUpdate}`,
      id,
    )) as FailureCheckDbRow | undefined; // six columns of one row, checked by FAILURE_CHECK_ROW
    if (!row) throw new StoreNotFoundError('transfers', id);
    const onChain =
      row.status === 'origin_failed' &&
      row.resolved_at_ms === null &&
      (await db.get(`SELECT 1 AS one FROM transfers t WHERE t.id = ? AND ${PAID_FOR_NOTHING}`, id)) !== undefined;
    const pausing = row.status === 'failure' || (row.status === 'refund' && row.refund_fail_reason !== null);
    if ((!pausing || row.resolved_at_ms !== null) && !onChain) {
      throw new StoreTransitionError(
        'STORE_TRANSITION_CONFLICT',
        'transfers',
        id,
        'failure (unresolved)',
        row.status,
        `transfer ${id} is ${row.status}${row.resolved_at_ms !== null ? ', already resolved' : ''}; only an unresolved failure, a refund that was not paid (refundFailReason), or an origin failure on chain (a reverted transaction, or a deposit ended by a mined cancel), can be resolved`,
      );
    }
    const ids = onChain
      ? (
          await db.all<{ id: number }>(
            `SELECT t.id FROM transfers t
              WHERE t.status = 'origin_failed' AND t.resolved_at_ms IS NULL AND t.asset = ? AND t.origin_chain = ? AND t.destination_chain = ?
                AND t.id <= ? AND ${PAID_FOR_NOTHING}
              ORDER BY t.id${db.forUpdate}`,
            row.asset,
            row.origin_chain,
            row.destination_chain,
            id,
          )
        ).map((r) => r.id)
      : [id];
    for (const resolved of ids) {
      await db.run(
        'UPDATE transfers SET resolved_at_ms = ?, resolution = ?, updated_at_ms = ? WHERE id = ? AND resolved_at_ms IS NULL',
        nowMs,
        note,
        nowMs,
        resolved,
      );
      await db.run(
        'INSERT INTO transfer_events (transfer_id, from_status, to_status, at_ms, detail) VALUES (?, ?, ?, ?, ?)',
        resolved,
        row.status,
        row.status,
        nowMs,
        `resolved by the operator: ${note}`,
      );
    }
    return ids;
  });
}
