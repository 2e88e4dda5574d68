/**
 * Runs one store test suite against both engines: SQLite (a temp file, `openSqliteStore`) and PostgreSQL (a real
 * server on loopback, `openPgStore`, one database per store).
 *
 * Usage (wrap the whole file in ONE call, so the file starts at most one PostgreSQL server):
 *
 * ```ts
 * describeEachEngine('transfers store', (engine) => {
 *   let db: StoreDb;
 *   beforeEach(async () => { db = await engine.open(); });
 *   it('...', async () => { await createTransfer(db, ...); });
 * });
 * ```
 *
 * - `engine.open()` gives a fresh, migrated, empty store; every store opened is closed (and its temp directory
 *   removed) in afterEach. PostgreSQL stores are unfenced (`setFencing(null)`): a test is alone by construction.
 * - PostgreSQL: the run's shared server when the tier provides one (`inject('ballastPostgresUrl')`, see
 *   postgresRun.ts), else a server started in beforeAll of the postgres block and stopped in its afterAll. Each
 *   store is a database of its own, named `store_<random>_<n>` so that files sharing a server never collide.
 * - `BALLAST_TEST_ENGINES=sqlite` (or `postgres`) limits the engines, e.g. on a machine without PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject } from 'vitest';
import type { StoreDb, StoreDialect } from '../../packages/ballast/src/store/db.ts';
import { openPgStore, openSqliteStore } from '../../packages/ballast/src/store/openStore.ts';
import { createDatabase, startPostgres, type PostgresServer } from './postgres.ts';

/** One engine of {@link describeEachEngine}. */
export interface StoreEngine {
  readonly name: StoreDialect;
  /** A fresh, migrated, empty store (closed in afterEach). */
  open(): Promise<StoreDb>;
  /** Another handle on the same store as `db` (a second SQLite connection / a second PostgreSQL pool), closed in afterEach. */
  openAgain(db: StoreDb): Promise<StoreDb>;
  /** The `store:` setting of `db` (file path or URL), e.g. for a child process that calls `openStore`. */
  setting(db: StoreDb): string;
}

/** The engines to run: both, unless `BALLAST_TEST_ENGINES` names a subset (comma-separated). */
export function storeEngineNames(): StoreDialect[] {
  const env = process.env.BALLAST_TEST_ENGINES?.trim();
  const all: StoreDialect[] = ['sqlite', 'postgres'];
  if (!env) return all;
  const wanted = env.split(',').map((s) => s.trim());
  return all.filter((n) => wanted.includes(n));
}

/**
 * Declares `body` once per engine, in a `describe` named `<title> [<engine>]`. Call it once per test file
 * (each call's postgres block starts its own server).
 */
export function describeEachEngine(title: string, body: (engine: StoreEngine) => void): void {
  for (const name of storeEngineNames()) {
    describe(`${title} [${name}]`, () => {
      body(name === 'sqlite' ? sqliteEngine() : postgresEngine());
    });
  }
}

/** Registers its hooks in the calling describe block. */
function sqliteEngine(): StoreEngine {
  const opened: StoreDb[] = [];
  const settings = new Map<StoreDb, string>();
  const dirs: string[] = [];
  const track = (file: string): StoreDb => {
    const db = openSqliteStore(file);
    opened.push(db);
    settings.set(db, file);
    return db;
  };
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
    settings.clear();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'ballast-store-'));
      dirs.push(dir);
      return track(join(dir, 'ballast.db'));
    },
    async openAgain(db) {
      return track(settingOf(settings, db));
    },
    setting: (db) => settingOf(settings, db),
  };
}

/**
 * Registers its hooks in the calling describe block: the run's shared server when provided, else a server that
 * lives as long as the block.
 */
function postgresEngine(): StoreEngine {
  let server: PostgresServer | undefined;
  let serverUrl: string | undefined;
  let count = 0;
  const prefix = `store_${randomBytes(4).toString('hex')}_`; // unique per file on a shared server
  const opened: StoreDb[] = [];
  const settings = new Map<StoreDb, string>();
  beforeAll(async () => {
    serverUrl = inject('ballastPostgresUrl');
    if (serverUrl) return;
    server = await startPostgres();
    serverUrl = server.url;
  }, 60_000);
  afterEach(async () => {
    // A test may have closed a store itself; a pool ended twice rejects, which is no failure here.
    for (const db of opened.splice(0)) await db.close().catch(() => undefined);
    settings.clear();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const track = async (url: string): Promise<StoreDb> => {
    const db = await openPgStore(url);
    db.setFencing(null); // unfenced: the test is alone
    opened.push(db);
    settings.set(db, url);
    return db;
  };
  return {
    name: 'postgres',
    async open() {
      if (!serverUrl) throw new Error('postgres test server not started (engine.open() outside a test?)');
      return track(await createDatabase(serverUrl, `${prefix}${++count}`));
    },
    async openAgain(db) {
      return track(settingOf(settings, db));
    },
    setting: (db) => settingOf(settings, db),
  };
}

function settingOf(settings: Map<StoreDb, string>, db: StoreDb): string {
  const s = settings.get(db);
  if (s === undefined) throw new Error('this store was not opened by this engine in the current test');
  return s;
}

/** Kinds of integrity-constraint violation, as both engines report them. */
export type ConstraintKind = 'unique' | 'check' | 'foreign_key' | 'not_null';

const SQLITE_CODES: Record<string, ConstraintKind> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign_key',
  SQLITE_CONSTRAINT_NOTNULL: 'not_null',
};
const PG_SQLSTATES: Record<string, ConstraintKind> = {
  '23505': 'unique',
  '23514': 'check',
  '23503': 'foreign_key',
  '23502': 'not_null',
};

/**
 * The constraint an engine error reports: better-sqlite3's `SQLITE_CONSTRAINT_*` code or PostgreSQL's SQLSTATE
 * (`23505` unique, `23514` check, `23503` foreign key, `23502` not null); undefined for anything else.
 */
export function constraintKind(err: unknown): ConstraintKind | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  return SQLITE_CODES[code] ?? PG_SQLSTATES[code];
}

/**
 * Awaits `p`, expects it to reject with a constraint violation of `kind` and returns the error.
 *
 * @param mention optional text (e.g. a column name) the error must name: matched against SQLite's message
 *   (`UNIQUE constraint failed: transfers.request_id`) or PostgreSQL's message, detail and constraint name
 */
export async function expectConstraint(p: Promise<unknown>, kind: ConstraintKind, mention?: string): Promise<Error> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  if (err === undefined) throw new Error(`expected a ${kind} constraint violation, but the call succeeded`);
  if (constraintKind(err) !== kind) throw err; // shows the unexpected error as it is
  if (mention !== undefined) {
    const e = err as { message?: string; detail?: string; constraint?: string };
    expect([e.message, e.detail, e.constraint].filter(Boolean).join(' ')).toContain(mention);
  }
  return err as Error;
}

/** Column names of `table` in order, on either engine. */
export async function tableColumns(db: StoreDb, table: string): Promise<string[]> {
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<{ name: string }>('SELECT name FROM pragma_table_info(?) ORDER BY cid', table)
      : await db.all<{ name: string }>(
          `SELECT column_name AS name FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
          table,
        );
  return rows.map((r) => r.name);
}
