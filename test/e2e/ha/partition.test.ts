/**
 * Replicas through a network partition, on the project's own elector and store against a real PostgreSQL, each
 * replica behind its own loopback TCP proxy that can reset every connection or blackhole it (sockets open,
 * nothing delivered): docs/ha.md "Partitions".
 *
 * Lease timing as the failover suite: ttl 3 s, renew 1 s, margin 600 ms.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElector } from '../../../packages/ballast/src/ha/elector.ts';
import { leaseSessionLimits, maxPartitionTakeoverMs, resolveLeaseTiming } from '../../../packages/ballast/src/ha/leaseTiming.ts';
import { openPgStore } from '../../../packages/ballast/src/store/openStore.ts';
import { readLease, tryAcquireLease } from '../../../packages/ballast/src/store/pg/lease.ts';
import type { PgStoreDb } from '../../../packages/ballast/src/store/pg/pgDb.ts';
import { withFencedTransaction } from '../../../packages/ballast/src/store/pg/pgTransaction.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.ts';

const TIMING = { ttlMs: 3000, renewEveryMs: 1000, marginMs: 600 } as const;
const LIMITS = leaseSessionLimits(resolveLeaseTiming(TIMING));
/** Round trips, timers and scheduling on a loaded machine, on top of the documented bound. */
const SLACK_MS = 1500;

let server: PostgresServer;
let caseNo = 0;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => Promise<T | null> | T | null, timeoutMs: number): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (performance.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** A fresh database (migrated), its direct URL, a proxy in front of it and the proxied URL. */
async function newCase(): Promise<{ url: string; proxy: TcpProxy; viaProxy: string; admin: pg.Client }> {
  const url = await createDatabase(server.url, `partition_${++caseNo}`);
  const migrated = await openPgStore(url);
  await migrated.close();
  const proxy = await startTcpProxy(server.port);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  cleanups.push(
    () => proxy.close(),
    () => admin.end(),
  );
  return { url, proxy, viaProxy: url.replace(`:${server.port}/`, `:${proxy.port}/`), admin };
}

/** A replica's store with the limits a replica derives from its lease (as `openBallastApp` opens it). */
async function replicaStore(url: string): Promise<PgStoreDb> {
  const db = await openPgStore(url, {
    idleInTransactionTimeoutMs: LIMITS.sessionMs,
    lockTimeoutMs: LIMITS.sessionMs,
    fencedLimitMs: LIMITS.fencedTxMs,
    keepAlive: LIMITS.keepAlive,
  });
  cleanups.push(() => db.close());
  return db;
}

function elector(url: string, owner: string): LeaderElector {
  const e = new LeaderElector({ connectionString: url, owner, ...TIMING });
  cleanups.push(() => e.stop());
  return e;
}

/** Waits until a backend of the database waits for a lock while running a statement that matches `like`. */
async function waitLockWaiter(admin: pg.Client, like: string): Promise<void> {
  await waitFor(
    `a statement like ${like} waiting for a lock`,
    async () => {
      const r = await admin.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
        [like],
      );
      return r.rowCount ? true : null;
    },
    10_000,
  );
}

/** Holds `LOCK TABLE <table> IN <mode> MODE` on a connection of its own until the returned function is called. */
async function lockTable(url: string, table: string, mode: string): Promise<() => Promise<void>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`BEGIN; LOCK TABLE ${table} IN ${mode} MODE`);
  const release = async () => {
    await c.query('ROLLBACK').catch(() => undefined);
    await c.end().catch(() => undefined);
  };
  cleanups.push(release);
  return release;
}

const cycleCount = async (admin: pg.Client, like: string): Promise<number> =>
  Number((await admin.query(`SELECT count(*)::int AS n FROM cycles WHERE mode = 'daemon' AND error LIKE $1`, [like])).rows[0].n);

const insertCycle = (db: PgStoreDb, tag: string) =>
  db.run(`INSERT INTO cycles (mode, started_at_ms, error) VALUES ('daemon', ?, ?)`, Date.now(), tag);

describe("a replica's sessions", () => {
  it('run with the limits derived from its lease, set on the server', async () => {
    const { url } = await newCase();
    const db = await replicaStore(url);
    // pg_settings gives each value in its base unit (ms, s) without the unit.
    const show = async (name: string) =>
      (await db.get<{ setting: string }>('SELECT setting FROM pg_settings WHERE name = ?', name))!.setting;
    expect(await show('idle_in_transaction_session_timeout')).toBe(String(LIMITS.sessionMs));
    expect(await show('lock_timeout')).toBe(String(LIMITS.sessionMs));
    expect(await show('tcp_keepalives_idle')).toBe(String(LIMITS.keepAlive.idleSec));
    expect(await show('tcp_keepalives_count')).toBe(String(LIMITS.keepAlive.count));
    expect(await show('tcp_user_timeout')).toBe(String(LIMITS.sessionMs));
    const claim = { name: 'ballast', owner: 'a' };
    const held = await tryAcquireLease(db.pool, claim, 10_000, null);
    db.setFencing(() => ({ ...claim, epoch: held.epoch! }));
    // A write-ahead tightens its own limits once it passed the fencing check.
    const inside = await db.writeAhead(() => show('idle_in_transaction_session_timeout'));
    expect(inside).toBe(String(LIMITS.fencedTxMs));
  });
});

describe('a store connection reset while it is held', () => {
  it('inside a transaction: the transaction rejects with STORE_CONNECTION_LOST, nothing is stored, the store works after the heal', async () => {
    const { url, proxy, viaProxy, admin } = await newCase();
    const db = await replicaStore(viaProxy);
    db.setFencing(null);
    const unlock = await lockTable(url, 'cycles', 'SHARE');
    const tx = db.transaction(async () => {
      await db.get('SELECT 1 AS one');
      await insertCycle(db, 'reset-in-tx'); // waits for the table lock, the connection held
    });
    tx.catch(() => undefined);
    await waitLockWaiter(admin, 'INSERT INTO cycles%');
    proxy.cut();
    await expect(tx).rejects.toMatchObject({ code: 'STORE_CONNECTION_LOST', phase: 'transaction' });
    await expect(tx).rejects.toThrow(/was lost \(.*\); the transaction was rolled back and nothing of it was stored/);
    proxy.restore();
    await unlock();
    await db.transaction(() => insertCycle(db, 'after-heal'));
    expect(await cycleCount(admin, 'reset-in-tx')).toBe(0);
    expect(await cycleCount(admin, 'after-heal')).toBe(1);
  });

  it('inside the write-ahead: refused with STORE_CONNECTION_LOST and nothing written; the replica steps down, then leads again after the heal', async () => {
    const { proxy, viaProxy, admin } = await newCase();
    const a = elector(viaProxy, 'a');
    await a.start();
    expect(a.isLeader()).toBe(true);
    const db = await replicaStore(viaProxy);
    db.setFencing(() => a.fencingToken());
    let cutAt = 0;
    const writeAhead = db.writeAhead(async () => {
      proxy.cut(); // the fencing check passed: the connection is held inside the fenced transaction
      cutAt = performance.now();
      await insertCycle(db, 'reset-in-write-ahead');
    });
    await expect(writeAhead).rejects.toMatchObject({ code: 'STORE_CONNECTION_LOST' });
    await waitFor('a to step down', () => (a.isLeader() ? null : true), TIMING.ttlMs + SLACK_MS);
    expect(performance.now() - cutAt).toBeLessThan(TIMING.ttlMs - TIMING.marginMs + SLACK_MS);
    proxy.restore();
    await waitFor('a to lead again', () => (a.isLeader() ? true : null), TIMING.ttlMs + TIMING.renewEveryMs + SLACK_MS);
    await db.writeAhead(() => insertCycle(db, 'led-again'));
    expect(await cycleCount(admin, 'reset-in-write-ahead')).toBe(0);
    expect(await cycleCount(admin, 'led-again')).toBe(1);
  }, 30_000);
});

describe('a leader blackholed inside its write-ahead', () => {
  it('the other replica leads within ttl + fenced limit + renew; on the heal the late write-ahead is refused and nothing of it is stored', async () => {
    const { url, proxy, viaProxy, admin } = await newCase();
    const a = elector(viaProxy, 'a');
    await a.start();
    const epochA = a.epoch()!;
    const b = elector(url, 'b');
    await b.start();
    expect([a.isLeader(), b.isLeader()]).toEqual([true, false]);
    const db = await replicaStore(viaProxy);
    db.setFencing(() => a.fencingToken());
    let cutAt = 0;
    const writeAhead = db.writeAhead(async () => {
      proxy.blackhole(); // the fencing check passed: the lease row is locked FOR SHARE by this transaction
      cutAt = performance.now();
      await insertCycle(db, 'blackholed-write-ahead');
    });
    writeAhead.catch(() => undefined);
    const ledAt = await waitFor('b to lead', () => (b.isLeader() ? performance.now() : null), 12_000);
    const takeoverMs = ledAt - cutAt;
    console.log(
      `blackholed inside the write-ahead: b led ${(takeoverMs / 1000).toFixed(2)} s after the cut (bound ${maxPartitionTakeoverMs(resolveLeaseTiming(TIMING))} ms)`,
    );
    expect(takeoverMs).toBeLessThan(maxPartitionTakeoverMs(resolveLeaseTiming(TIMING)) + SLACK_MS);
    expect(b.epoch()).toBe(epochA + 1n);
    expect(a.isLeader()).toBe(false);
    await sleep(Math.max(0, 8_000 - (performance.now() - cutAt))); // cut for 8 s in all
    proxy.heal();
    await expect(writeAhead).rejects.toMatchObject({ code: expect.stringMatching(/^STORE_(CONNECTION|LEASE)_LOST$/) });
    expect(await cycleCount(admin, 'blackholed-write-ahead')).toBe(0);
    await sleep(TIMING.renewEveryMs * 2); // a's late statements, were any left, would run now
    const lease = await readLease(admin, 'ballast');
    expect([lease?.owner, lease?.epoch]).toEqual(['b', epochA + 1n]);
    expect(b.isLeader()).toBe(true);
  }, 40_000);

  it('a write-ahead whose lease expired before its COMMIT is refused at the COMMIT (the session lived through the cut)', async () => {
    const { url, admin } = await newCase();
    await admin.query('CREATE TABLE scratch (tag text)');
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    cleanups.push(() => pool.end());
    const claim = { name: 'ballast', owner: 'a' };
    const held = await tryAcquireLease(pool, claim, 300, null);
    const late = withFencedTransaction(
      pool,
      { ...claim, epoch: held.epoch! },
      async (c) => {
        await c.query(`INSERT INTO scratch VALUES ('late')`);
        await sleep(500); // past the lease's expiry; the row lock kept every takeover out
      },
      { limitMs: null },
    );
    await expect(late).rejects.toMatchObject({ code: 'STORE_LEASE_LOST', found: { live: false } });
    expect(Number((await admin.query('SELECT count(*)::int AS n FROM scratch')).rows[0].n)).toBe(0);
    // The same transaction inside its lease commits.
    const live = await tryAcquireLease(pool, claim, 10_000, null);
    await withFencedTransaction(pool, { ...claim, epoch: live.epoch! }, async (c) => c.query(`INSERT INTO scratch VALUES ('live')`));
    expect((await admin.query('SELECT tag FROM scratch')).rows).toEqual([{ tag: 'live' }]);
  });
});

describe('takeover attempts while the lease row is locked', () => {
  it('the server cancels each one: at most one lease statement of the replica waits there, and the epoch moves by exactly one', async () => {
    const { url, admin } = await newCase();
    await admin.query(
      `INSERT INTO leader_lease (name, owner, epoch, acquired_at, renewed_at, expires_at) VALUES ('ballast', 'ghost', 1, now(), now(), now())`,
    );
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    cleanups.push(() => holder.end());
    await holder.query(`BEGIN; SELECT * FROM leader_lease WHERE name = 'ballast' FOR UPDATE`);
    const b = elector(url, 'b');
    await b.start(); // the first attempt waits for the lock, then fails
    let most = 0;
    const until = performance.now() + 4 * TIMING.renewEveryMs;
    while (performance.now() < until) {
      const r = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'ballast-lease b%' AND state = 'active'`,
      );
      most = Math.max(most, Number(r.rows[0].n));
      await sleep(50);
    }
    expect(b.isLeader()).toBe(false);
    expect(most).toBe(1);
    await holder.query('ROLLBACK');
    await waitFor('b to lead', () => (b.isLeader() ? true : null), TIMING.renewEveryMs * 2 + SLACK_MS);
    expect(b.epoch()).toBe(2n);
    await sleep(TIMING.renewEveryMs * 2);
    const lease = await readLease(admin, 'ballast');
    expect([lease?.owner, lease?.epoch, b.epoch()]).toEqual(['b', 2n, 2n]);
  }, 30_000);

  it('a lease the database shows ours at an epoch the elector does not act in (a late answer) is released, not left to expire', async () => {
    const { url, admin } = await newCase();
    // What a statement the elector had given up on leaves behind: the row is ours, live for a long while.
    await admin.query(
      `INSERT INTO leader_lease (name, owner, epoch, acquired_at, renewed_at, expires_at)
       VALUES ('ballast', 'b', 5, now(), now(), now() + interval '60 seconds')`,
    );
    const b = elector(url, 'b');
    const startedAt = performance.now();
    await b.start();
    await waitFor('b to lead', () => (b.isLeader() ? true : null), TIMING.renewEveryMs * 2 + SLACK_MS);
    expect(performance.now() - startedAt).toBeLessThan(TIMING.renewEveryMs * 2 + SLACK_MS);
    expect(b.epoch()).toBe(6n);
  });
});
