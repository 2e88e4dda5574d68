/**
 * USD prices and base-unit ↔ micro-USD conversions for sandbox pricing. All money math is bigint: amounts
 * in token base units, USD in micro-USD (1e-6 USD, see `src/core/units.ts`).
 */
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Currency symbol → price of one whole unit in micro-USD (`ETH: 3000_000000n` = 3000 USD). */
export type UsdPrices = Readonly<Record<string, bigint>>;

/** Default sandbox prices in USD per whole unit: ETH 3000, SOL 150, BTC and WBTC 60000, stablecoins (USDC, USDT) 1. */
export const DEFAULT_PRICES_USD: Readonly<Record<string, string>> = {
  ETH: '3000',
  SOL: '150',
  BTC: '60000',
  WBTC: '60000',
  USDC: '1',
  USDT: '1',
};

/** Raised when a price is missing or not positive. `code` is stable. */
export class SandboxPriceError extends BallastError {
  readonly code = 'SANDBOX_PRICE_INVALID';
}

/**
 * Parses a symbol → USD decimal string table into micro-USD prices.
 *
 * @param prices e.g. `{ETH: "3000", USDC: "1"}`
 * @throws SandboxPriceError naming the symbol when a price is not a positive decimal string
 */
export function parsePrices(prices: Readonly<Record<string, string>>): UsdPrices {
  const out: Record<string, bigint> = {};
  for (const [symbol, usd] of Object.entries(prices)) {
    let micros: bigint;
    try {
      micros = parseUsdMicros(usd);
    } catch {
      throw new SandboxPriceError(`price of ${symbol}: expected a USD decimal string such as "3000", got ${usd}`);
    }
    if (micros <= 0n) throw new SandboxPriceError(`price of ${symbol} must be positive, got ${usd}`);
    out[symbol] = micros;
  }
  return out;
}

/**
 * Looks up a price.
 *
 * @returns micro-USD per whole unit
 * @throws SandboxPriceError when the symbol has no price (add it to the sandbox prices)
 */
export function priceOf(prices: UsdPrices, symbol: string): bigint {
  const p = prices[symbol];
  if (p === undefined) throw new SandboxPriceError(`no USD price for ${symbol}; add it to the sandbox prices`);
  return p;
}

/** Ceiling division of non-negative bigints. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/**
 * Value of a base-unit amount in micro-USD, rounded down.
 *
 * @param amount base units
 * @param decimals token decimals
 * @param priceMicros micro-USD per whole unit
 */
export function toUsdMicros(amount: bigint, decimals: number, priceMicros: bigint): bigint {
  return (amount * priceMicros) / 10n ** BigInt(decimals);
}

/**
 * Base units worth a micro-USD value, rounded up (used for fees, so a fee is never under-charged).
 *
 * @param usdMicros micro-USD (non-negative)
 * @param decimals token decimals
 * @param priceMicros micro-USD per whole unit
 */
export function fromUsdMicrosCeil(usdMicros: bigint, decimals: number, priceMicros: bigint): bigint {
  return ceilDiv(usdMicros * 10n ** BigInt(decimals), priceMicros);
}

/**
 * Converts an amount of one currency into another at their USD prices, rounded down. Equal decimals and
 * prices give the same amount back exactly.
 */
export function convertAmount(
  amount: bigint,
  from: { decimals: number; priceMicros: bigint },
  to: { decimals: number; priceMicros: bigint },
): bigint {
  return (amount * from.priceMicros * 10n ** BigInt(to.decimals)) / (to.priceMicros * 10n ** BigInt(from.decimals));
}

/** `amount × bps / 10000`, rounded up (fees). */
export function bpsOfCeil(amount: bigint, bps: number): bigint {
  return ceilDiv(amount * BigInt(bps), 10_000n);
}

/**
 * Formats a ratio `num/den` as a percent string with two decimals, rounded half away from zero like the live
 * API (the genuine quote fixture shows "-0.05" for a -0.0491 % impact). A value that rounds to zero is
 * "0.00", never "-0.00".
 *
 * @param num signed numerator (e.g. a micro-USD impact)
 * @param den positive denominator (e.g. the input's micro-USD value); a non-positive one gives "0.00"
 */
export function formatPercent(num: bigint, den: bigint): string {
  if (den <= 0n) return '0.00';
  const neg = num < 0n;
  // hundredths of a percent = |num| × 10000 / den, rounded half up on the magnitude.
  const hundredths = ((neg ? -num : num) * 20_000n + den) / (2n * den);
  const whole = hundredths / 100n;
  const frac = (hundredths % 100n).toString().padStart(2, '0');
  return `${neg && hundredths > 0n ? '-' : ''}${whole}.${frac}`;
}
