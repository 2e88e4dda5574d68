/**
 * The store's one database interface, implemented for SQLite (`./sqliteDb.ts`, better-sqlite3) and PostgreSQL
 * (`./pg/pgDb.ts`, node-postgres). Every store module (transfers, quotes, withdrawals, …) is written once
 * against it, with one SQL text per statement in the subset both engines run the same way:
 *
 * - placeholders are `?` (the PostgreSQL implementation numbers them `$1, $2, …`);
 * - new row ids come from `INSERT … RETURNING id` (both engines), not from a driver's last-insert id;
 * - `IN` lists are spelled out with {@link inList}; JSON is parsed in TypeScript, not in SQL;
 * - 64-bit integer columns (ids, `*_ms` times, chain ids) come back as JS numbers from both; amounts are TEXT
 *   digits in both and are parsed with `BigInt` by the store modules.
 *
 * Transactions: {@link StoreDb.transaction} runs `fn` in one transaction; every call made on the same
 * `StoreDb` from inside `fn` (awaited, in its async context) goes to that transaction, so store functions that
 * open their own transaction compose (a nested one is a savepoint). Calls from elsewhere (the webhook receiver
 * while a cycle is inside a transaction) are not part of it: on SQLite they wait until it ends (one connection),
 * on PostgreSQL they run on another pooled connection. A transaction must never wait on the network.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** A value bound to a `?`: text, number, bigint (bound as its decimal text on PostgreSQL) or null. */
export type SqlValue = string | number | bigint | null;

/** Outcome of {@link StoreDb.run}: the number of rows the statement inserted, updated or deleted. */
export interface RunResult {
  changes: number;
}

/** Which engine a {@link StoreDb} speaks to. */
export type StoreDialect = 'sqlite' | 'postgres';

/** The database of one Ballast store, SQLite or PostgreSQL. All methods reject on a database error. */
export interface StoreDb {
  readonly dialect: StoreDialect;
  /** Where it lives, for messages: the SQLite file path or the PostgreSQL URL without its password. */
  readonly location: string;
  /**
   * `' FOR UPDATE'` on PostgreSQL, `''` on SQLite (whose write transactions already exclude each other): appended
   * to a `SELECT` inside a transaction that decides a write from what it read.
   */
  readonly forUpdate: string;
  /** All rows of a query, in order (possibly none). */
  all<T>(sql: string, ...params: SqlValue[]): Promise<T[]>;
  /** The first row of a query, or undefined. */
  get<T>(sql: string, ...params: SqlValue[]): Promise<T | undefined>;
  /** Runs a statement that returns no rows. */
  run(sql: string, ...params: SqlValue[]): Promise<RunResult>;
  /**
   * Runs `fn` in one transaction: committed when `fn` resolves, rolled back when it rejects (the rejection is
   * passed on). Inside `fn`, calls on this `StoreDb` belong to the transaction; a nested call is a savepoint.
   * SQLite takes the write lock at `BEGIN` (`BEGIN IMMEDIATE`).
   *
   * @throws StoreTxError (`STORE_TX_FINISHED`) when a call is made after the transaction it belongs to ended
   *   (a task started inside `fn` and left running)
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * A transaction that announces a signature (conventions "Persistence": the write-ahead row is committed before
   * anything is signed). On SQLite it is {@link transaction}; on PostgreSQL it first passes the leader lease's
   * fencing check, so a replica that is not the leader writes nothing and therefore signs nothing (docs/ha.md).
   *
   * @throws NotLeaderError / LeaseLostError (PostgreSQL) when this process does not hold the lease; nothing
   *   is written
   */
  writeAhead<T>(fn: () => Promise<T>): Promise<T>;
  /** Whether the caller is inside a {@link transaction} of this `StoreDb`. */
  inTransaction(): boolean;
  /** Closes the connection(s); waits for a running transaction first. */
  close(): Promise<void>;
}

/** Codes of {@link StoreTxError}. */
export type StoreTxErrorCode = 'STORE_TX_FINISHED';

/** Misuse of a transaction: a statement issued for a transaction that has already ended. */
export class StoreTxError extends BallastError {
  constructor(
    readonly code: StoreTxErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `(?, ?, …)` with one placeholder per value, for `col IN ${inList(values)}` with `...values` as parameters.
 *
 * @param values the list; must not be empty (`IN ()` is not SQL: test for an empty list before querying)
 * @throws RangeError on an empty list
 */
export function inList(values: readonly unknown[]): string {
  if (values.length === 0) throw new RangeError('inList: an IN list needs at least one value');
  return `(${values.map(() => '?').join(', ')})`;
}
