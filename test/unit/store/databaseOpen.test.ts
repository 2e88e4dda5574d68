/**
 * openDatabase on paths that cannot hold the store: each failure is one coded StoreOpenError whose message
 * names `store: <path>`, the cause and the fix; permanent causes (`STORE_OPEN_FAILED`) are told apart from
 * ones a restart may clear (`STORE_UNAVAILABLE`). Real files and real SQLite; the cases root cannot produce
 * (read-only file system, no permission) go through `storeOpenError` with the errno error node raises.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../packages/ballast/src/store/database.ts';
import { StoreOpenError, storeOpenError } from '../../../packages/ballast/src/store/openError.ts';
import { StoreSchemaError } from '../../../packages/ballast/src/store/errors.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ballast-store-open-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function openError(file: string): StoreOpenError {
  try {
    openDatabase(file).close();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreOpenError);
    return error as StoreOpenError;
  }
  throw new Error(`openDatabase(${file}) did not fail`);
}

describe('openDatabase failures', () => {
  it('a parent that is a regular file: STORE_OPEN_FAILED naming the path', () => {
    const blocker = path.join(tmp, 'blocker');
    writeFileSync(blocker, 'not a directory');
    const file = path.join(blocker, 'data', 'ballast.db');
    const e = openError(file);
    expect(e.code).toBe('STORE_OPEN_FAILED');
    expect(e.file).toBe(file);
    expect(e.message).toMatch(
      new RegExp(`^store: ${file} cannot be opened: a parent of it is a file, not a directory \\((ENOTDIR|EEXIST)\\); `),
    );
    expect(e.message).not.toContain('\n');
  });

  it('a directory at the path: STORE_OPEN_FAILED suggesting a file inside it', () => {
    const dir = path.join(tmp, 'adir');
    mkdirSync(dir);
    const e = openError(dir);
    expect(e.code).toBe('STORE_OPEN_FAILED');
    expect(e.reason).toBe('SQLITE_CANTOPEN');
    expect(e.message).toBe(
      `store: ${dir} cannot be opened: it is a directory (SQLITE_CANTOPEN); set store: to a file path, e.g. ${dir}/ballast.db`,
    );
  });

  it('a file that is not a database: STORE_OPEN_FAILED (SQLITE_NOTADB)', () => {
    const file = path.join(tmp, 'notes.txt');
    writeFileSync(file, 'these are notes, not a SQLite database\n'.repeat(50));
    const e = openError(file);
    expect(e.code).toBe('STORE_OPEN_FAILED');
    expect(e.message).toContain('it is not a SQLite database (SQLITE_NOTADB); point store: at the Ballast database');
  });

  it('a store locked by another writer past the busy timeout: STORE_UNAVAILABLE (a restart may succeed)', () => {
    const file = path.join(tmp, 'locked.db');
    openDatabase(file).close();
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE'); // holds the write lock the migration transaction (IMMEDIATE) needs
    try {
      let error: unknown = null;
      try {
        openDatabase(file).close();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StoreOpenError);
      expect((error as StoreOpenError).code).toBe('STORE_UNAVAILABLE');
      expect((error as StoreOpenError).message).toMatch(
        new RegExp(`^store: ${file} cannot be opened: another process kept it locked past the busy timeout \\(SQLITE_BUSY\\); `),
      );
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  }, 20_000);

  it('leaves coded store errors as they are (STORE_SCHEMA_TOO_NEW)', () => {
    const file = path.join(tmp, 'future.db');
    openDatabase(file).close();
    const db = new Database(file);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)').run(999, 'from the future', 0);
    db.close();
    expect(() => openDatabase(file)).toThrow(StoreSchemaError);
  });
});

describe('storeOpenError', () => {
  const file = '/var/lib/ballast/ballast.db';
  const errno = (code: string) => Object.assign(new Error(`${code}: mkdir '/var/lib/ballast'`), { code });

  it('names a read-only file system and no permission as permanent, with the fix', () => {
    expect(storeOpenError(errno('EROFS'), file)).toMatchObject({
      code: 'STORE_OPEN_FAILED',
      message: `store: ${file} cannot be opened: /var/lib/ballast is on a read-only file system (EROFS); set store: to a path on a writable volume (e.g. a mounted data directory)`,
    });
    expect(storeOpenError(errno('EACCES'), file)).toMatchObject({ code: 'STORE_OPEN_FAILED', reason: 'EACCES' });
    expect(storeOpenError(errno('EACCES'), file)?.message).toContain('the Ballast user may not create /var/lib/ballast (EACCES)');
  });

  it('calls a full disk a condition that may clear', () => {
    expect(storeOpenError(errno('ENOSPC'), file)).toMatchObject({ code: 'STORE_UNAVAILABLE', reason: 'ENOSPC' });
  });

  it('passes bugs and coded errors through (null)', () => {
    expect(storeOpenError(new TypeError('x is undefined'), file)).toBeNull();
    expect(storeOpenError(new StoreSchemaError(file, 9, 6), file)).toBeNull();
  });
});
