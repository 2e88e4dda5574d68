/**
 * Opens the store named by the `store:` setting: a SQLite file (created and migrated when missing) or a
 * PostgreSQL database (`postgres://…`, migrated under an advisory lock). The only place that chooses the engine.
 */
import { isPostgresUrl, redactStoreUrl } from '../config/storeUrl.ts';
import { openDatabase } from './database.ts';
import type { StoreDb } from './db.ts';
import { connectPostgres } from './pg/connect.ts';
import { migratePostgres } from './pg/migrate.ts';
import { openPgStoreDb, type PgStoreDb, type PgStoreDbOptions } from './pg/pgDb.ts';
import { sqliteStoreDb, type SqliteStoreDb } from './sqliteDb.ts';

/**
 * Opens and migrates a SQLite store file.
 *
 * @param file path of the file (`:memory:` for a private in-memory store)
 * @throws StoreOpenError / StoreSchemaError as `openDatabase` (src/store/database.ts)
 */
export function openSqliteStore(file: string): SqliteStoreDb {
  return sqliteStoreDb(openDatabase(file), file);
}

/**
 * Migrates a PostgreSQL store (one connection, then closed) and opens its pool.
 *
 * @param url `postgres://user[:password]@host[:port]/database`
 * @throws StoreOpenError (`STORE_UNAVAILABLE`) when the server cannot be reached; StoreSchemaError when the
 *   database was migrated by a newer Ballast; the server's error when a migration fails
 */
export async function openPgStore(url: string, options: PgStoreDbOptions = {}): Promise<PgStoreDb> {
  const client = await connectPostgres(url);
  try {
    await migratePostgres(client, redactStoreUrl(url));
  } finally {
    await client.end().catch(() => undefined); // migrated or failed: the connection is not needed any more
  }
  return openPgStoreDb(url, options);
}

/**
 * Opens the store of a `store:` setting, whichever engine it names.
 *
 * @param store a SQLite path (already resolved against the config file) or a PostgreSQL URL
 * @throws as {@link openSqliteStore} or {@link openPgStore}
 */
export async function openStore(store: string, options: PgStoreDbOptions = {}): Promise<StoreDb> {
  return isPostgresUrl(store) ? openPgStore(store, options) : openSqliteStore(store);
}
