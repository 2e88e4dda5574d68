/**
 * Ballast's own CSV (`--format csv`): every field of a row, snake_case headers like `ballast report --csv`, dates
 * as ISO 8601 UTC, volumes in whole units and in base units. Pure; no I/O.
 */
import type { AccountingRow } from '../exportRows.ts';
import { wholeUnits } from '../reconcile.ts';

/** The header, in order. */
export const BALLAST_CSV_HEADER = [
  'date',
  'transfer_id',
  'request_id',
  'kind',
  'fee_kind',
  'direction',
  'chain',
  'wallet',
  'counterparty_chain',
  'counterparty',
  'asset',
  'decimals',
  'amount',
  'amount_base_units',
  'usd_unit_rate',
  'usd_value',
  'usd_source',
  'tx_hash',
  'pair_id',
  'note',
] as const;

/** One record per row, each a list of cells in {@link BALLAST_CSV_HEADER} order. */
export function ballastCsvRecords(rows: readonly AccountingRow[]): string[][] {
  return rows.map((r) => [
    new Date(r.atMs).toISOString(),
    String(r.transferId),
    r.requestId ?? '',
    r.kind,
    r.feeKind ?? '',
    r.direction,
    r.wallet.chain,
    r.wallet.address,
    r.counterparty?.chain ?? '',
    r.counterparty?.address ?? '',
    r.asset,
    String(r.decimals),
    wholeUnits(r),
    r.amount.toString(),
    r.usdRate ?? '',
    r.usdValue ?? '',
    r.usdSource,
    r.txHash ?? '',
    r.pairId ?? '',
    r.note,
  ]);
}
