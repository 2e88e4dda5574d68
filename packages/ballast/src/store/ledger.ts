/**
 * The per-transfer ledger (table `transfer_ledger`, migration 6): one row per finished transfer, written once.
 * Amounts are TEXT base units, USD values TEXT decimal strings, times integer ms.
 */
import { inList, type StoreDb } from './db.ts';
import { formatUsdMicros, parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { FeesSource, LedgerEntry, LedgerStatus, ReceivedSource } from '../ledger/ledgerEntry.ts';
import { rowShape } from './rowColumns.ts';
import { amountToText, checkMs, textToAmount } from './values.ts';

/** A stored ledger row as read back (amounts bigint, USD micro-USD bigint). */
export interface LedgerRow extends LedgerEntry {
  recordedAtMs: number;
}

/**
 * A `transfer_ledger` row as read (`SELECT *` / `l.*`): amounts TEXT base units, USD values TEXT decimal strings,
 * times integer ms. Query results are cast to it unchecked; {@link LEDGER_ROW} ties it to the migrated schema of
 * both engines (test/unit/store/rowTypes.test.ts).
 */
interface LedgerDbRow {
  transfer_id: number;
  status: LedgerStatus;
  asset: string;
  origin_chain: string;
  destination_chain: string;
  amount_in: string;
  decimals_in: number | null;
  decimals_out: number | null;
  quoted_expected_out: string;
  quoted_min_out: string;
  received_out: string | null;
  received_source: ReceivedSource;
  fee_execution_usd: string | null;
  fee_swap_usd: string | null;
  fee_platform_usd: string | null;
  fee_app_usd: string | null;
  fees_source: FeesSource;
  gas_paid: string | null;
  gas_decimals: number | null;
  gas_usd: string | null;
  total_fees_usd: string;
  signed_at_ms: number | null;
  settled_at_ms: number;
  settle_ms: number | null;
  recorded_at_ms: number;
}

/** Columns of {@link LedgerDbRow}: every column of `transfer_ledger`. */
export const LEDGER_ROW = rowShape<LedgerDbRow>({
  name: 'LedgerDbRow',
  table: 'transfer_ledger',
  allColumns: true,
  columns: {
    transfer_id: 'integer',
    status: 'text',
    asset: 'text',
    origin_chain: 'text',
    destination_chain: 'text',
    amount_in: 'text',
    decimals_in: 'integer?',
    decimals_out: 'integer?',
    quoted_expected_out: 'text',
    quoted_min_out: 'text',
    received_out: 'text?',
    received_source: 'text',
    fee_execution_usd: 'text?',
    fee_swap_usd: 'text?',
    fee_platform_usd: 'text?',
    fee_app_usd: 'text?',
    fees_source: 'text',
    gas_paid: 'text?',
    gas_decimals: 'integer?',
    gas_usd: 'text?',
    total_fees_usd: 'text',
    signed_at_ms: 'integer?',
    settled_at_ms: 'integer',
    settle_ms: 'integer?',
    recorded_at_ms: 'integer',
  },
});

/**
 * Inserts the ledger row of a transfer unless one exists (idempotent: a second close path or a retry writes
 * nothing).
 *
 * @returns true when the row was inserted now, false when it was already there
 * @throws StoreValueError on a negative amount; the engine's error when the database cannot be written
 */
export async function insertLedgerEntry(db: StoreDb, e: LedgerEntry, recordedAtMs: number): Promise<boolean> {
  const usd = (v: bigint | null | undefined) => (v === null || v === undefined ? null : formatUsdMicros(v));
  const info = await db.run(
    `INSERT INTO transfer_ledger (transfer_id, status, asset, origin_chain, destination_chain, amount_in, decimals_in,
         decimals_out, quoted_expected_out, quoted_min_out, received_out, received_source, fee_execution_usd, fee_swap_usd,
         fee_platform_usd, fee_app_usd, fees_source, gas_paid, gas_decimals, gas_usd, total_fees_usd, signed_at_ms, settled_at_ms,
         settle_ms, recorded_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (transfer_id) DO NOTHING`,
    e.transferId,
    e.status,
    e.asset,
    e.originChain,
    e.destinationChain,
    amountToText(e.amountIn, 'amountIn'),
    e.decimalsIn,
    e.decimalsOut,
    amountToText(e.quotedExpectedOut, 'quotedExpectedOut'),
    amountToText(e.quotedMinOut, 'quotedMinOut'),
    e.receivedOut === null ? null : amountToText(e.receivedOut, 'receivedOut'),
    e.receivedSource,
    usd(e.fees?.execution),
    usd(e.fees?.swap),
    usd(e.fees?.platform),
    usd(e.fees?.app),
    e.feesSource,
    e.gasPaid === null ? null : amountToText(e.gasPaid, 'gasPaid'),
    e.gasDecimals,
    usd(e.gasUsdMicros),
    formatUsdMicros(e.totalFeesUsdMicros),
    e.signedAtMs === null ? null : checkMs(e.signedAtMs, 'signedAtMs'),
    checkMs(e.settledAtMs, 'settledAtMs'),
    e.settleMs,
    checkMs(recordedAtMs, 'recordedAtMs'),
  );
  return info.changes === 1;
}

/** The ledger row of a transfer, or undefined. */
export async function getLedgerEntry(db: StoreDb, transferId: number): Promise<LedgerRow | undefined> {
  const row = (await db.get('SELECT * FROM transfer_ledger WHERE transfer_id = ?', transferId)) as LedgerDbRow | undefined; // columns checked by LEDGER_ROW
  return row ? fromDb(row) : undefined;
}

/** Ledger rows of transfers created at or after `sinceMs`, oldest first. */
export async function listLedgerSince(db: StoreDb, sinceMs: number): Promise<LedgerRow[]> {
  const rows = (await db.all(
    `SELECT l.* FROM transfer_ledger l JOIN transfers t ON t.id = l.transfer_id
       WHERE t.created_at_ms >= ? ORDER BY l.transfer_id`,
    sinceMs,
  )) as LedgerDbRow[]; // columns checked by LEDGER_ROW
  return rows.map(fromDb);
}

/** The ledger rows of the given transfers (those that have one), by transfer id. */
export async function ledgerEntriesOf(db: StoreDb, transferIds: readonly number[]): Promise<Map<number, LedgerRow>> {
  if (transferIds.length === 0) return new Map();
  const rows = (await db.all(`SELECT * FROM transfer_ledger WHERE transfer_id IN ${inList(transferIds)}`, ...transferIds)) as LedgerDbRow[]; // columns checked by LEDGER_ROW
  return new Map(rows.map((r) => [r.transfer_id, fromDb(r)]));
}

/**
 * Finished transfers (success, failure, refund, origin_failed) updated at or after `sinceMs` that have no ledger row yet, oldest
 * first, at most `limit` ids (a ledger write that failed, or a transfer closed by a webhook with no tracker).
 */
export async function transfersMissingLedger(db: StoreDb, sinceMs: number, limit: number): Promise<number[]> {
  const rows = (await db.all(
    `SELECT t.id FROM transfers t LEFT JOIN transfer_ledger l ON l.transfer_id = t.id
       WHERE l.transfer_id IS NULL AND t.status IN ('success', 'failure', 'refund', 'origin_failed') AND t.updated_at_ms >= ?
       ORDER BY t.id LIMIT ?`,
    sinceMs,
    limit,
  )) as { id: number }[]; // one column
  return rows.map((r) => r.id);
}

function fromDb(r: LedgerDbRow): LedgerRow {
  const micros = (v: string | null) => (v === null ? null : parseUsdMicros(v));
  const fees =
    r.fees_source === 'none'
      ? null
      : {
          execution: micros(r.fee_execution_usd) ?? 0n,
          swap: micros(r.fee_swap_usd) ?? 0n,
          platform: micros(r.fee_platform_usd) ?? 0n,
          app: micros(r.fee_app_usd) ?? 0n,
        };
  return {
    transferId: r.transfer_id,
    status: r.status,
    asset: r.asset,
    originChain: r.origin_chain,
    destinationChain: r.destination_chain,
    amountIn: textToAmount(r.amount_in, 'amount_in'),
    decimalsIn: r.decimals_in,
    decimalsOut: r.decimals_out,
    quotedExpectedOut: textToAmount(r.quoted_expected_out, 'quoted_expected_out'),
    quotedMinOut: textToAmount(r.quoted_min_out, 'quoted_min_out'),
    receivedOut: r.received_out === null ? null : textToAmount(r.received_out, 'received_out'),
    receivedSource: r.received_source,
    fees,
    feesSource: r.fees_source,
    gasPaid: r.gas_paid === null ? null : textToAmount(r.gas_paid, 'gas_paid'),
    gasDecimals: r.gas_decimals ?? 0,
    gasUsdMicros: micros(r.gas_usd),
    totalFeesUsdMicros: parseUsdMicros(r.total_fees_usd),
    signedAtMs: r.signed_at_ms,
    settledAtMs: r.settled_at_ms,
    settleMs: r.settle_ms,
    recordedAtMs: r.recorded_at_ms,
  };
}

/** Count of transfers of one route in one status (for `ballast report`). */
export interface RouteStatusCount {
  asset: string;
  originChain: string;
  destinationChain: string;
  status: string;
  count: number;
}

/** Transfers created at or after `sinceMs`, counted per (asset, origin, destination, status). */
export async function countTransfersByRoute(db: StoreDb, sinceMs: number): Promise<RouteStatusCount[]> {
  const rows = (await db.all(
    `SELECT asset, origin_chain, destination_chain, status, COUNT(*) AS n FROM transfers WHERE created_at_ms >= ?
       GROUP BY asset, origin_chain, destination_chain, status ORDER BY asset, origin_chain, destination_chain, status`,
    sinceMs,
  )) as { asset: string; origin_chain: string; destination_chain: string; status: string; n: number }[]; // columns named above
  return rows.map((r) => ({
    asset: r.asset,
    originChain: r.origin_chain,
    destinationChain: r.destination_chain,
    status: r.status,
    count: r.n,
  }));
}
