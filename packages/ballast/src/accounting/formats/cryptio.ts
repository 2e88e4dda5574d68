/**
 * Cryptio's custom CSV import (https://cryptio.support.site/article/how-to-import-transactions-using-the-custom-csv-template,
 * https://support.cryptio.co/hc/en-gb/articles/7063951851921-The-Ultimate-CSV-import-guide): its seventeen columns in
 * its order, `transactionDate` in UTC as `YYYY-MM-DD HH:MM:SS`, `orderType` in lower case (`deposit`, `withdraw`).
 * Pure; no I/O.
 *
 * - an incoming leg is a `deposit` with the incoming columns, an outgoing leg a `withdraw` with the outgoing ones;
 * - a fee row is a `withdraw` with only the fee columns (the fee of the transaction its `txhash` names);
 * - of unit rate and transaction value the template takes one: the USD value at quote time is written, the rate
 *   left blank (the note names the price's source);
 * - `txhash` is filled on every row and unique in the file: a row without an on-chain hash gets
 *   `ballast-<transfer>-<row>`, and a row after the first sharing a hash gets the hash with `-<row>` appended (the
 *   note keeps the plain hash);
 * - `otherParties`: the other wallet of an internal transfer.
 */
import type { AccountingRow } from '../exportRows.ts';
import { wholeUnits } from '../reconcile.ts';
import { rowLabel, uniqueHashes, usdNote, utcSeconds } from './formatParts.ts';

/** The template's header, in order. */
export const CRYPTIO_HEADER = [
  'transactionDate',
  'orderType',
  'txhash',
  'incomingAsset',
  'incomingVolume',
  'incomingUnitRate',
  'incomingTransactionValue',
  'outgoingAsset',
  'outgoingVolume',
  'outgoingUnitRate',
  'outgoingTransactionValue',
  'feeAsset',
  'feeVolume',
  'feeUnitRate',
  'feeTransactionValue',
  'otherParties',
  'note',
] as const;

/** One record per row, each a list of cells in {@link CRYPTIO_HEADER} order. */
export function cryptioRecords(rows: readonly AccountingRow[]): string[][] {
  const hashes = uniqueHashes(rows);
  return rows.map((r, i) => {
    const side = [r.asset, wholeUnits(r), '', r.usdValue ?? ''];
    const none = ['', '', '', ''];
    const [incoming, outgoing, fee] =
      r.kind === 'fee' ? [none, none, side] : r.direction === 'in' ? [side, none, none] : [none, side, none];
    return [
      utcSeconds(r.atMs),
      r.direction === 'in' ? 'deposit' : 'withdraw',
      hashes[i]!, // one per row
      ...incoming,
      ...outgoing,
      ...fee,
      r.counterparty?.address ?? '',
      `${rowLabel(r)}: ${r.note}; tx ${r.txHash ?? 'none'}; ${usdNote(r)}`,
    ];
  });
}
