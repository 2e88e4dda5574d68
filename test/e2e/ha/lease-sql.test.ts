/**
 * The lease statements against a real PostgreSQL: one winner among racing replicas, renew keeps the epoch,
 * takeover of an expired or released lease raises it, and the fencing check holds the row so a takeover
 * waits for the fenced transaction to commit; an old epoch's write-ahead is refused.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import {
  assertLeaseHeld,
  ensureLeaseTable,
  readLease,
  releaseLease,
  tryAcquireLease,
} from '../../../packages/ballast/src/store/pg/lease.ts';
import { withFencedTransaction } from '../../../packages/ballast/src/store/pg/pgTransaction.ts';
import { LeaseLostError } from '../../../packages/ballast/src/ha/errors.ts';

let server: PostgresServer | null = null;
const pools: pg.Pool[] = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await server?.stop();
});

async function freshPool(db: string, max = 10): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: await createDatabase(server!.url, db), max });
  pools.push(pool);
  pool.on('error', () => undefined); // idle connections ended by the server's shutdown at the end
  await ensureLeaseTable(pool);
  await ensureLeaseTable(pool); // idempotent
  return pool;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('leader lease statements', () => {
  it('elects exactly one of ten racing replicas, renews at the same epoch, refuses the others', async () => {
    const pool = await freshPool('lease_race');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => tryAcquireLease(pool, { name: 'ballast', owner: `r${i}` }, 5_000, null)),
    );
    const winners = results.filter((r) => r.held);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    expect(winner.epoch).toBe(1n);
    for (const r of results.filter((x) => !x.held)) {
      expect(r.owner === winner.owner || r.owner === null).toBe(true); // a loser reports the holder when it sees it
    }
    const before = await readLease(pool, 'ballast');
    const renewed = await tryAcquireLease(pool, { name: 'ballast', owner: winner.owner! }, 5_000, 1n);
    expect(renewed).toMatchObject({ held: true, owner: winner.owner, epoch: 1n });
    const after = await readLease(pool, 'ballast');
    expect(after!.expiresAt.getTime()).toBeGreaterThanOrEqual(before!.expiresAt.getTime());
    expect(after!.acquiredAt).toEqual(before!.acquiredAt);
    // Another replica, or the holder without its epoch, cannot take a live lease.
    expect(await tryAcquireLease(pool, { name: 'ballast', owner: 'intruder' }, 5_000, null)).toMatchObject({
      held: false,
      owner: winner.owner,
      epoch: 1n,
    });
    expect(await tryAcquireLease(pool, { name: 'ballast', owner: 'intruder' }, 5_000, 1n)).toMatchObject({ held: false });
    // Leases are per name.
    expect(await tryAcquireLease(pool, { name: 'other', owner: 'intruder' }, 5_000, null)).toMatchObject({ held: true, epoch: 1n });
  });

  it('takes over an expired lease at epoch + 1 and a released one at once', async () => {
    const pool = await freshPool('lease_takeover');
    expect(await tryAcquireLease(pool, { name: 'l', owner: 'a' }, 300, null)).toMatchObject({ held: true, epoch: 1n });
    await sleep(400);
    expect(await tryAcquireLease(pool, { name: 'l', owner: 'b' }, 60_000, null)).toMatchObject({ held: true, owner: 'b', epoch: 2n });
    // a comes back presenting its old epoch: refused, the lease is b's.
    expect(await tryAcquireLease(pool, { name: 'l', owner: 'a' }, 60_000, 1n)).toMatchObject({ held: false, owner: 'b', epoch: 2n });
    expect(await releaseLease(pool, { name: 'l', owner: 'a' }, 1n)).toBe(false);
    expect(await releaseLease(pool, { name: 'l', owner: 'b' }, 2n)).toBe(true);
    expect(await tryAcquireLease(pool, { name: 'l', owner: 'a' }, 60_000, null)).toMatchObject({ held: true, owner: 'a', epoch: 3n });
    // A holder whose own lease expired, presenting its epoch, starts a new term.
    expect(await tryAcquireLease(pool, { name: 'm', owner: 'a' }, 200, null)).toMatchObject({ held: true, epoch: 1n });
    await sleep(300);
    expect(await tryAcquireLease(pool, { name: 'm', owner: 'a' }, 60_000, 1n)).toMatchObject({ held: true, epoch: 2n });
  });

  it('fences: a takeover waits for the fenced transaction; the old epoch then cannot write ahead', async () => {
    const pool = await freshPool('lease_fence');
    await pool.query('CREATE TABLE write_ahead (id serial PRIMARY KEY, owner text NOT NULL, epoch bigint NOT NULL)');
    expect(await tryAcquireLease(pool, { name: 'l', owner: 'old' }, 500, null)).toMatchObject({ held: true, epoch: 1n });

    const fenced = await pool.connect();
    await fenced.query('BEGIN');
    await assertLeaseHeld(fenced, 'l', 'old', 1n);
    await sleep(700); // the lease expires on the database clock while the transaction is open
    const takeover = tryAcquireLease(pool, { name: 'l', owner: 'new' }, 60_000, null);
    // The takeover's row update waits for the FOR SHARE lock.
    for (let i = 0; ; i++) {
      const waiting = await pool.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO leader_lease%'",
      );
      if (waiting.rows[0].n === 1) break;
      if (i > 200) throw new Error('takeover never waited for the fencing lock');
      await sleep(20);
    }
    await fenced.query('INSERT INTO write_ahead (owner, epoch) VALUES ($1, $2)', ['old', '1']);
    await fenced.query('COMMIT');
    fenced.release();
    expect(await takeover).toMatchObject({ held: true, owner: 'new', epoch: 2n });

    // The old holder tries again under epoch 1: refused before its write, nothing committed.
    let lost: unknown;
    try {
      await withFencedTransaction(pool, { name: 'l', owner: 'old', epoch: 1n }, async (c) => {
        await c.query('INSERT INTO write_ahead (owner, epoch) VALUES ($1, $2)', ['old', '1']);
      });
    } catch (err) {
      lost = err;
    }
    expect(lost).toBeInstanceOf(LeaseLostError);
    expect((lost as LeaseLostError).code).toBe('STORE_LEASE_LOST');
    expect((lost as LeaseLostError).found).toMatchObject({ owner: 'new', epoch: 2n, live: true });
    // The new holder writes under epoch 2.
    await withFencedTransaction(pool, { name: 'l', owner: 'new', epoch: 2n }, async (c) => {
      await c.query('INSERT INTO write_ahead (owner, epoch) VALUES ($1, $2)', ['new', '2']);
    });
    const rows = await pool.query('SELECT owner, epoch::int AS epoch FROM write_ahead ORDER BY id');
    expect(rows.rows).toEqual([
      { owner: 'old', epoch: 1 },
      { owner: 'new', epoch: 2 },
    ]);

    // An expired lease nobody took yet fails the check too; so does a missing one.
    expect(await tryAcquireLease(pool, { name: 'x', owner: 'a' }, 200, null)).toMatchObject({ held: true });
    await sleep(300);
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await expect(assertLeaseHeld(c, 'x', 'a', 1n)).rejects.toMatchObject({ code: 'STORE_LEASE_LOST', found: { live: false } });
      await c.query('ROLLBACK');
      await expect(assertLeaseHeld(c, 'none', 'a', 1n)).rejects.toMatchObject({ code: 'STORE_LEASE_LOST', found: { owner: null } });
    } finally {
      c.release();
    }
  });
});
