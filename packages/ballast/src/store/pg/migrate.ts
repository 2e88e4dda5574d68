/**
 * Applying the PostgreSQL migrations (`./migrations.ts`): each pending migration in its own transaction
 * (PostgreSQL's DDL is transactional, so a failed migration leaves the previous version intact), with the
 * version recorded in `schema_migrations` like the SQLite store does (src/store/database.ts). Concurrent runs
 * (two replicas starting, a `ballast migrate` beside a daemon) are serialised by a session advisory lock.
 * After the numbered migrations the PostgreSQL-only `leader_lease` table (src/store/pg/lease.ts, `LEASE_DDL`) is
 * created when missing: it has no SQLite twin, so it stays outside the shared version numbers.
 */
import type pg from 'pg';
import { StoreSchemaError } from '../errors.ts';
import type { Migration } from '../migrations.ts';
import { ensureLeaseTable } from './lease.ts';
import { PG_MIGRATIONS } from './migrations.ts';

/**
 * Key of the advisory lock held while migrating or copying into a store (`pg_advisory_lock(bigint)`): the
 * ASCII bytes of "ballast" read as an integer, unlikely to collide with another application's key.
 */
export const MIGRATE_LOCK_KEY = '27691666020332404';

/** What `migratePostgres` did: the schema version before and after. */
export interface PgMigrateResult {
  before: number;
  after: number;
}

/**
 * Reads the schema version recorded in `schema_migrations` (0 when the table does not exist).
 *
 * @param client connected client
 */
export async function pgSchemaVersion(client: pg.Client): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (exists.rows[0]?.t == null) return 0;
  const row = await client.query<{ v: number | null }>('SELECT MAX(version)::int AS v FROM schema_migrations');
  return row.rows[0]?.v ?? 0;
}

/**
 * Applies the migrations newer than the database's version.
 *
 * @param client connected client (not inside a transaction)
 * @param label how to name the store in errors (the URL without its password)
 * @param migrations versions 1..n in order (default: every PostgreSQL migration)
 * @returns the version before and after
 * @throws StoreSchemaError (`STORE_SCHEMA_TOO_NEW`) when the database is newer than `migrations`
 * @throws Error when `migrations` is not numbered 1..n; the server's error when a migration fails (that
 *   migration is rolled back, earlier ones stay)
 */
export async function migratePostgres(
  client: pg.Client,
  label: string,
  migrations: readonly Migration[] = PG_MIGRATIONS,
): Promise<PgMigrateResult> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration "${m.name}" has version ${m.version}, expected ${i + 1}`);
  });
  await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATE_LOCK_KEY]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version        INTEGER PRIMARY KEY,
      name           TEXT    NOT NULL,
      applied_at_ms  BIGINT  NOT NULL
    )`);
    const before = await pgSchemaVersion(client);
    if (before > migrations.length) throw new StoreSchemaError(label, before, migrations.length);
    for (const m of migrations.slice(before)) {
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          Date.now(),
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined); // the migration's own error is the one to report
        throw err;
      }
    }
    // PostgreSQL-only, unversioned (SQLite has no counterpart, so the version numbers stay equal): the leader
    // lease table of src/store/pg/lease.ts, created when missing.
    await ensureLeaseTable(client);
    return { before, after: Math.max(before, migrations.length) };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATE_LOCK_KEY]);
  }
}
