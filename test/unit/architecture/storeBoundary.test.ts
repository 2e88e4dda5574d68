/**
 * SQL lives in src/store/ (and in the sandbox, which keeps no SQL store): only store modules open databases or
 * issue SQL, so the PostgreSQL store can replace the SQLite one behind the same functions. The leader
 * elector (src/ha/) may also hold a PostgreSQL pool; its statements are in src/store/pg/lease.ts. Outside the
 * store, a `StoreDb` is used only through store functions: the raw better-sqlite3 handle of a SqliteStoreDb
 * (`.sqlite`) is for tests.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

const files = sourceFiles(path.join(root, 'src')).map((f) => ({ rel: path.relative(root, f).split(path.sep).join('/'), text: readFileSync(f, 'utf8') }));

/** A `StoreDb` call (`all`, `get`, `run`, also with a type argument) or a driver query given SQL text, on any line. */
const SQL_CALL = /\.(?:all|get|run|exec|query)(?:<[^>()]*>)?\(\s*['`"]\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|DROP|ALTER|PRAGMA|BEGIN)\s/g;

/**
 * Offending lines of `text`: value imports of better-sqlite3 or pg, statement preparation, SQL text given to a
 * store database or driver, the raw SQLite handle of a SqliteStoreDb.
 */
function offences(text: string, allowPg: boolean): string[] {
  const lines = text.split('\n');
  const sqlLines = new Set([...text.matchAll(SQL_CALL)].map((m) => text.slice(0, m.index).split('\n').length - 1));
  return lines.filter((line, i) =>
    /^import\s+(?!type\s)[^;]*from\s+'better-sqlite3'/.test(line) ||
    (!allowPg && /^import\s+(?!type\s)[^;]*from\s+'pg'/.test(line)) ||
    /\.prepare\(\s*['`"]/.test(line) ||
    sqlLines.has(i) ||
    /\.sqlite\.(?:prepare|exec|pragma|transaction|backup|function)\(/.test(line),
  );
}

describe('database access lives in src/store/', () => {
  it('finds the store modules it exempts (the scan is not empty)', () => {
    expect(files.filter((f) => f.rel.startsWith('src/store/') && offences(f.text, false).length > 0).length).toBeGreaterThan(5);
  });

  it('no module outside src/store and src/sandbox opens a database or issues SQL', () => {
    const found = files
      .filter((f) => !/^src\/(store|sandbox)\//.test(f.rel))
      .flatMap((f) => offences(f.text, f.rel.startsWith('src/ha/')).map((line) => `${f.rel}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('the rule catches what it is for', () => {
    expect(offences("import Database from 'better-sqlite3';", false)).toHaveLength(1);
    expect(offences("import pg from 'pg';", false)).toHaveLength(1);
    expect(offences("  const row = db.prepare('SELECT 1').get();", false)).toHaveLength(1);
    expect(offences("  db.sqlite.exec('DELETE FROM transfers');", false)).toHaveLength(1);
    expect(offences("  const rows = await db.all<Row>('SELECT id FROM transfers');", false)).toHaveLength(1);
    expect(offences("  await db.run(\n    `UPDATE transfers SET status = ?`,\n    status,\n  );", false)).toEqual(['  await db.run(']);
    expect(offences("  const v = params.get('with');", false)).toHaveLength(0);
    expect(offences("import type Database from 'better-sqlite3';", false)).toHaveLength(0);
  });
});
