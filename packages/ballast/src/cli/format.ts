/**
 * Human output helpers for the CLI: tables (cli-table3) and amount formatting (viem formatUnits).
 * Machine output (`--json`) goes through {@link toJson}, which writes bigints as decimal strings.
 */
import Table from 'cli-table3';
import { formatUnits } from 'viem';

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
