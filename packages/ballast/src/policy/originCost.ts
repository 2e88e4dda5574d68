/**
 * The origin cost of a quote in micro-USD: what the origin chain charges the treasury for the quote's
 * transactions (src/verify/deposit/originCost.ts, native base units), priced with the quote's own price of the
 * origin's native currency. Pure; no I/O.
 *
 * Price (src/ledger/ledgerEntry.ts `originNativeUsdPrice`, which also prices the gas the ledger records as paid),
 * first that applies: the deprecated `fees.gas` member (docs/relay-contract.md "Deprecated fee set": origin chain gas fee,
 * `amountUsd` per `amount` base units of the native currency), else `details.currencyIn` when the payment is the native currency
 * itself (`amountUsd` per `amount`), else the price the caller fetched for the origin's native currency (GET
 * /currencies/token/price, src/cycle/originPrice.ts: POST /quote/v3 has no `fees.gas`). None: the cost is unknown
 * (the fee policy fails closed when a total cap needs it).
 */
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { originNativeUsdPrice } from '../ledger/ledgerEntry.ts';
import type { QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { estimateOriginCost, type OriginCostChain } from '../verify/deposit/originCost.ts';

export type { OriginCostChain } from '../verify/deposit/originCost.ts';

/**
 * A price of the origin's native currency the quote does not carry: `usdMicros` per `amount` native base units
 * (e.g. GET /currencies/token/price's price of one whole ETH: `{usdMicros: 3_000_000_000n, amount: 10n ** 18n}`), and
 * `source` saying where it came from (shown in the cost's `detail`).
 */
export interface NativeUsdPrice {
  usdMicros: bigint;
  amount: bigint;
  source: string;
}

/**
 * A quote's origin cost: native base units and micro-USD (rounded up), each null when unknown, with `detail`
 * saying how it was found or why it is unknown.
 */
export interface OriginCost {
  baseUnits: bigint | null;
  usdMicros: bigint | null;
  detail: string;
}

/**
 * Prices the origin cost of `quote` (rules in the file comment).
 *
 * @param quote the parsed quote
 * @param chain the origin chain's VM family and native-currency test
 * @param user our depositing wallet on the origin chain
 * @param fetched the native currency's price from elsewhere, used only when the quote prices it nowhere
 * @returns the cost; `usdMicros` null when either the amount or the price is unknown
 * @example
 * const cost = originCostOf(quote, { vm: 'bvm', isNative: (c) => c === BTC_CURRENCY }, wallet.address);
 * // { baseUnits: 1410n, usdMicros: 846_000n, detail: 'PSBT miner fee (inputs − outputs) 1410 sat = 0.846 USD' }
 */
export function originCostOf(quote: QuoteResponse, chain: OriginCostChain, user: string, fetched?: NativeUsdPrice): OriginCost {
  const estimate = estimateOriginCost(quote, chain, user);
  if (!estimate.ok) return { baseUnits: null, usdMicros: null, detail: estimate.why };
  const own = originNativeUsdPrice(quote, chain.isNative);
  const other = own === null && fetched !== undefined && fetched.amount > 0n && fetched.usdMicros > 0n ? fetched : null;
  const price = own ?? other;
  if (!price) {
    return {
      baseUnits: estimate.baseUnits,
      usdMicros: null,
      detail: `${estimate.how}, but the quote prices neither fees.gas nor the input in the origin's native currency`,
    };
  }
  const usdMicros = (estimate.baseUnits * price.usdMicros + price.amount - 1n) / price.amount; // rounded up
  const from = other ? ` at ${other.source}` : '';
  return { baseUnits: estimate.baseUnits, usdMicros, detail: `${estimate.how} = ${formatUsdMicros(usdMicros)} USD${from}` };
}

/**
 * Whether {@link originCostOf} would need a price from elsewhere: the amount is known but the quote prices the
 * origin's native currency nowhere. Lets the caller fetch a price only when it changes the answer.
 */
export function originCostNeedsPrice(quote: QuoteResponse, chain: OriginCostChain, user: string): boolean {
  return estimateOriginCost(quote, chain, user).ok && originNativeUsdPrice(quote, chain.isNative) === null;
}
