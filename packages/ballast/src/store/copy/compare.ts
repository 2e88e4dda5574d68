/**
 * The end-of-copy comparison of `ballast store copy`: per table the row count, the maximum key and the exact
 * sum of every base-unit amount column, on the source (SQLite, summed as bigint while the rows are read) and on
 * the target (PostgreSQL, `SUM(col::numeric)` in the copy's transaction). Pure functions plus one query.
 */
import type pg from 'pg';
import type { CopyTable } from './tables.ts';

/** Figures of one table on one side. Sums are exact decimal strings of base units; NULL amounts count as 0. */
export interface TableFigures {
  rows: bigint;
  /** Highest key, null for an empty table. */
  maxKey: bigint | null;
  /** Column → sum in base units. */
  sums: Record<string, bigint>;
}

/** Source and target figures of one table, and whether they agree. */
export interface TableComparison {
  table: string;
  source: TableFigures;
  target: TableFigures;
  /** Names of the figures that differ (`rows`, `maxKey`, `sum(<column>)`); empty when the table matches. */
  differences: string[];
}

/** Empty figures to accumulate a table's rows into. */
export function emptyFigures(table: CopyTable): TableFigures {
  return { rows: 0n, maxKey: null, sums: Object.fromEntries(table.amounts.map((c) => [c, 0n])) };
}

/**
 * Adds one source row to `figures`.
 *
 * @param row column → value as better-sqlite3 returns it with safe integers (bigint, string, null)
 * @throws Error naming the table, key and column when an amount is not a digit string (the schema's CHECK
 *   forbids it, so the source is damaged)
 */
export function addRow(figures: TableFigures, table: CopyTable, row: Record<string, unknown>): void {
  figures.rows += 1n;
  const key = BigInt(row[table.key] as bigint); // integer primary key, read with safeIntegers
  if (figures.maxKey === null || key > figures.maxKey) figures.maxKey = key;
  for (const col of table.amounts) {
    const v = row[col];
    if (v === null || v === undefined) continue;
    const s = String(v);
    if (!/^[0-9]+$/.test(s))
      throw new Error(`${table.name} ${table.key}=${key}: ${col} is ${JSON.stringify(s)}, not base units (digits only)`);
    figures.sums[col] = (figures.sums[col] ?? 0n) + BigInt(s);
  }
}

/**
 * Reads a table's figures on the target, inside the caller's transaction.
 *
 * @param client connected client
 */
export async function targetFigures(client: pg.Client, table: CopyTable): Promise<TableFigures> {
  const sums = table.amounts.map((c, i) => `, COALESCE(SUM(${c}::numeric), 0)::text AS s${i}`).join('');
  const res = await client.query<Record<string, string | null>>(
    `SELECT COUNT(*)::text AS n, MAX(${table.key})::text AS k${sums} FROM ${table.name}`,
  );
  const r = res.rows[0]!; // an aggregate returns one row
  return {
    rows: BigInt(r.n!), // COUNT is never null
    maxKey: r.k === null || r.k === undefined ? null : BigInt(r.k),
    sums: Object.fromEntries(table.amounts.map((c, i) => [c, BigInt(r[`s${i}`]!)])), // COALESCE: never null
  };
}

/** Compares source and target figures of one table. */
export function compareFigures(table: string, source: TableFigures, target: TableFigures): TableComparison {
  const differences: string[] = [];
  if (source.rows !== target.rows) differences.push('rows');
  if (source.maxKey !== target.maxKey) differences.push('maxKey');
  for (const [col, sum] of Object.entries(source.sums)) if (target.sums[col] !== sum) differences.push(`sum(${col})`);
  return { table, source, target, differences };
}
