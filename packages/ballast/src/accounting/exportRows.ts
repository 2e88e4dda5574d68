/**
 * The rows of `ballast export`: one per leg of every transfer that moved money (the origin payment, the
 * destination receipt, a refund, a withdrawal) and one per cost paid (each Relay fee component, what a refund
 * kept, the origin network fee, a mined cancel's miner fee, a withdrawal transaction's gas). Pure; no I/O. Amounts
 * are bigint base units; USD figures decimal text at the quote's prices (src/accounting/quotePrices.ts).
 *
 * The pairing rule (docs/accounting.md "Internal transfers"): accounting tools pair an outgoing and an incoming
 * leg as one internal transfer only when their volumes are equal, so a payment is written as the amount that came
 * back (one payment row per return, each with the same volume in whole units as its return and a shared
 * `pairId`) and what did not come back is written apart: as fee rows when Relay kept it (a fill's fee components,
 * a refund's cost), as an unpaired payment when it is still in the depository.
 */
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { splitRelayFee } from './splitRelayFee.ts';
import { unitRateText, usdMicrosOf, type PricedAsset, type PriceSource } from './quotePrices.ts';
import type { Movement, TransferMovements, WalletRef } from './transferMovements.ts';

/** What a row is. */
export type RowKind = 'payment' | 'receipt' | 'refund' | 'withdrawal' | 'fee';

/** What a fee row paid for. */
export type FeeKind =
  | 'relay_execution'
  | 'relay_swap'
  | 'relay_platform'
  | 'relay_app'
  | 'relay_unattributed'
  | 'refund_fee'
  | 'network'
  | 'cancel_network'
  | 'withdrawal_network';

/** One export row, before a vendor format lays it out. */
export interface AccountingRow {
  transferId: number;
  requestId: string | null;
  kind: RowKind;
  feeKind: FeeKind | null;
  /** `out` for payments and fees, `in` for receipts, refunds and withdrawals. */
  direction: 'in' | 'out';
  atMs: number;
  /** The wallet whose balance the row changes, and the other wallet of the transfer (null for a fee). */
  wallet: WalletRef;
  counterparty: WalletRef | null;
  asset: string;
  decimals: number;
  /** Base units, > 0. */
  amount: bigint;
  /** USD per whole unit and USD value at quote time, decimal text; null when unpriced. */
  usdRate: string | null;
  usdValue: string | null;
  usdSource: PriceSource;
  txHash: string | null;
  /** Shared by an outgoing and an incoming leg of equal volume (one internal transfer); null otherwise. */
  pairId: string | null;
  note: string;
}

/** The period exported: rows with `sinceMs ≤ atMs < untilMs`. */
export interface ExportWindow {
  sinceMs: number;
  untilMs: number;
}

/**
 * Builds the rows of the given transfers that fall in `window`, ordered by time, then transfer, then as built.
 */
export function buildExportRows(transfers: readonly TransferMovements[], window: ExportWindow): AccountingRow[] {
  const rows = transfers.flatMap(rowsOfTransfer);
  const inWindow = rows.filter((r) => r.atMs >= window.sinceMs && r.atMs < window.untilMs);
  return inWindow
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.atMs - b.r.atMs || a.r.transferId - b.r.transferId || a.i - b.i)
    .map((x) => x.r);
}

/** The rows of one transfer, whatever their time. */
export function rowsOfTransfer(m: TransferMovements): AccountingRow[] {
  const rows: AccountingRow[] = [];
  const add = (mv: Movement, fields: RowFields, figures = priced(mv.amount, mv.asset)) =>
    rows.push({ ...base(m, mv), ...fields, ...figures });
  const pay = m.payment;
  if (pay) {
    const trade = m.input.symbol !== m.output.symbol;
    let left = pay.amount;
    for (const r of m.returns) {
      const cross = r.kind === 'receipt' && trade;
      const back = r.kind === 'receipt' ? convert(r.amount, m.output.decimals, m.input.decimals) : { amount: r.amount, exact: true };
      const paired = cross ? 0n : back.amount < left ? back.amount : left;
      const pairId = paired > 0n && back.exact ? `ballast-${m.transferId}-${r.kind}` : null;
      if (paired > 0n) {
        add({ ...pay, amount: paired }, leg('payment', 'out', r.wallet, pairId, describe(m, 'payment', r.kind, pairId)));
        left -= paired;
      }
      // A receipt beyond what was paid (a surplus) is written apart, so that the paired volumes stay equal.
      const pairedBack = paired > 0n && paired < back.amount ? convert(paired, m.input.decimals, m.output.decimals).amount : r.amount;
      add({ ...r, amount: pairedBack }, leg(r.kind, 'in', pay.wallet, pairId, describe(m, r.kind, cross ? 'trade' : r.kind, pairId)));
      if (pairedBack < r.amount) {
        add({ ...r, amount: r.amount - pairedBack }, leg(r.kind, 'in', pay.wallet, null, describe(m, r.kind, 'surplus', null)));
      }
    }
    if (left > 0n) {
      if (m.status === 'success' && !trade) {
        for (const share of splitRelayFee(left, m.relayFees)) {
          const feeKind: FeeKind = share.component === 'unattributed' ? 'relay_unattributed' : `relay_${share.component}`;
          const mv = { ...pay, amount: share.amount };
          add(
            mv,
            fee(feeKind, describe(m, 'fee', feeKind, null)),
            share.usdMicros === null ? undefined : relayPriced(m, share.usdMicros, pay.asset),
          );
        }
      } else if (m.returns.some((r) => r.kind === 'refund')) {
        add({ ...pay, amount: left }, fee('refund_fee', describe(m, 'fee', 'refund_fee', null)));
      } else {
        const how = trade && m.status === 'success' ? 'trade' : 'unreturned';
        add({ ...pay, amount: left }, leg('payment', 'out', m.destination, null, describe(m, 'payment', how, null)));
      }
    }
  }
  for (const nf of [m.networkFee, m.withdrawalFee]) if (nf) add(nf, fee(nf.kind, describe(m, 'fee', nf.kind, null, nf.txCount)));
  return rows;
}

type RowFields = Pick<AccountingRow, 'kind' | 'feeKind' | 'direction' | 'counterparty' | 'pairId' | 'note'>;

function leg(kind: RowKind, direction: 'in' | 'out', counterparty: WalletRef, pairId: string | null, note: string): RowFields {
  return { kind, feeKind: null, direction, counterparty, pairId, note };
}

function fee(feeKind: FeeKind, note: string): RowFields {
  return { kind: 'fee', feeKind, direction: 'out', counterparty: null, pairId: null, note };
}

type RowBase = Pick<AccountingRow, 'transferId' | 'requestId' | 'atMs' | 'wallet' | 'asset' | 'decimals' | 'amount' | 'txHash'>;

function base(m: TransferMovements, mv: Movement): RowBase {
  return {
    transferId: m.transferId,
    requestId: m.requestId,
    atMs: mv.atMs,
    wallet: mv.wallet,
    asset: mv.asset.symbol,
    decimals: mv.asset.decimals,
    amount: mv.amount,
    txHash: mv.txHash,
  };
}

type UsdFigures = Pick<AccountingRow, 'usdRate' | 'usdValue' | 'usdSource'>;

/** USD per whole unit and value of `amount` base units at the asset's quote price (null figures when unpriced). */
function priced(amount: bigint, asset: PricedAsset): UsdFigures {
  const p = asset.price;
  if (!p) return { usdRate: null, usdValue: null, usdSource: 'none' };
  return { usdRate: unitRateText(p, asset.decimals), usdValue: formatUsdMicros(usdMicrosOf(amount, p)), usdSource: p.source };
}

/** A Relay fee component's row: its own USD cost as Relay reported it, at the input asset's unit rate. */
function relayPriced(m: TransferMovements, usdMicros: bigint, asset: PricedAsset): UsdFigures {
  return {
    usdRate: asset.price ? unitRateText(asset.price, asset.decimals) : null,
    usdValue: formatUsdMicros(usdMicros),
    usdSource: m.relayFeesSource,
  };
}

/**
 * `amount` base units at `from` decimals in base units at `to` decimals; `exact` is false when digits below the
 * target's precision were dropped (rounded down).
 */
function convert(amount: bigint, from: number, to: number): { amount: bigint; exact: boolean } {
  if (to >= from) return { amount: amount * 10n ** BigInt(to - from), exact: true };
  const unit = 10n ** BigInt(from - to);
  return { amount: amount / unit, exact: amount % unit === 0n };
}

const WHAT: Readonly<Record<string, string>> = {
  'payment/receipt': 'internal transfer out: paid into the Relay order, the same volume received on the destination',
  'payment/refund': 'internal transfer out: paid into the Relay order, the same volume refunded to this wallet',
  'payment/withdrawal': 'internal transfer out: paid into the Relay depository, the same volume withdrawn back to this wallet',
  'payment/trade': 'paid into a Relay order that delivered another asset',
  'payment/unreturned': 'paid into the Relay depository and not returned (still there, or lost)',
  'receipt/receipt': 'internal transfer in: filled by Relay, the same volume paid on the origin',
  'receipt/trade': 'received from a Relay order paid in another asset',
  'receipt/surplus': 'received beyond what was paid',
  'refund/refund': 'internal transfer in: the payment refunded by Relay',
  'withdrawal/withdrawal': 'internal transfer in: the unfilled deposit withdrawn from the Relay depository',
  'fee/relay_execution': 'Relay fee, execution component: its share of paid − received',
  'fee/relay_swap': 'Relay fee, swap component: its share of paid − received',
  'fee/relay_platform': 'Relay fee, platform component: its share of paid − received',
  'fee/relay_app': 'Relay fee, app component: its share of paid − received',
  'fee/relay_unattributed': 'Relay fees: paid − received (no component breakdown recorded)',
  'fee/refund_fee': 'kept by Relay on the refund: paid − refunded',
  'fee/network': 'origin network fee (EVM gas, Solana fee and account rent, or Bitcoin miner fee)',
  'fee/cancel_network': 'miner fee of the mined replacement that cancelled the deposit',
  'fee/withdrawal_network': 'network fee of the transaction that withdrew the deposit from the Relay depository',
};

function describe(m: TransferMovements, kind: RowKind, how: string, pairId: string | null, txCount?: number): string {
  const parts = [
    WHAT[`${kind}/${how}`] ?? `${kind} (${how})`,
    `Ballast transfer ${m.transferId}`,
    `requestId ${m.requestId ?? 'none'}`,
    `from ${m.origin.chain}:${m.origin.address}`,
    `to ${m.destination.chain}:${m.destination.address}`,
  ];
  if (pairId) parts.push(`pair ${pairId}`);
  else if (['receipt', 'refund', 'withdrawal'].includes(how))
    parts.push("not paired: the volumes differ below the origin asset's precision");
  if (txCount !== undefined && txCount > 1) parts.push(`over ${txCount} origin transactions`);
  if (how === 'trade' && m.relayFees) {
    parts.push(
      `Relay fees in the rate: ${Object.entries(m.relayFees)
        .map(([k, v]) => `${k} ${formatUsdMicros(v)} USD`)
        .join(', ')}`,
    );
  }
  return parts.join('; ');
}
