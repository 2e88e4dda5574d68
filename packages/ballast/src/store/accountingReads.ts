/**
 * What `ballast export` reads (src/accounting/): the finished transfers that may have moved money in a period,
 * each with its deposit transaction, ledger entry, withdrawal and stored quote. Written once against
 * {@link StoreDb}, so it reads SQLite and PostgreSQL alike; reads only.
 */
import type { TransferFacts } from '../accounting/transferMovements.ts';
import { inList, type StoreDb } from './db.ts';
import { ledgerEntriesOf } from './ledger.ts';
import { rawQuotesOf } from './quotes.ts';
import { depositTxOf, queryTransfers } from './transferRows.ts';
import { withdrawalsOfTransfers } from './withdrawals.ts';

/** Transfers read per query, so that an `IN` list stays far below either engine's limit on parameters. */
const PAGE = 500;

/**
 * Finished transfers (success, failure, refund, origin_failed, withdrawn) created before `untilMs` with any activity
 * at or after `sinceMs` (a status change, a refund follow-up, a withdrawal's end), oldest first, with what the
 * export needs of each. Every movement of a transfer lies between its creation and its last activity, so this is
 * every transfer with a movement in `[sinceMs, untilMs)` (and some without, which the export leaves out by time).
 *
 * @param sinceMs start of the period, ms since the epoch (inclusive)
 * @param untilMs end of the period, ms since the epoch (exclusive)
 * @throws the engine's error when the store cannot be read
 */
export async function listTransferFacts(db: StoreDb, sinceMs: number, untilMs: number): Promise<TransferFacts[]> {
  const ids = (
    await db.all<{ id: number }>(
      `SELECT id FROM transfers
        WHERE status IN ('success', 'failure', 'refund', 'origin_failed', 'withdrawn') AND created_at_ms < ?
          AND (updated_at_ms >= ? OR refund_checked_at_ms >= ?
               OR id IN (SELECT transfer_id FROM withdrawals WHERE finished_at_ms >= ?))
        ORDER BY id`,
      untilMs,
      sinceMs,
      sinceMs,
      sinceMs,
    )
  ).map((r) => r.id); // one column
  const facts: TransferFacts[] = [];
  for (let i = 0; i < ids.length; i += PAGE) {
    const page = ids.slice(i, i + PAGE);
    const transfers = await queryTransfers(db, `SELECT * FROM transfers WHERE id IN ${inList(page)} ORDER BY id`, ...page);
    const ledger = await ledgerEntriesOf(db, page);
    const withdrawals = await withdrawalsOfTransfers(db, page);
    const quoteIds = transfers.flatMap((t) => (t.quoteId === null ? [] : [t.quoteId]));
    const quotes = await rawQuotesOf(db, quoteIds);
    for (const t of transfers) {
      facts.push({
        transfer: t,
        depositTx: depositTxOf(t),
        ledger: ledger.get(t.id) ?? null,
        withdrawal: withdrawals.get(t.id) ?? null,
        quoteRaw: t.quoteId === null ? null : (quotes.get(t.quoteId) ?? null),
      });
    }
  }
  return facts;
}
