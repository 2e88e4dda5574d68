/**
 * {@link StoreDb} over one better-sqlite3 connection (the embedded default, `store: ./ballast.db`).
 *
 * better-sqlite3 runs each statement synchronously, so a single statement is atomic with respect to the rest of
 * the process. A transaction spans `await`s, though, so while one is open the connection belongs to it: an
 * async mutex admits one transaction at a time, and calls from outside it wait for it to end (they would
 * otherwise land inside it). Calls inside it are recognised by their async context (AsyncLocalStorage).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import { StoreTxError, type RunResult, type SqlValue, type StoreDb } from './db.ts';

interface TxScope {
  db: SqliteStoreDb;
  depth: number;
  open: boolean;
}

/** Prepared statements kept per SQL text; dynamic texts (IN lists of varying length) are few in number. */
const STATEMENT_CACHE_LIMIT = 500;

const scopes = new AsyncLocalStorage<TxScope>();

/** A SQLite-backed {@link StoreDb}. Construct with {@link sqliteStoreDb}. */
export class SqliteStoreDb implements StoreDb {
  readonly dialect = 'sqlite' as const;
  readonly forUpdate = '';
  private readonly statements = new Map<string, Database.Statement>();
  private held: Promise<void> | undefined;
  private savepoints = 0;

  /**
   * @param sqlite an open, migrated connection (`openDatabase`, src/store/database.ts); owned from now on
   * @param location the file path, for messages
   */
  constructor(
    readonly sqlite: Database.Database,
    readonly location: string,
  ) {}

  async all<T>(sql: string, ...params: SqlValue[]): Promise<T[]> {
    return this.exec(() => this.statement(sql).all(...params) as T[]);
  }

  async get<T>(sql: string, ...params: SqlValue[]): Promise<T | undefined> {
    return this.exec(() => this.statement(sql).get(...params) as T | undefined);
  }

  async run(sql: string, ...params: SqlValue[]): Promise<RunResult> {
    return this.exec(() => ({ changes: this.statement(sql).run(...params).changes }));
  }

  inTransaction(): boolean {
    const scope = scopes.getStore();
    return scope?.db === this && scope.open;
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const outer = scopes.getStore();
    if (outer?.db === this) return this.savepoint(outer, fn);
    const release = await this.acquire();
    const scope: TxScope = { db: this, depth: 0, open: true };
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
      let result: T;
      try {
        result = await scopes.run(scope, fn);
      } catch (err) {
        scope.open = false;
        if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
        throw err;
      }
      scope.open = false;
      try {
        this.sqlite.exec('COMMIT');
      } catch (err) {
        // A failed COMMIT can leave the transaction open on the connection: end it so the next one can begin.
        if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
        throw err;
      }
      return result;
    } finally {
      scope.open = false;
      release();
    }
  }

  /** One process writes a SQLite store (the run lock), so a write-ahead is an ordinary transaction. */
  writeAhead<T>(fn: () => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }

  async close(): Promise<void> {
    while (this.held) await this.held;
    this.statements.clear();
    if (this.sqlite.open) this.sqlite.close();
  }

  private async savepoint<T>(scope: TxScope, fn: () => Promise<T>): Promise<T> {
    this.check(scope);
    const name = `sp_${++this.savepoints}`;
    this.sqlite.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      this.check(scope);
      this.sqlite.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      if (scope.open && this.sqlite.inTransaction) {
        this.sqlite.exec(`ROLLBACK TO ${name}`);
        this.sqlite.exec(`RELEASE ${name}`);
      }
      throw err;
    }
  }

  /**
   * Runs `op` (one synchronous statement) when the caller may use the connection: at once inside its own
   * transaction or when none is open, else when the open one ends. Nothing is awaited between the last check
   * and `op`, so a transaction cannot begin in between.
   */
  private async exec<R>(op: () => R): Promise<R> {
    const scope = scopes.getStore();
    if (scope?.db === this) {
      this.check(scope);
      return op();
    }
    while (this.held) await this.held;
    return op();
  }

  private check(scope: TxScope): void {
    if (!scope.open) {
      throw new StoreTxError(
        'STORE_TX_FINISHED',
        `a statement was issued for a transaction on ${this.location} that has already ended; await every store call inside transaction()`,
      );
    }
  }

  private async acquire(): Promise<() => void> {
    while (this.held) await this.held;
    let release!: () => void;
    this.held = new Promise<void>((resolve) => {
      release = resolve;
    });
    return () => {
      this.held = undefined;
      release();
    };
  }

  private statement(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= STATEMENT_CACHE_LIMIT) this.statements.clear();
      s = this.sqlite.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }
}

/**
 * Wraps an open, migrated better-sqlite3 connection as a {@link StoreDb}.
 *
 * @param sqlite the connection; closed by the returned store's `close()`
 * @param location the file path, for messages (defaults to the connection's `name`)
 */
export function sqliteStoreDb(sqlite: Database.Database, location: string = sqlite.name): SqliteStoreDb {
  return new SqliteStoreDb(sqlite, location);
}
