/**
 * Conversions at the SQLite boundary: bigint base units ↔ TEXT decimal strings, JSON columns (bigints
 * written as decimal strings), millisecond timestamps.
 */
import { StoreValueError } from './errors.ts';

/**
 * Formats a non-negative bigint amount (base units) for a TEXT column.
 *
 * @param field field name for the error
 * @throws StoreValueError when the amount is negative
 */
export function amountToText(value: bigint, field: string): string {
  if (typeof value !== 'bigint') throw new StoreValueError(field, `expected a bigint amount in base units, got ${typeof value}`);
  if (value < 0n) throw new StoreValueError(field, `amount must not be negative, got ${value}`);
  return value.toString(10);
}

/**
 * Parses a TEXT amount column back to bigint.
 *
 * @throws StoreValueError when the column does not hold digits (only possible if written outside this module)
 */
export function textToAmount(value: string, field: string): bigint {
  if (!/^[0-9]+$/.test(value)) throw new StoreValueError(field, `stored amount is not an integer string: ${JSON.stringify(value)}`);
  return BigInt(value);
}

/**
 * Checks a millisecond timestamp.
 *
 * @throws StoreValueError when it is not a non-negative safe integer
 */
export function checkMs(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new StoreValueError(field, `expected integer milliseconds since the epoch, got ${value}`);
  }
  return value;
}

/**
 * JSON for TEXT columns. bigints become decimal strings (so a request with `value: 10n**18n` stores as
 * `"1000000000000000000"`); `undefined` fields are dropped as usual.
 *
 * @throws StoreValueError when the value cannot be serialised (cycles)
 */
export function toJsonText(value: unknown, field: string): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString(10) : v)) ?? 'null';
  } catch (err) {
    throw new StoreValueError(field, `cannot be stored as JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** Parses a JSON TEXT column (`null` column → `null`). */
export function fromJsonText(text: string | null): unknown {
  return text === null ? null : (JSON.parse(text) as unknown);
}
