/**
 * The assets of a transfer and their USD prices at the time of its quote, read from the stored POST /quote/v2
 * response (docs/relay-contract.md "details (quote response)", "Currency amount", "Deprecated fee set"). Pure; no
 * I/O. A price is the API's own `amountUsd` for an `amount` of base units, kept as that pair (micro-USD per base
 * units) so that every USD figure derived from it is exact integer arithmetic, never floating point.
 */
import { z } from 'zod';
import { formatUnits } from 'viem';
import { CurrencyAmountSchema } from '@ballast/protocol/relay/schemas.ts';
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { NATIVE_CURRENCY_BY_VM } from '@ballast/protocol/protocol/vmTypes.ts';

/** Where a USD figure comes from, as written in the exports (`usd_source`). */
export type PriceSource =
  | 'quote details.currencyIn'
  | 'quote details.currencyOut'
  | 'quote fees.gas'
  | 'request data.fees.actual'
  | 'quote details.expandedPriceImpact'
  | 'none';

/** `usdMicros` micro-USD for `amount` base units (> 0) of an asset, and where the pair was read. */
export interface UsdPrice {
  usdMicros: bigint;
  amount: bigint;
  source: Exclude<PriceSource, 'none'>;
}

/** An asset as the exports name it: the quote's symbol, its decimals, and its USD price at quote time (or null). */
export interface PricedAsset {
  symbol: string;
  decimals: number;
  price: UsdPrice | null;
}

/** The input, output and origin-native assets a stored quote names; null where the quote does not say. */
export interface QuoteAssets {
  input: PricedAsset | null;
  output: PricedAsset | null;
  /** The origin chain's native currency (what origin network fees are paid in). */
  native: PricedAsset | null;
}

const StoredQuote = z.looseObject({
  fees: z.record(z.string(), z.unknown()).optional(),
  details: z.looseObject({ currencyIn: CurrencyAmountSchema, currencyOut: CurrencyAmountSchema }),
});

const NATIVE_IDS = new Set(Object.values(NATIVE_CURRENCY_BY_VM).map((id) => id.toLowerCase()));

/**
 * Reads the assets of a stored quote.
 *
 * - input / output: `details.currencyIn` / `details.currencyOut` (symbol, decimals, `amountUsd` ÷ `amount`);
 * - native: `details.currencyIn` when it is the origin's native currency (its VM's native identifier, the larger and
 *   so more precise amount), else the deprecated fee set's `fees.gas` (the origin gas estimate, in the origin's
 *   native currency).
 *
 * @param raw the stored response (`quotes.raw_json`), unknown until parsed here
 * @returns every member null when the quote is missing or does not parse
 */
export function quoteAssets(raw: unknown): QuoteAssets {
  const parsed = StoredQuote.safeParse(raw);
  if (!parsed.success) return { input: null, output: null, native: null };
  const { currencyIn, currencyOut } = parsed.data.details;
  const input = pricedAsset(currencyIn, 'quote details.currencyIn');
  const gas = CurrencyAmountSchema.safeParse(parsed.data.fees?.['gas']);
  const native = NATIVE_IDS.has(currencyIn.currency.address.toLowerCase())
    ? input
    : gas.success && NATIVE_IDS.has(gas.data.currency.address.toLowerCase())
      ? pricedAsset(gas.data, 'quote fees.gas')
      : null;
  return { input, output: pricedAsset(currencyOut, 'quote details.currencyOut'), native };
}

function pricedAsset(c: z.infer<typeof CurrencyAmountSchema>, source: UsdPrice['source']): PricedAsset {
  const amount = BigInt(c.amount); // IntString checked the digits
  const usdMicros = c.amountUsd === undefined ? null : parseUsdMicros(c.amountUsd);
  const price = amount > 0n && usdMicros !== null && usdMicros >= 0n ? { usdMicros, amount, source } : null;
  return { symbol: c.currency.symbol, decimals: c.currency.decimals, price };
}

/**
 * USD value of `amount` base units at `price`, rounded half up to the micro-USD.
 *
 * @returns micro-USD
 */
export function usdMicrosOf(amount: bigint, price: UsdPrice): bigint {
  return (2n * amount * price.usdMicros + price.amount) / (2n * price.amount);
}

/** Fractional digits of a unit rate: 12, so that a token worth less than a micro-USD still has a rate. */
const RATE_DECIMALS = 12;

/**
 * USD per whole unit at `price`, as decimal text (up to 12 fractional digits, rounded half up, trailing zeros
 * dropped by viem `formatUnits`): `usdMicros × 10^decimals ÷ amount`.
 *
 * @param decimals the asset's decimals
 */
export function unitRateText(price: UsdPrice, decimals: number): string {
  const scale = 10n ** BigInt(decimals + RATE_DECIMALS - 6); // micro-USD → 10^-12 USD, per whole unit
  const scaled = (2n * price.usdMicros * scale + price.amount) / (2n * price.amount);
  return formatUnits(scaled, RATE_DECIMALS);
}
