/**
 * The commands that take `--db` (history, report, limits, resume): a path that does not exist is a usage error
 * (exit 2) naming the flag and the path, and no database file is created in its place; a PostgreSQL URL is refused
 * the same way, without its password. `history` on PostgreSQL runs as a separate process (its whole stderr is one
 * line); the other cases call the same main() in this process.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-history-db-');
afterAll(() => tmp.cleanup());

describe('--db naming a missing file', () => {
  it('history exits 2 and creates nothing', async () => {
    const missing = path.join(tmp.dir, 'no-such', 'balast.db');
    const result = await runCliInProcess(['history', '--db', missing]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--db ${missing}: no such database file`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(path.dirname(missing))).toBe(false);
  });

  it.each([
    ['report', []],
    ['limits', []],
    ['resume', ['--transfer', '1', '--note', 'checked by hand']],
  ])('%s exits 2 and creates nothing', async (command, extra) => {
    const missing = path.join(tmp.dir, `typo-${command}`, 'balast.db');
    const result = await runCliInProcess([command, '--db', missing, ...extra]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`--db ${missing}: no such database file`);
    expect(existsSync(path.dirname(missing))).toBe(false);
  });

  it('a PostgreSQL URL nobody answers at is one line (exit 1), the password hidden', async () => {
    const result = await runCli(['history', '--db', 'postgres://ballast:s3cret-pw@127.0.0.1:5/ballast']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('store: postgres://ballast:***@127.0.0.1:5/ballast cannot be reached');
    expect(result.stderr).not.toContain('s3cret-pw');
  });
});
