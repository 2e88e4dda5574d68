/**
 * The PostgreSQL test harness (test/helpers/postgres.ts): a real server on loopback in a temp directory,
 * databases per test, a restart on the same port keeping the data, and stop() removing everything.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';

let server: PostgresServer | null = null;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('startPostgres', () => {
  it('serves a real PostgreSQL on 127.0.0.1, isolates databases, survives a restart and cleans up', async () => {
    const s = server!;
    expect(new URL(s.url).hostname).toBe('127.0.0.1');
    const rows = await query(s.url, "SELECT current_setting('server_version_num')::int AS v");
    expect((rows[0] as { v: number }).v).toBeGreaterThanOrEqual(120000);

    const a = await createDatabase(s.url, 'harness_a');
    const b = await createDatabase(s.url, 'harness_b');
    await query(a, 'CREATE TABLE t (x int); INSERT INTO t VALUES (7)');
    expect(await query(a, 'SELECT x FROM t')).toEqual([{ x: 7 }]);
    await expect(query(b, 'SELECT x FROM t')).rejects.toThrow(/does not exist/);
    await expect(createDatabase(s.url, 'Bad-Name')).rejects.toThrow(/lowercase/);

    const pid = s.pid();
    expect(pid).toBeGreaterThan(0);
    await s.halt();
    expect(s.pid()).toBeNull();
    await expect(query(a, 'SELECT 1')).rejects.toThrow();
    await s.resume();
    expect(await query(a, 'SELECT x FROM t')).toEqual([{ x: 7 }]);

    await s.stop();
    expect(existsSync(s.dir)).toBe(false);
    expect(() => process.kill(pid!, 0)).toThrow();
    server = null;
  });
});
