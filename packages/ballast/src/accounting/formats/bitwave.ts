/**
 * Bitwave's trade import (https://docs.bitwave.io/docs/importing-trades, "Importing Trades using the TradeLabel and
 * TradeID approach"): the rows of one trade share a `tradeId`; at least one `tradeAcquire` row (what was acquired),
 * at least one `tradeDispose` row (what was given), at most one `tradeFee` row; `blockchainId` left blank on trade
 * rows. Pure; no I/O.
 *
 * That page names the `transactionType`, `tradeId` and `blockchainId` columns and links the import template as a
 * spreadsheet, which is not a public web page; the other columns and their order here follow Bitwave's standard
 * transaction import template (`id`, `remoteContactId`, `amount`, `amountTicker`, `cost`, `costTicker`, `fee`,
 * `feeTicker`, `time`, …) without a public page to check them against: compare them with the template in your
 * Bitwave workspace before the first import (docs/accounting.md).
 *
 * One trade per transfer (`tradeId` `ballast-<transfer>`): outgoing legs and the fees Relay kept (in the input
 * asset) are `tradeDispose` rows, incoming legs `tradeAcquire` rows, and the origin network fee (the one cost in
 * another asset) the trade's single `tradeFee` row; the gas of a withdrawal transaction, a second cost in the native
 * asset, is a `tradeDispose` row (Bitwave takes at most one `tradeFee` per trade). `time` is unix seconds (UTC);
 * `cost` the USD value at quote time; the transaction hash is in `description`.
 */
import type { AccountingRow } from '../exportRows.ts';
import { wholeUnits } from '../reconcile.ts';
import { rowLabel, usdNote } from './formatParts.ts';

/** The header, in order. */
export const BITWAVE_HEADER = [
  'id',
  'remoteContactId',
  'amount',
  'amountTicker',
  'cost',
  'costTicker',
  'fee',
  'feeTicker',
  'time',
  'blockchainId',
  'memo',
  'transactionType',
  'accountId',
  'contactId',
  'categoryId',
  'taxExempt',
  'tradeId',
  'description',
  'fromAddress',
  'toAddress',
  'groupId',
] as const;

/** The `transactionType` of a row. */
export function bitwaveType(r: Pick<AccountingRow, 'direction' | 'feeKind'>): 'tradeAcquire' | 'tradeDispose' | 'tradeFee' {
  if (r.feeKind === 'network' || r.feeKind === 'cancel_network') return 'tradeFee';
  return r.direction === 'in' ? 'tradeAcquire' : 'tradeDispose';
}

/** One record per row, each a list of cells in {@link BITWAVE_HEADER} order. */
export function bitwaveRecords(rows: readonly AccountingRow[]): string[][] {
  const counts = new Map<number, number>();
  return rows.map((r) => {
    const n = (counts.get(r.transferId) ?? 0) + 1;
    counts.set(r.transferId, n);
    const [from, to] =
      r.direction === 'in' ? [r.counterparty?.address ?? '', r.wallet.address] : [r.wallet.address, r.counterparty?.address ?? ''];
    return [
      `ballast-${r.transferId}-${n}`,
      '',
      wholeUnits(r),
      r.asset,
      r.usdValue ?? '',
      r.usdValue === null ? '' : 'USD',
      '',
      '',
      String(Math.floor(r.atMs / 1000)),
      '',
      `${r.note}; ${usdNote(r)}`,
      bitwaveType(r),
      '',
      '',
      '',
      '',
      `ballast-${r.transferId}`,
      `${rowLabel(r)} ${r.wallet.chain}; tx ${r.txHash ?? 'none'}`,
      from,
      to,
      '',
    ];
  });
}
