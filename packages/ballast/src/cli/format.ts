/**
 * Human output helpers for the CLI: tables (cli-table3) and amount formatting (viem formatUnits).
 * Machine output (`--json`) goes through {@link toJson}, which writes bigints as decimal strings.
 *
 * Rounding for people, in every table and line a person reads (`--json`, `--raw` and CSV keep full precision):
 * - Token amounts that move or are held (transfers, balances, bands, limits, allowances) are exact whole units with
 *   the symbol (`20000.5 USDC`, {@link formatWhole}): operators reconcile them to the base unit.
 * - USD (fees quoted or paid, network cost in USD) is rounded half away from zero to the cent (`1.10235` →
 *   `1.10 USD`); a non-zero amount under half a cent keeps two significant digits (`0.0042 USD`), so a real cost
 *   never reads as zero ({@link formatUsd}).
 * - A network cost paid in the chain's native currency keeps four significant digits, half up, and never drops an
 *   integer digit (`0.000121102448624602` → `0.0001211 ETH`, `12.34567` → `12.35 ETH`) ({@link formatSignificant}).
 */
import Table from 'cli-table3';
import { formatUnits } from 'viem';
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';

/** Renders rows as a table with a header line. */
export function table(head: string[], rows: (string | number)[][]): string {
  const t = new Table({ head, style: { head: [], border: [] } });
  for (const r of rows) t.push(r.map((c) => String(c)));
  return t.toString();
}

/** Formats base units with the token's decimals, e.g. `formatAmount(1500000n, 6)` → "1.5". */
export function formatAmount(amount: bigint | null | undefined, decimals: number): string {
  if (amount === null || amount === undefined) return '—';
  return formatUnits(amount, decimals);
}

/** JSON with bigints as decimal strings (the project's wire format for amounts). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2);
}

/** Shortens a 0x hash for tables: 0x1234…abcd. */
export function shortHash(hash: string | null | undefined): string {
  if (!hash) return '—';
  return hash.length > 14 ? `${hash.slice(0, 8)}…${hash.slice(-4)}` : hash;
}

/**
 * An amount for people: whole units with the symbol (`100.5 USDC`), or, when the decimals are unknown, the base
 * units said as such (`100500000 base units (decimals unknown)`).
 */
export function formatWhole(amount: bigint, decimals: number | null, symbol: string): string {
  return decimals === null ? `${amount} base units (decimals unknown)` : `${formatUnits(amount, decimals)} ${symbol}`;
}

/** Significant digits kept by {@link formatSignificant} for a network cost in the native currency. */
export const NATIVE_SIGNIFICANT_DIGITS = 4;

/**
 * Rounds base units to `digits` significant digits (half up), never dropping an integer digit, and formats them in
 * whole units without trailing zeros: `formatSignificant(121102448624602n, 18)` → `"0.0001211"`.
 *
 * @param amount base units (a negative amount is rounded by its magnitude)
 * @param decimals the currency's decimals
 * @param digits significant digits to keep (≥ 1)
 */
export function formatSignificant(amount: bigint, decimals: number, digits = NATIVE_SIGNIFICANT_DIGITS): string {
  if (amount < 0n) return `-${formatSignificant(-amount, decimals, digits)}`;
  if (amount === 0n) return '0';
  // Exponent of the most significant digit (10^e), then the fractional digits to keep: down to 10^(e - digits + 1),
  // never more than the currency has, never fewer than none.
  const e = amount.toString().length - 1 - decimals;
  const keep = Math.min(decimals, Math.max(0, digits - 1 - e));
  const drop = 10n ** BigInt(decimals - keep);
  return formatUnits((amount + drop / 2n) / drop, keep);
}

/**
 * USD for people (see the rounding rules above): `1102350n` micro-USD → `"1.10 USD"`, `4213n` → `"0.0042 USD"`,
 * null → `"—"` (unknown).
 *
 * @param micros micro-USD (1 USD = 1 000 000)
 */
export function formatUsd(micros: bigint | null): string {
  return micros === null ? '—' : `${roundUsd(micros)} USD`;
}

/** The number of {@link formatUsd} without the unit (`1102350n` → `"1.10"`), for a column or list already labelled USD. */
export function roundUsd(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  if (abs !== 0n && abs < 5_000n) return `${sign}${formatSignificant(abs, 6, 2)}`;
  const cents = (abs + 5_000n) / 10_000n;
  return `${cents === 0n ? '' : sign}${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/**
 * {@link formatUsd} of a USD decimal string as the API and the store keep it (`"1.10235"` → `"1.10 USD"`); null
 * or a string that is not a decimal number → `"—"`.
 */
export function formatUsdText(usd: string | null | undefined): string {
  if (usd === null || usd === undefined) return '—';
  try {
    return formatUsd(parseUsdMicros(usd));
  } catch {
    return '—'; // not a decimal string (parseUsdMicros throws TypeError): shown as unknown, never guessed
  }
}

/**
 * A network cost in the native currency for people: four significant digits and the symbol (`0.0001211 ETH`);
 * with unknown decimals, the base units said as such.
 */
export function formatNative(amount: bigint, decimals: number | null, symbol: string): string {
  return decimals === null ? `${amount} base units of ${symbol} (decimals unknown)` : `${formatSignificant(amount, decimals)} ${symbol}`;
}
