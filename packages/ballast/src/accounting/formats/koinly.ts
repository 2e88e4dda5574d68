/**
 * Koinly's universal import template (https://support.koinly.io/en/articles/9489976-how-to-create-a-custom-csv-file-with-your-data):
 * `Date` in UTC as `YYYY-MM-DD HH:MM UTC` (the page's "Koinly Date"), sent and received amounts with their
 * currency (token symbol), the fee, the USD worth, a tag, a description and the transaction hash. The column list
 * and order are those of the universal template as the Koinly format is documented at
 * https://adastry.io/learn/docs/export/transaction-csv (Koinly's own page links the template as a spreadsheet).
 * Pure; no I/O.
 *
 * - an outgoing leg fills the sent columns, an incoming leg the received columns; Koinly pairs a send and a receive
 *   of the same amount between two of your wallets as a transfer;
 * - a fee row is a send tagged `cost` (Koinly's expense tag for withdrawals,
 *   https://support.koinly.io/en/articles/9490023-what-are-tags): it is not taken for half of a transfer;
 * - `Net Worth Amount` is the USD value at quote time (`Net Worth Currency` USD).
 */
import type { AccountingRow } from '../exportRows.ts';
import { wholeUnits } from '../reconcile.ts';
import { rowLabel, usdNote, utcSeconds } from './formatParts.ts';

/** The universal template's header, in order. */
export const KOINLY_HEADER = [
  'Date',
  'Sent Amount',
  'Sent Currency',
  'Received Amount',
  'Received Currency',
  'Fee Amount',
  'Fee Currency',
  'Net Worth Amount',
  'Net Worth Currency',
  'Label',
  'Description',
  'TxHash',
] as const;

/** One record per row, each a list of cells in {@link KOINLY_HEADER} order. */
export function koinlyRecords(rows: readonly AccountingRow[]): string[][] {
  return rows.map((r) => {
    const amount = [wholeUnits(r), r.asset];
    const [sent, received] = r.direction === 'in' ? [['', ''], amount] : [amount, ['', '']];
    return [
      `${utcSeconds(r.atMs).slice(0, 16)} UTC`,
      ...sent,
      ...received,
      '',
      '',
      r.usdValue ?? '',
      r.usdValue === null ? '' : 'USD',
      r.kind === 'fee' ? 'cost' : '',
      `${rowLabel(r)}: ${r.note}; ${usdNote(r)}`,
      r.txHash ?? '',
    ];
  });
}
