/**
 * {@link StoreDb} over a node-postgres pool (`store: postgres://…`, several replicas sharing one database).
 *
 * - `?` placeholders are numbered `$1, $2, …` once per SQL text (string literals, quoted identifiers and
 *   comments are skipped); bigints are bound as decimal text.
 * - 64-bit integers (`int8`: ids, `*_ms` times, `COUNT(*)`) are read as JS numbers, and refused when beyond
 *   2^53 instead of being rounded; every other type keeps node-postgres' default. The parsers belong to this
 *   pool only (the global `pg.types` is left alone).
 * - A transaction holds one pooled connection from `BEGIN` to `COMMIT`/`ROLLBACK`; calls inside it (same async
 *   context) use that connection, calls from elsewhere use others. A connection whose `ROLLBACK` failed is
 *   dropped from the pool, not reused.
 * - Every connection runs with a statement timeout and an idle-in-transaction timeout (and, for replicas, a lock
 *   timeout and TCP keepalives derived from the lease), so a stuck statement or a client that stopped or was cut
 *   off mid-transaction cannot hold row locks (and the leader lease's row) for ever; the client gives up on a
 *   statement 5 s after the server should have ended it.
 * - Transactions run through `runPgTransaction` (src/store/pg/pgTransaction.ts): the held connection has an error
 *   listener, a lost connection rejects with `StoreConnectionError` (`STORE_CONNECTION_LOST`) and is dropped.
 * - A write-ahead transaction ({@link PgStoreDb.writeAhead}) first passes the lease's fencing check
 *   (src/store/pg/lease.ts, docs/ha.md) with the token of the term the process holds.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import { redactStoreUrl } from '../../config/storeUrl.ts';
import { NotLeaderError } from '../../ha/errors.ts';
import { StoreTxError, type RunResult, type SqlValue, type StoreDb } from '../db.ts';
import type { FencingToken } from './lease.ts';
import { loadPg } from './pgModule.ts';
import { keepAliveOptions, type PgKeepAlive } from './keepAlive.ts';
import { connectionError, fenceTransaction, runPgTransaction, type HeldConnection } from './pgTransaction.ts';

/** Options of {@link PgStoreDb}. */
export interface PgStoreDbOptions {
  /** Pool size (default 5): the cycle, the webhook receiver and withdrawals may each hold one. */
  max?: number;
  /** Per-statement limit, ms (default 30 000). */
  statementTimeoutMs?: number;
  /** A connection idle inside a transaction longer than this is closed by the server, ms (default 60 000). */
  idleInTransactionTimeoutMs?: number;
  /** A statement waiting for a lock longer than this fails on the server, ms (default: none besides the statement timeout). */
  lockTimeoutMs?: number;
  /**
   * Limit of every statement, lock wait and idle gap inside a write-ahead transaction once it passed the fencing
   * check (`SET LOCAL`, src/store/pg/pgTransaction.ts), ms; default none (the session's limits). Replicas derive it
   * from the lease (`leaseSessionLimits`, src/ha/leaseTiming.ts).
   */
  fencedLimitMs?: number;
  /**
   * TCP keepalive and user timeout of each connection, on both ends: the server drops a session whose peer
   * vanished (and with it any lock it holds) after `idleSec + intervalSec × count` without an answer, or when
   * data it sent stays unacknowledged `userTimeoutMs`. Default: the operating system's (hours).
   */
  keepAlive?: PgKeepAlive;
  /** Called with errors of idle pooled connections (a restart, a cut); the next query reconnects. */
  onIdleError?: (err: Error) => void;
}

/**
 * Where a write-ahead transaction gets its fencing token: the current term's token, or null when this process
 * does not lead (then the write is refused).
 */
export type FencingSource = () => FencingToken | null;

interface TxScope {
  db: PgStoreDb;
  held: HeldConnection;
  open: boolean;
  savepoints: number;
}

const scopes = new AsyncLocalStorage<TxScope>();
const INT8_OID = 20;

function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`a 64-bit integer column holds ${text}, beyond 2^53: read it as text (::text)`);
  return n;
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return parseInt8;
    const pgTypes = loadPg().types;
    return format === 'binary' ? pgTypes.getTypeParser(oid, 'binary') : pgTypes.getTypeParser(oid, 'text');
  },
} as pg.CustomTypesConfig;

const numbered = new Map<string, string>();

/**
 * Rewrites `?` placeholders as `$1, $2, …`, leaving `?` inside '…' literals, "…" identifiers and `--` comments.
 *
 * @param sql statement text with `?` placeholders
 * @returns the PostgreSQL text (cached per input)
 */
export function numberPlaceholders(sql: string): string {
  const cached = numbered.get(sql);
  if (cached !== undefined) return cached;
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i] as string;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  if (numbered.size < 2000) numbered.set(sql, out);
  return out;
}

function bind(params: readonly SqlValue[]): unknown[] {
  return params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
}

/** A PostgreSQL-backed {@link StoreDb}. Construct with {@link openPgStoreDb}. */
export class PgStoreDb implements StoreDb {
  readonly dialect = 'postgres' as const;
  readonly forUpdate = ' FOR UPDATE';
  readonly location: string;
  private fencing: FencingSource | null | undefined;

  /**
   * @param pool the pool, owned from now on (closed by `close()`)
   * @param url the store URL (kept only without its password, for messages)
   * @param fencedLimitMs see {@link PgStoreDbOptions.fencedLimitMs}; null keeps the session's limits
   */
  constructor(
    readonly pool: pg.Pool,
    url: string,
    private readonly fencedLimitMs: number | null = null,
  ) {
    this.location = redactStoreUrl(url);
  }

  async all<T>(sql: string, ...params: SqlValue[]): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async get<T>(sql: string, ...params: SqlValue[]): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async run(sql: string, ...params: SqlValue[]): Promise<RunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  inTransaction(): boolean {
    const scope = scopes.getStore();
    return scope?.db === this && scope.open;
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const outer = scopes.getStore();
    if (outer?.db === this) return this.savepoint(outer, fn);
    return runPgTransaction(this.pool, { location: this.location }, async (held) => {
      const scope: TxScope = { db: this, held, open: true, savepoints: 0 };
      try {
        return await scopes.run(scope, fn);
      } finally {
        scope.open = false; // a statement issued after this point is refused, not run outside the transaction
      }
    });
  }

  /**
   * Sets where write-ahead transactions get their fencing token. `null` runs them unfenced: only for a process
   * that is alone by construction (tests, `ballast store copy`), never for replicas.
   */
  setFencing(source: FencingSource | null): void {
    this.fencing = source;
  }

  /**
   * A transaction that announces a signature (a write-ahead row): it first locks the lease row and checks that
   * this process still holds it at its term's epoch (`assertLeaseHeld`), so a replica that lost the lease writes
   * nothing and therefore signs nothing.
   *
   * @throws NotLeaderError (`STORE_NOT_LEADER`) when the process has no current term; LeaseLostError
   *   (`STORE_LEASE_LOST`) when the lease moved on or expired on the database clock; nothing is written
   * @throws Error when no fencing source was set (a programming error: the daemon sets it when it starts)
   */
  async writeAhead<T>(fn: () => Promise<T>): Promise<T> {
    if (this.fencing === undefined) throw new Error(`write-ahead on ${this.location} without a fencing source: call setFencing() first`);
    if (this.fencing === null) return this.transaction(fn);
    const token = this.fencing();
    if (!token) throw new NotLeaderError(this.location);
    return this.transaction(async () => {
      const scope = scopes.getStore() as TxScope; // set by transaction()
      await fenceTransaction(scope.held, token, this.fencedLimitMs);
      return fn();
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async savepoint<T>(scope: TxScope, fn: () => Promise<T>): Promise<T> {
    const name = `sp_${++scope.savepoints}`;
    await this.query(`SAVEPOINT ${name}`, []);
    try {
      const result = await fn();
      await this.query(`RELEASE SAVEPOINT ${name}`, []);
      return result;
    } catch (err) {
      if (scope.open) await this.query(`ROLLBACK TO SAVEPOINT ${name}`, []);
      throw err;
    }
  }

  private async query(sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
    const scope = scopes.getStore();
    const text = numberPlaceholders(sql);
    if (scope?.db === this) {
      if (!scope.open) {
        throw new StoreTxError(
          'STORE_TX_FINISHED',
          `a statement was issued for a transaction on ${this.location} that has already ended; await every store call inside transaction()`,
        );
      }
      return scope.held.client.query({ text, values: bind(params), types });
    }
    try {
      return await this.pool.query({ text, values: bind(params), types });
    } catch (err) {
      throw connectionError(this.location, 'query', err);
    }
  }
}

/**
 * Creates the pool of a PostgreSQL store (connections are opened on first use; migrate with
 * `migratePostgres` before use).
 *
 * @param url `postgres://user[:password]@host[:port]/database[?params]`
 */
export function openPgStoreDb(url: string, options: PgStoreDbOptions = {}): PgStoreDb {
  const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
  const k = options.keepAlive;
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max: options.max ?? 5,
    connectionTimeoutMillis: 10_000,
    statement_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 60_000,
    ...(options.lockTimeoutMs !== undefined ? { lock_timeout: options.lockTimeoutMs } : {}),
    // The client gives up on a statement the server should have ended by now (a silent network): its
    // connection is then dropped, so a partition cannot hang a cycle until TCP gives up.
    query_timeout: statementTimeoutMs + 5_000,
    ...(k ? { options: keepAliveOptions(k), keepAlive: true, keepAliveInitialDelayMillis: k.idleSec * 1000 } : {}),
    types,
  });
  pool.on('error', (err) => options.onIdleError?.(err));
  return new PgStoreDb(pool, url, options.fencedLimitMs ?? null);
}
