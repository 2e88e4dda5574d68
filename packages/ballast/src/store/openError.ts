/**
 * Errors of opening the store (`openDatabase`): the file system's errno errors (creating the directory) and
 * better-sqlite3's `SqliteError`s (opening, journaling, migrating) become one coded error whose message names
 * the `store:` setting, the path, the cause and the fix, for a one-line startup failure instead of a stack.
 *
 * - `STORE_OPEN_FAILED`: the path cannot hold the store (a parent is a file, no permission, read-only file
 *   system, a directory or a non-database file at the path, a corrupt file). Restarting does not help; the CLI
 *   exits 2, so a supervisor stops restarting (systemd `RestartPreventExitStatus=2`).
 * - `STORE_UNAVAILABLE`: the store could not be opened this time (locked by another process beyond the busy
 *   timeout, disk full, I/O error). The CLI exits 1; a restart may succeed.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Codes of {@link StoreOpenError}. */
export type StoreOpenCode = 'STORE_OPEN_FAILED' | 'STORE_UNAVAILABLE';

/** The store file could not be opened or prepared; see the module comment for the two codes. */
export class StoreOpenError extends BallastError {
  readonly code: StoreOpenCode;
  /** Path of the database file, as configured. */
  readonly file: string;
  /** The underlying errno (`ENOTDIR`, `EROFS`...) or SQLite (`SQLITE_CANTOPEN`...) code. */
  readonly reason: string;

  constructor(code: StoreOpenCode, file: string, reason: string, message: string, cause: unknown) {
    super(message, { cause });
    this.code = code;
    this.file = file;
    this.reason = reason;
  }
}

/** What went wrong and what to do, for one error code. */
interface Diagnosis {
  permanent: boolean;
  cause: string;
  fix: string;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function diagnose(reason: string, file: string): Diagnosis {
  const dir = dirname(file);
  const writable = `give the Ballast user write access to ${dir} (SQLite also creates ${file}-wal and ${file}-shm there), or set store: to a path on a writable volume`;
  if (reason === 'ENOTDIR' || reason === 'EEXIST') {
    return {
      permanent: true,
      cause: `a parent of it is a file, not a directory (${reason})`,
      fix: 'set store: to a file in a directory, or move that file away',
    };
  }
  if (reason === 'EACCES' || reason === 'EPERM') {
    return {
      permanent: true,
      cause: `the Ballast user may not create ${dir} (${reason})`,
      fix: `create ${dir} and give the Ballast user write access to it, or set store: to a path it may write`,
    };
  }
  if (reason === 'EROFS')
    return {
      permanent: true,
      cause: `${dir} is on a read-only file system (EROFS)`,
      fix: 'set store: to a path on a writable volume (e.g. a mounted data directory)',
    };
  if (reason === 'ENOSPC' || reason === 'SQLITE_FULL')
    return { permanent: false, cause: `the disk is full (${reason})`, fix: `free space on the volume of ${dir}` };
  if (reason.startsWith('SQLITE_CANTOPEN')) {
    if (isDirectory(file))
      return {
        permanent: true,
        cause: `it is a directory (${reason})`,
        fix: `set store: to a file path, e.g. ${file.replace(/\/+$/, '')}/ballast.db`,
      };
    return { permanent: true, cause: `SQLite cannot open or create the file (${reason})`, fix: writable };
  }
  if (reason.startsWith('SQLITE_READONLY'))
    return { permanent: true, cause: `the file or its directory is read-only (${reason})`, fix: writable };
  if (reason.startsWith('SQLITE_PERM') || reason.startsWith('SQLITE_AUTH'))
    return { permanent: true, cause: `access was denied (${reason})`, fix: writable };
  if (reason === 'SQLITE_NOTADB')
    return {
      permanent: true,
      cause: 'it is not a SQLite database (SQLITE_NOTADB)',
      fix: 'point store: at the Ballast database, or move that file away',
    };
  if (reason.startsWith('SQLITE_CORRUPT'))
    return {
      permanent: true,
      cause: `the database file is corrupt (${reason})`,
      fix: 'restore it from a backup, or set store: to a new file',
    };
  if (reason.startsWith('SQLITE_BUSY') || reason.startsWith('SQLITE_LOCKED')) {
    return {
      permanent: false,
      cause: `another process kept it locked past the busy timeout (${reason})`,
      fix: 'retry; look for a stuck process holding the file',
    };
  }
  if (reason.startsWith('SQLITE_IOERR'))
    return { permanent: false, cause: `an I/O error (${reason})`, fix: `check the disk and the file system of ${dir}` };
  return { permanent: false, cause: `an error (${reason})`, fix: 'check the path and its permissions' };
}

/**
 * Turns an error raised while opening `file` into a {@link StoreOpenError}, or returns null when it is not a
 * file-system or SQLite error (coded Ballast errors and bugs pass through unchanged).
 *
 * @param error what `mkdir`, `new Database`, a pragma or a migration threw
 * @param file the configured path (`store:` or `--db`)
 * @returns the coded error, message `store: <path> cannot be opened: <cause>; <fix>`, or null
 */
export function storeOpenError(error: unknown, file: string): StoreOpenError | null {
  if (error instanceof BallastError) return null;
  const reason = (error as { code?: unknown } | null)?.code; // errno and SqliteError both carry a string code
  if (typeof reason !== 'string' || !/^(E[A-Z]+|SQLITE_[A-Z_]+)$/.test(reason)) return null;
  const d = diagnose(reason, file);
  return new StoreOpenError(
    d.permanent ? 'STORE_OPEN_FAILED' : 'STORE_UNAVAILABLE',
    file,
    reason,
    `store: ${file} cannot be opened: ${d.cause}; ${d.fix}`,
    error,
  );
}
