/**
 * Opens the Ballast SQLite database (better-sqlite3): creates the parent directory and the file (mode 0600),
 * sets WAL journaling, foreign keys and a busy timeout, and applies pending migrations from `migrations.ts`.
 *
 * WAL lets the daemon write while `ballast history` reads from another process; `busy_timeout` makes a
 * writer wait (up to 5 s) for another writer instead of failing at once; `synchronous = FULL` makes every
 * commit durable before it returns (the write-ahead rows depend on it).
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StoreSchemaError } from './errors.ts';
import { StoreOpenError, storeOpenError } from './openError.ts';
import { MIGRATIONS, type Migration } from './migrations.ts';

/** Busy timeout in milliseconds. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating if needed) and migrates a database file.
 *
 * @param file path of the SQLite file (`:memory:` for a private in-memory database, without WAL)
 * @returns the open connection; the caller closes it
 * @throws StoreSchemaError (`STORE_SCHEMA_TOO_NEW`) when the file was migrated by a newer Ballast
 * @throws StoreOpenError (`STORE_OPEN_FAILED`: the path cannot hold the store, e.g. a parent is a file, no
 *   write access, a read-only file system, not a database; `STORE_UNAVAILABLE`: locked, disk full, I/O error)
 *   wrapping the file-system or SQLite error, its message naming `store: <path>`, the cause and the fix
 */
export function openDatabase(file: string): Database.Database {
  try {
    return openAndMigrate(file);
  } catch (err) {
    throw storeOpenError(err, file) ?? err;
  }
}

/**
 * Opens an existing database file read-only, without migrating it (`ballast migrate` reads its version first,
 * `ballast store copy` reads its history): nothing is created or changed.
 *
 * @param file path of the SQLite file; it must exist
 * @returns the open connection; the caller closes it
 * @throws StoreOpenError (`STORE_OPEN_FAILED` when the file is missing or is not a SQLite database;
 *   `STORE_UNAVAILABLE` when it is locked or unreadable), naming `store: <path>` and the fix
 */
export function openDatabaseReadOnly(file: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.prepare('SELECT COUNT(*) FROM sqlite_master').get(); // fails here on a file that is not a database
    return db;
  } catch (err) {
    db?.close();
    throw storeOpenError(err, file) ?? err;
  }
}

function openAndMigrate(file: string): Database.Database {
  const memory = file === ':memory:';
  if (!memory) {
    mkdirSync(dirname(file), { recursive: true });
    createPrivately(file);
  }
  const db = new Database(file);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!memory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') {
        throw new StoreOpenError(
          'STORE_OPEN_FAILED',
          file,
          `journal_mode=${String(mode)}`,
          `store: ${file} cannot be opened: SQLite could not enable WAL journaling there (journal_mode=${String(mode)}); set store: to a path on a local file system`,
          undefined,
        );
      }
    }
    // FULL: every commit is on disk before it returns. The write-ahead row of a transaction is committed just
    // before that transaction is broadcast; under NORMAL a power loss could drop the row while the transaction
    // is already on its way, and the funds would be planned again.
    db.pragma('synchronous = FULL');
    migrate(db, file, MIGRATIONS);
    db.pragma('foreign_keys = ON');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Creates a missing store file empty with mode 0600 (owner read and write only), so the history, addresses and
 * approvals it will hold are private from the first write; SQLite gives its `-wal` and `-shm` files the mode
 * of the database file. An existing file is left as it is.
 */
function createPrivately(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // fs errors carry an errno code
  }
}

/**
 * Applies the migrations newer than the database's version, all in one IMMEDIATE transaction (so two
 * processes starting together cannot both apply them). Foreign keys are off while they run (a migration may
 * rebuild a referenced table) and `PRAGMA foreign_key_check` must find nothing before the commit; the
 * connection's foreign-key setting is restored afterwards.
 *
 * @param db open connection
 * @param file path, for error messages
 * @param migrations migrations, versions 1..n in order
 * @returns the schema version after migrating
 * @throws StoreSchemaError when the database is newer than `migrations`
 * @throws Error when `migrations` is not numbered 1..n
 */
export function migrate(db: Database.Database, file: string, migrations: readonly Migration[]): number {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration "${m.name}" has version ${m.version}, expected ${i + 1}`);
  });
  const latest = migrations.length;
  const run = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version        INTEGER PRIMARY KEY,
      name           TEXT    NOT NULL,
      applied_at_ms  INTEGER NOT NULL
    )`);
    const current = schemaVersion(db);
    if (current > latest) throw new StoreSchemaError(file, current, latest);
    const insert = db.prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)');
    for (const m of migrations.slice(current)) {
      db.exec(m.sql);
      insert.run(m.version, m.name, Date.now());
    }
    const broken = db.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0)
      throw new Error(`migrating ${file} would break ${broken.length} foreign key reference(s): ${JSON.stringify(broken.slice(0, 3))}`);
    return Math.max(current, latest);
  });
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) === 1;
  db.pragma('foreign_keys = OFF'); // a no-op inside a transaction: migrate is never called inside one
  try {
    return run.immediate();
  } finally {
    if (foreignKeys) db.pragma('foreign_keys = ON');
  }
}

/**
 * Reads the schema version recorded in `schema_migrations` (0 for a fresh file).
 *
 * @param db open connection
 */
export function schemaVersion(db: Database.Database): number {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!exists) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }; // aggregate always returns one row
  return row.v ?? 0;
}
