/**
 * A `ballast daemon` replica (a real child process on the sandbox) whose PostgreSQL connections are reset while it
 * holds them: inside the cycle's balance-recording transaction, then inside its write-ahead. It must live on, end
 * those cycles `error` with a typed store error, sign nothing after the failed write-ahead, lead again after the
 * heal and pay the treasury's need exactly once (docs/ha.md "Partitions").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { openPgStore } from '../../../packages/ballast/src/store/openStore.ts';
import { listInFlightTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.ts';
import { auditCase } from '../faults/helpers/caseAudit.ts';
import { freshNeed, inBand, NEED, NEED_BALANCES, readTreasury } from '../faults/helpers/treasuryNeed.ts';
import { killAllReplicas, leaderGauge, startReplica, stopReplicas, waitFor, type Replica } from './cluster.ts';

let server: PostgresServer;
let sandbox: Sandbox;
let dir: string;
const replicas: Replica[] = [];
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  server = await startPostgres();
  sandbox = await startSandbox({ balances: NEED_BALANCES });
  dir = mkdtempSync(path.join(tmpdir(), 'ballast-partition-'));
}, 120_000);

afterEach(async () => {
  await stopReplicas(replicas.splice(0));
  await killAllReplicas();
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Holds `LOCK TABLE <table> IN SHARE MODE` (reads pass, writes wait) until the returned function is called. */
async function holdWrites(url: string, table: string): Promise<() => Promise<void>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`BEGIN; LOCK TABLE ${table} IN SHARE MODE`);
  const release = async () => {
    await c.query('ROLLBACK').catch(() => undefined);
    await c.end().catch(() => undefined);
  };
  cleanups.push(release);
  return release;
}

/** Polls (every 20 ms) until a backend waits for a lock in a statement starting with `prefix`. */
async function waitWaiter(admin: pg.Client, prefix: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await admin.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND ltrim(query) LIKE $1`,
      [`${prefix}%`],
    );
    if (r.rowCount) return;
    if (Date.now() > until) throw new Error(`no statement ${prefix}… waited for a lock within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The JSON log lines of a replica whose message matches. */
function logLines(r: Replica, msg: RegExp): Array<{ level: number; msg: string; err?: string }> {
  return r
    .log()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; err?: string })
    .filter((l) => msg.test(l.msg));
}

describe('a replica whose store connections are reset while it holds them', () => {
  it('lives on through a reset inside a transaction and inside its write-ahead, leads again after each heal, pays once', async () => {
    const url = await createDatabase(server.url, 'partition_daemon');
    const start = await freshNeed(sandbox);
    const proxy: TcpProxy = await startTcpProxy(server.port);
    cleanups.push(() => proxy.close());
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    cleanups.push(() => admin.end());
    await (await openPgStore(url)).close(); // migrated before the replica starts, so the locks below have tables to take

    // 1. The cycle's balance-recording transaction waits on a table lock with its connection held; then a reset.
    let unlock = await holdWrites(url, 'balances');
    const a = await startReplica({ sandbox, dir, name: 'a', storeUrl: url.replace(`:${server.port}/`, `:${proxy.port}/`) });
    replicas.push(a);
    await waitWaiter(admin, 'INSERT INTO balances', 60_000);
    proxy.cut();
    await waitFor(
      'the cycle to fail on the lost connection',
      async () => (/STORE_CONNECTION_LOST|was lost/.test(a.log()) ? true : null),
      20_000,
    );
    await unlock();
    proxy.restore();
    await waitFor('a to lead again', async () => ((await leaderGauge(a)) === 1 ? true : null), 20_000);
    expect(a.alive()).toBe(true);

    // 2. The write-ahead of the transfer waits on a table lock inside its fenced transaction; then a reset. Its
    // lock wait lasts at most the write-ahead limit (600 ms here): a cut that came after it ended is tried again.
    const lostInWriteAhead = () =>
      logLines(a, /^execution failed$/).some((l) => /connection to store .* was lost .*the transaction was rolled back/.test(l.err ?? ''));
    for (let tries = 0; tries < 3 && !lostInWriteAhead(); tries++) {
      unlock = await holdWrites(url, 'transfers');
      await waitWaiter(admin, 'INSERT INTO transfers', 30_000);
      proxy.cut();
      await unlock();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(a.alive()).toBe(true);
      proxy.restore();
    }

    // After the heal it leads again and pays the need once.
    const db = await openPgStore(url);
    db.setFencing(null);
    cleanups.push(() => db.close());
    await waitFor(
      'the treasury back in band with nothing in flight',
      async () => (inBand(await readTreasury(sandbox)) && (await listInFlightTransfers(db)).length === 0 ? true : null),
      90_000,
    );
    expect(a.alive()).toBe(true);
    expect(await leaderGauge(a)).toBe(1);
    const audit = await auditCase(sandbox, db, start);
    expect(audit.duplicates).toBe(0);
    expect(audit.lost).toBe(0n);
    expect(audit.deposits.map((d) => d.amount)).toEqual([NEED]);
    // The failed cycles said why, as errors of the cycle, not crashes of the process.
    const failed = logLines(a, /^cycle failed$/);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.some((l) => /connection to store .* was lost/.test(l.err ?? ''))).toBe(true);
    // The write-ahead that lost its connection failed as a store error; nothing of it was written.
    expect(lostInWriteAhead()).toBe(true);
    // The cycles whose end could not be written were recorded by this replica later, not closed as abandoned.
    expect(logLines(a, /^the end of cycle \d+ was recorded late/).length).toBeGreaterThanOrEqual(1);
    expect(logLines(a, /closed as aborted/)).toEqual([]);
    // Every finished cycle ended as it ran (the one running now, if any, has no outcome yet).
    const rows = (await admin.query<{ id: number; outcome: string }>('SELECT id, outcome FROM cycles WHERE finished_at_ms IS NOT NULL'))
      .rows;
    expect(rows.filter((r) => r.outcome !== 'ok' && r.outcome !== 'error')).toEqual([]);
    expect(rows.map((r) => r.outcome)).toContain('error'); // the cycles the resets ended
    expect(a.log()).not.toMatch(/Emitted 'error' event|uncaughtException/);
  }, 240_000);
});
