/**
 * Amount and money helpers shared by every module.
 *
 * Token amounts are `bigint` in base units end to end. USD values stay decimal strings until they are
 * compared, and are compared as scaled bigints (micro-USD), never as floating point numbers.
 */
import { formatUnits, parseUnits } from 'viem';
import { z } from 'zod';

/**
 * Regex for an unsigned integer string in base units (docs/relay-contract.md: "Amounts are integer strings in the smallest
 * unit").
 */
export const UINT_STRING_RE = /^[0-9]+$/;
/** Regex for a signed integer string (the deprecated `fees.relayerService` may be negative). */
export const INT_STRING_RE = /^-?[0-9]+$/;
/** Regex for a signed decimal string such as an API `usd` field ("-0.02294"). */
export const DECIMAL_STRING_RE = /^-?[0-9]+(\.[0-9]+)?$/;

/** zod schema for an unsigned base-unit integer string. */
export const UintString = z.string().regex(UINT_STRING_RE, 'expected an unsigned integer string in base units');
/** zod schema for a signed integer string. */
export const IntString = z.string().regex(INT_STRING_RE, 'expected an integer string');
/** zod schema for a signed decimal string (USD values, percentages). */
export const DecimalString = z.string().regex(DECIMAL_STRING_RE, 'expected a decimal string such as "-0.02"');
/** zod schema for a 0x-prefixed hex string of any even or odd length. */
export const HexString = z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected a 0x-prefixed hex string');
/** zod schema for a 32-byte 0x-prefixed hex value (order ids, request ids, tx hashes). */
export const Bytes32Hex = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 32 bytes as 0x-prefixed hex');

/** Number of fractional digits kept by {@link parseUsdMicros}: 1 micro-USD = 0.000001 USD. */
export const USD_MICROS_DECIMALS = 6;

/**
 * Parses a USD decimal string into micro-USD as a bigint (viem `parseUnits`, which rounds digits beyond
 * six decimals; 1e-6 USD is far below any fee threshold an operator configures).
 *
 * @param usd decimal string such as "-0.022940" or "25"
 * @returns micro-USD (`"1.5"` → `1500000n`)
 * @throws TypeError when `usd` is not a decimal string
 */
export function parseUsdMicros(usd: string): bigint {
  if (!DECIMAL_STRING_RE.test(usd)) throw new TypeError(`not a USD decimal string: ${JSON.stringify(usd)}`);
  return parseUnits(usd, USD_MICROS_DECIMALS);
}

/**
 * Formats micro-USD as a decimal string (`1500000n` → `"1.5"`), via viem `formatUnits`.
 */
export function formatUsdMicros(micros: bigint): string {
  return formatUnits(micros, USD_MICROS_DECIMALS);
}

/**
 * Parses an unsigned base-unit integer string into a bigint.
 *
 * @param value integer string, e.g. "100000000"
 * @param field name used in the error, e.g. "details.currencyIn.amount"
 * @throws TypeError naming `field` when `value` is not an unsigned integer string
 */
export function parseBaseUnits(value: string, field: string): bigint {
  if (!UINT_STRING_RE.test(value)) {
    throw new TypeError(`${field}: expected an unsigned integer string in base units, got ${JSON.stringify(value)}`);
  }
  return BigInt(value);
}

/**
 * Converts a whole-unit decimal string (as written in config, e.g. "50000" or "0.5") into base units.
 * Unlike a bare `parseUnits`, refuses rather than rounds digits the token cannot represent.
 *
 * @param amount non-negative decimal string in whole units
 * @param decimals token decimals (USDC: 6, ETH: 18, BTC: 8)
 * @returns base units as bigint
 * @throws TypeError when `amount` is malformed or has more fractional digits than `decimals`
 */
export function wholeToBaseUnits(amount: string, decimals: number): bigint {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(amount)) {
    throw new TypeError(`expected a non-negative decimal amount in whole units, got ${JSON.stringify(amount)}`);
  }
  const frac = amount.split('.')[1] ?? '';
  if (frac.length > decimals) {
    throw new TypeError(`amount ${amount} has more than ${decimals} fractional digits`);
  }
  return parseUnits(amount, decimals);
}
