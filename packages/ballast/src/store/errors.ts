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
