/**
 * SQL lives in src/store/ (and in the sandbox, which keeps no SQL store): only store modules open databases or
 * prepare statements, so the PostgreSQL store can replace the SQLite one behind the same functions. The leader
 * elector (src/ha/) may also hold a PostgreSQL pool; its statements are in src/store/pg/lease.ts.
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

/** Offending lines of `text`: value imports of better-sqlite3 or pg, statement preparation. */
function offences(text: string, allowPg: boolean): string[] {
  return text.split('\n').filter((line) =>
    /^import\s+(?!type\s)[^;]*from\s+'better-sqlite3'/.test(line) ||
    (!allowPg && /^import\s+(?!type\s)[^;]*from\s+'pg'/.test(line)) ||
    /\.prepare\(\s*['`"]/.test(line),
  );
}

describe('database access lives in src/store/', () => {
  it('finds the store modules it exempts (the scan is not empty)', () => {
    expect(files.filter((f) => f.rel.startsWith('src/store/') && offences(f.text, false).length > 0).length).toBeGreaterThan(5);
  });

  it('no module outside src/store and src/sandbox opens a database or prepares a statement', () => {
    const found = files
      .filter((f) => !/^src\/(store|sandbox)\//.test(f.rel))
      .flatMap((f) => offences(f.text, f.rel.startsWith('src/ha/')).map((line) => `${f.rel}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('the rule catches what it is for', () => {
    expect(offences("import Database from 'better-sqlite3';", false)).toHaveLength(1);
    expect(offences("import pg from 'pg';", false)).toHaveLength(1);
    expect(offences("  const row = db.prepare('SELECT 1').get();", false)).toHaveLength(1);
    expect(offences("import type Database from 'better-sqlite3';", false)).toHaveLength(0);
  });
});
