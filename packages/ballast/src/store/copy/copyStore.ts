/**
 * `ballast store copy`: moves an existing SQLite history into an empty, migrated PostgreSQL database without
 * loss. Everything is written in one PostgreSQL transaction: rows are inserted table by table (parents first,
 * src/store/copy/tables.ts) in key order with their ids kept, identity sequences are then moved past the
 * highest id, and before committing the row counts, maximum keys and exact amount sums of every table are
 * compared between the two stores (src/store/copy/compare.ts). Any difference rolls the whole copy back.
 *
 * The source is read inside one SQLite read transaction, so a daemon still writing to it cannot tear the copy
 * (WAL readers see one snapshot).
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { schemaVersion } from '../database.ts';
import { LATEST_SCHEMA_VERSION } from '../migrations.ts';
import { MIGRATE_LOCK_KEY, pgSchemaVersion } from '../pg/migrate.ts';
import { addRow, compareFigures, emptyFigures, targetFigures, type TableComparison } from './compare.ts';
import { StoreCopyError } from './errors.ts';
import { COPY_TABLES, NOT_COPIED, type CopyTable } from './tables.ts';

/** Rows per INSERT statement (well under PostgreSQL's 65 535 bind parameters for the widest table). */
const BATCH_ROWS = 500;

/** Parameters of {@link copyStore}. */
export interface CopyStoreParameters {
  /** Source store, opened read-only. */
  source: Database.Database;
  /** Connected client of the target database. */
  target: pg.Client;
  /** How to name the source and the target in messages (path; URL without its password). */
  sourceLabel: string;
  targetLabel: string;
}

/** Result of a committed copy: the per-table comparison (every entry without differences). */
export interface CopyStoreResult {
  schemaVersion: number;
  tables: TableComparison[];
}

/**
 * Copies every table of `source` into `target` and verifies the copy; see the module comment.
 *
 * @returns the comparison of every table, after the commit
 * @throws StoreCopyError `STORE_COPY_SCHEMA_MISMATCH` (versions or columns differ; nothing written),
 *   `STORE_COPY_TARGET_NOT_EMPTY` (a target table has rows; nothing written), `STORE_COPY_MISMATCH` (the
 *   comparison found a difference; rolled back, `comparison` holds the figures)
 * @throws the server's error (e.g. a CHECK violation by a damaged source row) after rolling back
 */
export async function copyStore(p: CopyStoreParameters): Promise<CopyStoreResult> {
  const version = await checkSchemas(p);
  p.source.exec('BEGIN'); // one read snapshot of the source for the whole copy
  try {
    await p.target.query('BEGIN');
    return await copyInTransaction(p, version);
  } catch (err) {
    await p.target.query('ROLLBACK').catch(() => undefined); // the error being thrown is the one to report
    throw err;
  } finally {
    p.source.exec('COMMIT');
  }
}

/** The copy inside the open target transaction; commits when every table matches. */
async function copyInTransaction(p: CopyStoreParameters, version: number): Promise<CopyStoreResult> {
  await p.target.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATE_LOCK_KEY]);
  await refuseNonEmpty(p);
  const tables: TableComparison[] = [];
  for (const table of COPY_TABLES) {
    const source = await copyTable(p, table);
    if (table.identity) {
      await p.target.query(
        `SELECT setval(pg_get_serial_sequence('${table.name}', '${table.key}'), COALESCE(MAX(${table.key}), 1), MAX(${table.key}) IS NOT NULL) FROM ${table.name}`,
      );
    }
    tables.push(compareFigures(table.name, source, await targetFigures(p.target, table)));
  }
  const bad = tables.filter((t) => t.differences.length > 0);
  if (bad.length > 0) {
    const what = bad.map((t) => `${t.table}: ${t.differences.join(', ')}`).join('; ');
    throw new StoreCopyError(
      'STORE_COPY_MISMATCH',
      `store copy ${p.sourceLabel} → ${p.targetLabel} rolled back: the copy differs from the source (${what}); nothing was kept in the target. Check for triggers or rules on the target tables, then copy again`,
      tables,
    );
  }
  await p.target.query('COMMIT');
  return { schemaVersion: version, tables };
}

/** Both stores at the current version with identical tables and columns; returns the version. */
async function checkSchemas(p: CopyStoreParameters): Promise<number> {
  const fail = (why: string) =>
    new StoreCopyError('STORE_COPY_SCHEMA_MISMATCH', `store copy ${p.sourceLabel} → ${p.targetLabel} refused: ${why}; nothing was copied`);
  const sourceVersion = schemaVersion(p.source);
  const targetVersion = await pgSchemaVersion(p.target);
  if (sourceVersion !== LATEST_SCHEMA_VERSION) {
    throw fail(
      `the source is at schema version ${sourceVersion}, this Ballast copies version ${LATEST_SCHEMA_VERSION}; run \`ballast migrate --store ${p.sourceLabel}\` first (or a matching Ballast release)`,
    );
  }
  if (targetVersion !== LATEST_SCHEMA_VERSION) {
    throw fail(
      `the target is at schema version ${targetVersion}, expected ${LATEST_SCHEMA_VERSION}; run \`ballast migrate --store <url>\` on it first`,
    );
  }
  const sourceTables = (
    p.source.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]
  ).map((r) => r.name); // rows of (name)
  const known = new Set([...COPY_TABLES.map((t) => t.name), ...NOT_COPIED]);
  const unknown = sourceTables.filter((t) => !known.has(t));
  if (unknown.length > 0) throw fail(`the source has table(s) this Ballast does not know: ${unknown.join(', ')}`);
  for (const table of COPY_TABLES) {
    const src = (p.source.prepare(`SELECT name FROM pragma_table_info('${table.name}') ORDER BY cid`).all() as { name: string }[]).map(
      (r) => r.name,
    ); // rows of (name)
    const res = await p.target.query<{ column_name: string }>(
      'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position',
      [table.name],
    );
    const dst = res.rows.map((r) => r.column_name);
    if (src.join(',') !== dst.join(','))
      throw fail(`table ${table.name} has columns (${src.join(', ')}) in the source but (${dst.join(', ')}) in the target`);
  }
  return sourceVersion;
}

/** Throws STORE_COPY_TARGET_NOT_EMPTY naming the first target table that holds rows. */
async function refuseNonEmpty(p: CopyStoreParameters): Promise<void> {
  for (const table of COPY_TABLES) {
    const res = await p.target.query<{ n: string }>(`SELECT COUNT(*)::text AS n FROM ${table.name}`);
    const n = res.rows[0]?.n ?? '0';
    if (n !== '0') {
      throw new StoreCopyError(
        'STORE_COPY_TARGET_NOT_EMPTY',
        `store copy ${p.sourceLabel} → ${p.targetLabel} refused: the target is not empty (table ${table.name} has ${n} row(s)); copy into a freshly created database migrated with \`ballast migrate --store <url>\`; nothing was copied`,
      );
    }
  }
}

/** Copies one table in key order, in batches; returns the source figures. */
async function copyTable(p: CopyStoreParameters, table: CopyTable): Promise<ReturnType<typeof emptyFigures>> {
  const columns = (p.source.prepare(`SELECT name FROM pragma_table_info('${table.name}') ORDER BY cid`).all() as { name: string }[]).map(
    (r) => r.name,
  ); // rows of (name)
  const page = p.source
    .prepare(`SELECT ${columns.join(', ')} FROM ${table.name} WHERE ${table.key} > ? ORDER BY ${table.key} LIMIT ${BATCH_ROWS}`)
    .safeIntegers(true);
  const figures = emptyFigures(table);
  let after: bigint = -(2n ** 63n);
  for (;;) {
    const rows = page.all(after) as Record<string, unknown>[]; // rows of the named columns
    if (rows.length === 0) break;
    const values: unknown[] = [];
    const tuples = rows.map((row, r) => {
      addRow(figures, table, row);
      for (const c of columns) values.push(toParam(row[c]));
      return `(${columns.map((_, i) => `$${r * columns.length + i + 1}`).join(', ')})`;
    });
    await p.target.query(`INSERT INTO ${table.name} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, values);
    after = rows[rows.length - 1]![table.key] as bigint; // non-empty page; the key is an integer read as bigint
  }
  return figures;
}

/** A SQLite value as a node-postgres parameter: integers (bigint) as decimal strings, the rest unchanged. */
function toParam(v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}
