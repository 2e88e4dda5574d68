/**
 * Store errors. Each family has a class with a stable `code`; SQLite's own errors (constraint violations,
 * I/O) are rethrown unchanged as `SqliteError` from better-sqlite3 with their `SQLITE_*` code.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Codes of {@link StoreTransitionError}. */
export type StoreTransitionCode = 'STORE_TRANSITION_CONFLICT' | 'STORE_TRANSITION_ILLEGAL';

/**
 * A guarded state change did not apply.
 *
 * - `STORE_TRANSITION_CONFLICT`: the row was not in the expected state (another writer moved it, or it does
 *   not exist); nothing was changed. Re-read the row and decide again.
 * - `STORE_TRANSITION_ILLEGAL`: the requested transition is not in the allowed table; a programming error.
 */
export class StoreTransitionError extends BallastError {
  readonly code: StoreTransitionCode;
  /** Table of the row (`transfers`, `transfer_txs`). */
  readonly table: string;
  /** Row id. */
  readonly id: number;
  /** Expected current state(s). */
  readonly from: string;
  /** Requested new state. */
  readonly to: string;

  constructor(code: StoreTransitionCode, table: string, id: number, from: string, to: string, message: string) {
    super(message);
    this.code = code;
    this.table = table;
    this.id = id;
    this.from = from;
    this.to = to;
  }
}

/**
 * The database file was written by a newer Ballast (its schema version is above the latest migration this
 * code knows). Code `STORE_SCHEMA_TOO_NEW`. Upgrade Ballast or point `store:` at another file; never
 * downgrade a database in place.
 */
export class StoreSchemaError extends BallastError {
  readonly code = 'STORE_SCHEMA_TOO_NEW' as const;
  /** Path of the database file. */
  readonly file: string;
  /** Version found in `schema_migrations`. */
  readonly foundVersion: number;
  /** Latest version this code knows. */
  readonly knownVersion: number;

  constructor(file: string, foundVersion: number, knownVersion: number) {
    super(
      `database ${file} has schema version ${foundVersion} but this Ballast knows up to ${knownVersion}; ` +
        'run a Ballast release at least as new as the one that last wrote it, or set store: to another file',
    );
    this.file = file;
    this.foundVersion = foundVersion;
    this.knownVersion = knownVersion;
  }
}

/**
 * A value handed to the store cannot be stored as given (negative amount, non-integer time...).
 * Code `STORE_VALUE_INVALID`; the message names the field.
 */
export class StoreValueError extends BallastError {
  readonly code = 'STORE_VALUE_INVALID' as const;
  /** The offending field, e.g. `amountIn`. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

/** A row the caller named does not exist. Code `STORE_NOT_FOUND`. */
export class StoreNotFoundError extends BallastError {
  readonly code = 'STORE_NOT_FOUND' as const;
  /** Table searched. */
  readonly table: string;
  /** Id looked up. */
  readonly id: number;

  constructor(table: string, id: number) {
    super(`${table} row ${id} does not exist; re-read the list of ${table} before updating`);
    this.table = table;
    this.id = id;
  }
}

/** When a {@link StoreConnectionError} struck: the outcome of the work differs. */
export type StoreConnectionPhase = 'connect' | 'query' | 'transaction' | 'commit';

/**
 * The connection to a PostgreSQL store was lost (code `STORE_CONNECTION_LOST`): reset, ended by the server
 * (restart, `pg_terminate_backend`, a server-side timeout such as `idle_in_transaction_session_timeout`), or
 * silent past the client's own deadline. The connection is dropped from the pool; the next statement opens a
 * new one.
 *
 * - `connect`: no connection could be opened; nothing ran.
 * - `query`: one statement outside a transaction; whether it ran is unknown only for a write.
 * - `transaction`: the transaction did not commit; nothing of it is in the store.
 * - `commit`: the COMMIT was sent and no answer came back: it may or may not have committed. Nothing that
 *   depends on it may follow (a write-ahead row so struck is never signed); the store is re-read first.
 */
export class StoreConnectionError extends BallastError {
  readonly code = 'STORE_CONNECTION_LOST' as const;

  /**
   * @param location the store URL without its password
   * @param phase when the connection was lost
   * @param cause the driver's or the socket's error
   */
  constructor(
    readonly location: string,
    readonly phase: StoreConnectionPhase,
    cause: unknown,
  ) {
    const reason = describeCause(cause);
    const outcome: Record<StoreConnectionPhase, string> = {
      connect: 'no connection could be opened and nothing ran',
      query: 'the statement may not have run',
      transaction: 'the transaction was rolled back and nothing of it was stored',
      commit: 'the COMMIT got no answer: whether it committed is unknown, and nothing depending on it is done before the store is re-read',
    };
    super(`the connection to store ${location} was lost (${reason}); ${outcome[phase]}; the next statement reconnects`, { cause });
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown }).code; // net and pg errors carry a code
  return typeof code === 'string' && code !== '' ? `${code}: ${cause.message}` : cause.message;
}
