/**
 * `ballast history` and `ballast report` as separate processes: a `--db` path that does not exist is a usage
 * error (exit 2) naming the flag and the path, and no database file is created in its place.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-history-db-');
afterAll(() => tmp.cleanup());

describe('--db naming a missing file', () => {
  it('history exits 2 and creates nothing', async () => {
    const missing = path.join(tmp.dir, 'no-such', 'balast.db');
    const result = await runCli(['history', '--db', missing]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--db ${missing}: no such database file`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(path.dirname(missing))).toBe(false);
  });
});
