/**
 * The write-ahead fence and the pre-broadcast check are tied to the term a run started in, not to "leads now"
 * (docs/ha.md, src/app/leaderGuard.ts). Against a real PostgreSQL server, replica A (a real LeaderGuard and the real
 * executor with a scripted EVM node) starts executing a transfer in term t; while it is held up, the lease goes to
 * replica B (t + 1), B releases it and A wins it back (t + 2). When A's stale work resumes:
 * - held up in signing: the write-ahead is refused (`STORE_LEASE_LOST`, later term): no row, nothing broadcast;
 * - held up after its write-ahead committed (in term t, legitimately): the signed transaction is not broadcast.
 * A run started in the new term writes ahead and broadcasts normally.
 */
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LeaderGuard } from '../../../packages/ballast/src/app/leaderGuard.ts';
import { executeTransfer, type ExecuteTransferDeps } from '../../../packages/ballast/src/executor/executeTransfer.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { openPgStore } from '../../../packages/ballast/src/store/openStore.ts';
import type { PgStoreDb } from '../../../packages/ballast/src/store/pg/pgDb.ts';
import { readLease, releaseLease, tryAcquireLease } from '../../../packages/ballast/src/store/pg/lease.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import { offlineExecution, scriptedNode } from '../../unit/executor/scriptedNode.ts';
import { gate } from '../../helpers/gate.ts';

const HA = { lease: 'ballast', instance: 'replica-a', ttlMs: 1_500, renewEveryMs: 200, marginMs: 300 };
const B = { name: HA.lease, owner: 'replica-b:2:b' };

let server: PostgresServer;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});
afterAll(async () => {
  await server?.stop();
});

/** A fresh database with A's store, A's guard (leading, term t) and a pool acting as replica B. */
async function replicaA(name: string) {
  const url = await createDatabase(server.url, name);
  const db = await openPgStore(url);
  closers.push(() => db.close());
  const guard = new LeaderGuard({ url, ha: HA, store: db, logger: pino({ level: 'silent' }) });
  closers.push(() => guard.stop());
  await guard.start();
  expect(guard.isLeader()).toBe(true);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  closers.push(() => pool.end());
  const termT = (await readLease(pool, HA.lease))!.epoch;
  return { db, guard, pool, termT };
}

async function waitUntil(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * B takes the lease from A (A's lease made to expire and taken in one transaction, so A cannot renew in between),
 * A notices at its next renew, then B releases it and A takes it back at the next epoch. Returns B's epoch.
 */
async function loseAndWinBack(a: { guard: LeaderGuard; pool: pg.Pool; termT: bigint }): Promise<void> {
  const c = await a.pool.connect();
  let bEpoch: bigint;
  try {
    await c.query('BEGIN');
    await c.query('UPDATE leader_lease SET expires_at = now() WHERE name = $1', [HA.lease]);
    const took = await tryAcquireLease(c, B, 60_000, null);
    await c.query('COMMIT');
    expect(took).toMatchObject({ held: true, owner: B.owner, epoch: a.termT + 1n });
    bEpoch = took.epoch!;
  } finally {
    c.release();
  }
  await waitUntil('A to lose the lease to B', () => !a.guard.isLeader());
  expect(await releaseLease(a.pool, B, bEpoch)).toBe(true);
  await waitUntil('A to win the lease back', () => a.guard.isLeader());
  const row = (await readLease(a.pool, HA.lease))!;
  expect(row.epoch).toBe(a.termT + 2n);
  expect(row.owner).not.toBe(B.owner);
}

const count = async (db: StoreDb, table: string): Promise<number> => (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;

describe('term fence (PostgreSQL, lease lost and won back while a run is held up)', () => {
  it('a signature made in term t is neither written ahead nor broadcast once the replica leads again in term t + 2', async () => {
    const a = await replicaA('term_fence_sign');
    const { client, sent } = scriptedNode((_n, hash) => ({ transactionHash: hash, status: 'success', blockNumber: 1n }));
    const { deps, args } = await offlineExecution(a.db, client);
    const signing = gate();
    const chain = {
      ...deps.chain,
      sign: async (...s: Parameters<ExecuteTransferDeps['chain']['sign']>) => (await signing.wait(), deps.chain.sign(...s)),
    };

    const stale = a.guard.run(undefined, (signal) =>
      executeTransfer({ ...deps, chain, signal, leading: () => a.guard.leadsRunTerm() }, args),
    );
    stale.catch(() => undefined); // awaited below
    await signing.reached; // A is in signing, in term t
    await loseAndWinBack(a);
    signing.open();

    await expect(stale).rejects.toMatchObject({ code: 'STORE_LEASE_LOST', epoch: a.termT, found: { epoch: a.termT + 2n, live: true } });
    await expect(stale).rejects.toThrow(/holds it again, but in a later term/);
    expect(sent).toEqual([]); // nothing broadcast
    expect(await count(a.db, 'transfers')).toBe(0); // nothing written ahead
    expect(await count(a.db, 'transfer_txs')).toBe(0);

    // A run started in the new term acts: it writes ahead and broadcasts under epoch t + 2.
    const fresh = await a.guard.run(undefined, (signal) =>
      executeTransfer({ ...deps, signal, leading: () => a.guard.leadsRunTerm() }, args),
    );
    expect(sent.length).toBe(2); // the approval and the deposit
    expect(fresh.originTxHashes).toHaveLength(2);
    expect(await count(a.db, 'transfer_txs')).toBe(2);
  }, 60_000);

  it('a transaction written ahead in term t is not broadcast once the replica leads again in term t + 2', async () => {
    const a = await replicaA('term_fence_broadcast');
    const { client, sent } = scriptedNode((_n, hash) => ({ transactionHash: hash, status: 'success', blockNumber: 1n }));
    const { deps, args } = await offlineExecution(a.db, client);
    const committed = gate();
    // A pause right after the write-ahead committed (e.g. the process stopped): the same store, held up there.
    const real: PgStoreDb = a.db;
    const db: StoreDb = {
      dialect: real.dialect,
      location: real.location,
      forUpdate: real.forUpdate,
      all: (sql, ...p) => real.all(sql, ...p),
      get: (sql, ...p) => real.get(sql, ...p),
      run: (sql, ...p) => real.run(sql, ...p),
      transaction: (fn) => real.transaction(fn),
      inTransaction: () => real.inTransaction(),
      close: () => real.close(),
      writeAhead: async (fn) => {
        const out = await real.writeAhead(fn);
        await committed.wait();
        return out;
      },
    };

    const stale = a.guard.run(undefined, (signal) => executeTransfer({ ...deps, db, signal, leading: () => a.guard.leadsRunTerm() }, args));
    await committed.reached; // the approval is written ahead in term t
    expect(await count(real, 'transfer_txs')).toBe(1);
    await loseAndWinBack(a);
    expect(a.guard.isLeader()).toBe(true); // leads now, but not in the run's term
    committed.open();

    const result = await stale;
    expect(result.status).toBe('prepared');
    expect(result.error).toMatch(/written ahead but not broadcast: this replica no longer leads/);
    expect(sent).toEqual([]); // the signed approval was never sent
    const rows = await real.all<{ status: string }>('SELECT status FROM transfer_txs');
    expect(rows.map((r) => r.status)).toEqual(['signed']); // in flight, for the current term's reconciliation
  }, 60_000);
});
