/**
 * The ledger entry of one finished transfer (success, failure, refund or origin_failed), computed from what the store and the
 * API recorded. Pure; no I/O. Amounts are bigint base units, USD values micro-USD bigints (formatted to
 * decimal strings only when stored).
 */
import { QuoteResponseSchema, type QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { TransferRow } from '../store/transferRows.ts';
import { actualFeesOf, feesFromComponents, receivedAmountOf, type ComponentCosts } from './requestRecord.ts';

/**
 * Transfer statuses a ledger entry is written for. `origin_failed` entries carry only what the origin chain
 * charged (a reverted deposit's gas, the miner fee of a replacement that ended an unwanted Bitcoin deposit): no
 * order was filled, so there is nothing received and no Relay fee.
 */
export type LedgerStatus = 'success' | 'failure' | 'refund' | 'origin_failed';

/** The final statuses a ledger entry is written for, as a list (see {@link LedgerStatus}). */
export const LEDGER_STATUSES: readonly LedgerStatus[] = ['success', 'failure', 'refund', 'origin_failed'];

/** Whether a transfer status is one a ledger entry is written for. */
export function isLedgerStatus(status: string): status is LedgerStatus {
  return (LEDGER_STATUSES as readonly string[]).includes(status);
}

/** Where the received amount comes from (see src/ledger/requestRecord.ts). */
export type ReceivedSource = 'requests_v3_route_actual' | 'order_minimum' | 'none';
/** Where the fee components come from: the request's `data.fees.actual`, else the quote's `expandedPriceImpact`. */
export type FeesSource = 'requests_v3_actual' | 'quote_breakdown' | 'none';

/** One ledger entry. */
export interface LedgerEntry {
  transferId: number;
  status: LedgerStatus;
  asset: string;
  originChain: string;
  destinationChain: string;
  /** Origin base units paid into the order. */
  amountIn: bigint;
  /** Decimals of the input / output currency (the stored quote's `details.currencyIn/Out.currency.decimals`), null if unknown. */
  decimalsIn: number | null;
  decimalsOut: number | null;
  /** Destination base units: the order's summed `expectedAmount` and `minimumAmount` at quote time. */
  quotedExpectedOut: bigint;
  quotedMinOut: bigint;
  /** Destination base units received, null when unknown (failure, refund, or no source). */
  receivedOut: bigint | null;
  receivedSource: ReceivedSource;
  /** Fee costs per component, micro-USD; null when no source gave them (failure, refund, origin_failed). */
  fees: ComponentCosts | null;
  feesSource: FeesSource;
  /** Gas paid on the origin chain over every origin transaction, native base units; null when not read. */
  gasPaid: bigint | null;
  /** Decimals of the origin chain's native currency (for `gasPaid`). */
  gasDecimals: number;
  /** Gas paid in micro-USD, when a native price is known (see {@link nativeUsdPrice}). */
  gasUsdMicros: bigint | null;
  /** Sum of the fee components and gas, micro-USD (unknown parts count 0). */
  totalFeesUsdMicros: bigint;
  /** First origin signature, ms since the epoch (null for a transfer with no recorded transaction). */
  signedAtMs: number | null;
  /** When the transfer was closed with its final status (the store's transition), ms since the epoch. */
  settledAtMs: number;
  /** `settledAtMs - signedAtMs`, ms; null when either is unknown. */
  settleMs: number | null;
}

/** Inputs of {@link computeLedgerEntry}. */
export interface LedgerInputs {
  transfer: TransferRow;
  /** The stored POST /quote/v2 response (`quotes.raw_json`), null when the transfer has none. */
  quoteRaw: unknown;
  /** `data` of the transfer's GET /requests/v3 record, null when it could not be read. */
  requestData: unknown;
  /** Gas paid over the origin transactions (native base units), null when a lookup failed. */
  gasPaid: bigint | null;
  gasDecimals: number;
  /** Whether a currency id is the origin chain's native currency (compares in the chain's own spelling). */
  isOriginNative: (currency: string) => boolean;
  /** Fallback time of the close, ms, when the events do not show it. */
  nowMs: number;
}

/**
 * Computes the ledger entry of a final transfer (success, failure, refund or origin_failed).
 *
 * - received: `requests_v3_route_actual` for a `success` whose request record carries the delivered amount, else
 *   `order_minimum` (the order's guaranteed `minimumAmount`, a lower bound) for a success, else `none`.
 * - fees (success only): `data.fees.actual` when complete, else the quote's `details.expandedPriceImpact`.
 * - gas USD: `gasPaid` priced by {@link originNativeUsdPrice}: `fees.gas.amountUsd ÷ fees.gas.amount` of the
 *   quote's deprecated fee set (its origin gas estimate, priced by the API in the origin's native currency), else
 *   the input's own price when the payment is the native currency (a BTC or SOL transfer).
 * - settle: first `transfer_txs.signed_at_ms` → the transition to the final status.
 *
 * @throws Error when the transfer's status is not one of {@link LEDGER_STATUSES}
 */
export function computeLedgerEntry(input: LedgerInputs): LedgerEntry {
  const t = input.transfer;
  const status = t.status;
  if (!isLedgerStatus(status)) {
    throw new Error(`transfer ${t.id} is ${status}; a ledger entry is written for ${LEDGER_STATUSES.join(', ')} only`);
  }
  const parsed = QuoteResponseSchema.safeParse(input.quoteRaw);
  const quote = parsed.success ? parsed.data : null;
  const success = status === 'success';

  let receivedOut: bigint | null = null;
  let receivedSource: ReceivedSource = 'none';
  if (success) {
    const delivered = input.requestData === null ? null : receivedAmountOf(input.requestData);
    [receivedOut, receivedSource] = delivered !== null ? [delivered, 'requests_v3_route_actual'] : [t.minOut, 'order_minimum'];
  }

  let fees: ComponentCosts | null = null;
  let feesSource: FeesSource = 'none';
  if (success) {
    const actual = input.requestData === null ? null : actualFeesOf(input.requestData);
    const quoted = quote?.details.expandedPriceImpact ? feesFromComponents(quote.details.expandedPriceImpact) : null;
    if (actual) [fees, feesSource] = [actual, 'requests_v3_actual'];
    else if (quoted) [fees, feesSource] = [quoted, 'quote_breakdown'];
  }

  const price = quote ? originNativeUsdPrice(quote, input.isOriginNative) : null;
  const gasUsdMicros = input.gasPaid !== null && price ? (input.gasPaid * price.usdMicros) / price.amount : null;
  const totalFeesUsdMicros = Object.values(fees ?? {}).reduce((s, v) => s + v, 0n) + (gasUsdMicros ?? 0n);

  const signedAtMs = t.txs.length === 0 ? null : Math.min(...t.txs.map((x) => x.signedAtMs));
  const settledAtMs = t.events.filter((e) => e.toStatus === t.status).at(-1)?.atMs ?? input.nowMs;
  return {
    transferId: t.id,
    status,
    asset: t.asset,
    originChain: t.originChain,
    destinationChain: t.destinationChain,
    amountIn: t.amountIn,
    decimalsIn: quote?.details.currencyIn.currency.decimals ?? null,
    decimalsOut: quote?.details.currencyOut.currency.decimals ?? null,
    quotedExpectedOut: t.expectedOut,
    quotedMinOut: t.minOut,
    receivedOut,
    receivedSource,
    fees,
    feesSource,
    gasPaid: input.gasPaid,
    gasDecimals: input.gasDecimals,
    gasUsdMicros,
    totalFeesUsdMicros,
    signedAtMs,
    settledAtMs,
    settleMs: signedAtMs === null ? null : Math.max(0, settledAtMs - signedAtMs),
  };
}

/**
 * The USD price of the origin's native currency a quote implies: {@link nativeUsdPrice} of its deprecated
 * `fees.gas` member, else of `details.currencyIn` when the payment is in the native currency (`amountUsd` per
 * `amount`). Used for the origin cost before signing (src/policy/originCost.ts) and for the gas paid after.
 *
 * @param quote the parsed quote
 * @param isNative whether a currency id is the origin's native currency
 * @returns micro-USD per `amount` base units, or null when the quote prices the native currency nowhere
 */
export function originNativeUsdPrice(
  quote: Pick<QuoteResponse, 'fees' | 'details'>,
  isNative: (currency: string) => boolean,
): { usdMicros: bigint; amount: bigint } | null {
  const input = quote.details.currencyIn;
  return (
    nativeUsdPrice(quote.fees?.['gas'], isNative) ??
    nativeUsdPrice({ currency: input.currency, amount: input.amount, amountUsd: input.amountUsd }, isNative)
  );
}

/**
 * The USD price of the origin's native currency implied by the quote's deprecated `fees.gas` member (docs/relay-contract.md
 * "Deprecated fee set": origin chain gas fee, a Currency amount): `amountUsd` micro-USD per `amount` base units.
 *
 * @returns null when the member is absent, not in the native currency, zero, or without `amountUsd`
 */
export function nativeUsdPrice(
  gas: { currency: { address: string }; amount: string; amountUsd?: string | undefined } | undefined,
  isNative: (currency: string) => boolean,
): { usdMicros: bigint; amount: bigint } | null {
  if (!gas || gas.amountUsd === undefined || !isNative(gas.currency.address)) return null;
  if (!/^[0-9]+$/.test(gas.amount) || BigInt(gas.amount) === 0n) return null;
  const usdMicros = parseUsdMicros(gas.amountUsd);
  return usdMicros < 0n ? null : { usdMicros, amount: BigInt(gas.amount) };
}
