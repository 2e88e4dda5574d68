/**
 * Conversions at the metrics edge: token amounts (bigint base units) and USD decimal strings become float64
 * gauge values only here. Pure; no I/O.
 */
import { formatUnits } from 'viem';

/**
 * A base-unit amount in whole units as a gauge value (float64, about 15-16 significant digits).
 *
 * @param amount base units
 * @param decimals the token's decimals on that chain
 * @example unitsToGauge(1_500_000n, 6) === 1.5
 */
export function unitsToGauge(amount: bigint, decimals: number): number {
  return Number(formatUnits(amount, decimals));
}

/**
 * A USD price of an asset: `amount` base units (with `decimals`) are worth `usd` USD. From a quote's
 * `details.currencyIn` (docs/relay-contract.md "Currency amount": `amount`, `amountUsd`, `currency.decimals`) or a config
 * pin (`prices.<asset>`: one whole unit, i.e. `amount` 1 with `decimals` 0).
 */
export interface UsdPrice {
  /** USD decimal string. */
  usd: string;
  /** Base units the `usd` value is for; above 0. */
  amount: bigint;
  decimals: number;
  /** Where it came from: `config` (prices.<asset>) or `quote`. */
  source: 'config' | 'quote';
}

/** The `currencyIn` part of a quote's details that a price is taken from. */
export interface PricedAmount {
  amount: string;
  amountUsd?: string | undefined;
  currency: { decimals: number };
}

/**
 * The price carried by a quote's `details.currencyIn`, or null when it gives no USD value, a zero amount or a
 * value that is not a plain non-negative decimal.
 */
export function priceFromCurrencyIn(currencyIn: PricedAmount | undefined): UsdPrice | null {
  if (!currencyIn?.amountUsd || !/^[0-9]+(\.[0-9]+)?$/.test(currencyIn.amountUsd)) return null;
  if (!/^[0-9]+$/.test(currencyIn.amount)) return null;
  const amount = BigInt(currencyIn.amount);
  if (amount === 0n) return null;
  return { usd: currencyIn.amountUsd, amount, decimals: currencyIn.currency.decimals, source: 'quote' };
}

/** A configured pin (`prices.<asset>`, USD per whole unit) as a {@link UsdPrice}. */
export function pinnedPrice(usdPerUnit: string): UsdPrice {
  return { usd: usdPerUnit, amount: 1n, decimals: 0, source: 'config' };
}

/**
 * USD value of a balance as a gauge value: balance (whole units) × usd ÷ price amount (whole units).
 *
 * @param amount balance in base units with `decimals`
 */
export function usdValueToGauge(amount: bigint, decimals: number, price: UsdPrice): number {
  return (unitsToGauge(amount, decimals) * Number(price.usd)) / unitsToGauge(price.amount, price.decimals);
}
