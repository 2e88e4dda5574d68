/**
 * The paused-leader case with a real SIGSTOP/SIGCONT: the leader runs in its own process
 * (test/e2e/ha/electorChild.ts), is stopped past its lease, and a follower takes over at a higher epoch, never
 * before the old lease expired on the database clock. When resumed, the old leader reports not leader before
 * doing anything, and its fenced write-ahead under the old epoch is refused by the database. Measured takeover
 * times are printed (ttl + renew interval on an idle machine; not asserted, as they grow with machine load).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import { LeaderElector } from '../../../packages/ballast/src/ha/elector.ts';
import { ensureLeaseTable, readLease } from '../../../packages/ballast/src/store/pg/lease.ts';
import { withFencedTransaction } from '../../../packages/ballast/src/store/pg/pgTransaction.ts';

const TIMING = { ttlMs: 3_000, renewEveryMs: 1_000, marginMs: 600 };
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let server: PostgresServer | null = null;
let child: ChildProcessWithoutNullStreams | null = null;
let follower: LeaderElector | null = null;
let pool: pg.Pool | null = null;

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  await follower?.stop();
  await pool?.end();
  await server?.stop();
});

type ChildEvent = { event: string; [k: string]: unknown };

/** Starts the child elector; returns a function resolving with the next not yet returned event of a kind. */
function startChild(url: string): (kind: string, timeoutMs?: number) => Promise<ChildEvent> {
  child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/e2e/ha/electorChild.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      BALLAST_TEST_PG_URL: url,
      LEASE_TTL_MS: String(TIMING.ttlMs),
      LEASE_RENEW_MS: String(TIMING.renewEveryMs),
      LEASE_MARGIN_MS: String(TIMING.marginMs),
    },
  });
  const seen: ChildEvent[] = [];
  const waiters: (() => void)[] = [];
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    seen.push(JSON.parse(line) as ChildEvent); // the child prints one JSON object per line
    for (const w of waiters.splice(0)) w();
  });
  const taken = new Set<number>();
  return async (kind, timeoutMs = 20_000) => {
    const until = performance.now() + timeoutMs;
    for (;;) {
      const i = seen.findIndex((e, j) => !taken.has(j) && e.event === kind);
      if (i >= 0) {
        taken.add(i);
        return seen[i]!;
      }
      if (performance.now() > until) throw new Error(`child: no ${kind} event; saw ${JSON.stringify(seen)}; stderr ${stderr}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 100);
      });
    }
  };
}

describe('paused leader (SIGSTOP past its lease, then SIGCONT)', () => {
  it('is replaced only once its lease expired, then refuses to act and cannot write ahead', async () => {
    server = await startPostgres();
    const url = await createDatabase(server.url, 'paused');
    pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on('error', () => undefined); // idle connections ended by the shutdown at the end
    await ensureLeaseTable(pool);
    await pool.query('CREATE TABLE write_ahead (id serial PRIMARY KEY, owner text NOT NULL, epoch bigint NOT NULL)');

    const next = startChild(url);
    const gained = await next('gained');
    const oldEpoch = BigInt(gained.epoch as string);
    const childOwner = gained.owner as string;

    let followerGainedAt: number | null = null;
    follower = new LeaderElector({
      connectionString: url,
      ...TIMING,
      owner: 'follower',
      onGained: () => {
        followerGainedAt ??= performance.now();
      },
    });
    await follower.start();
    expect(follower.isLeader()).toBe(false);

    // As leader, the child's fenced write-ahead commits.
    child!.stdin.write('act\n');
    expect(await next('act')).toEqual({ event: 'act', isLeader: true, fenced: 'ok' });

    child!.kill('SIGSTOP');
    const stoppedAt = performance.now();
    await new Promise((r) => setTimeout(r, 200)); // a renew sent just before the stop has landed by now
    const lastRenew = await readLease(pool, 'ballast');
    expect(lastRenew).toMatchObject({ owner: childOwner, epoch: oldEpoch });

    // Queue the next command while it is stopped: the first thing it sees on waking up.
    child!.stdin.write('act\n');
    const took = await (async () => {
      const until = performance.now() + 60_000; // generous: how fast is printed below, not asserted
      while (followerGainedAt === null && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
      return followerGainedAt;
    })();
    expect(took).not.toBeNull();
    const now = await readLease(pool, 'ballast');
    expect(now?.owner).toBe('follower');
    expect(now!.epoch).toBe(oldEpoch + 1n);
    expect(follower.epoch()).toBe(oldEpoch + 1n);
    // On the database clock: taken only after the paused leader's lease expired (a protocol property). How soon
    // after (ttl + renew interval on an idle machine) depends on when the follower's attempt runs, so it is
    // printed, not asserted.
    const gapMs = now!.acquiredAt.getTime() - lastRenew!.renewedAt.getTime();
    console.log(
      `paused leader: takeover ${(took! - stoppedAt).toFixed(0)} ms after SIGSTOP; ${gapMs} ms after its last renew ` +
        `on the database clock (ttl ${TIMING.ttlMs} ms, bound ttl + renew = ${TIMING.ttlMs + TIMING.renewEveryMs} ms)`,
    );
    expect(now!.acquiredAt.getTime()).toBeGreaterThanOrEqual(lastRenew!.expiresAt.getTime());
    expect(gapMs).toBeGreaterThanOrEqual(TIMING.ttlMs);

    child!.kill('SIGCONT');
    // Woken up: not leader before anything else, and the fenced write under the old epoch is refused.
    expect(await next('act')).toEqual({ event: 'act', isLeader: false, fenced: 'STORE_LEASE_LOST' });
    expect(await next('lost')).toMatchObject({ epoch: String(oldEpoch), reason: 'deadline' });
    child!.stdin.write('status\n');
    expect(await next('status')).toEqual({ event: 'status', isLeader: false });

    // The new leader writes ahead under its epoch; the old epoch wrote only while it held the lease.
    await withFencedTransaction(pool, { name: 'ballast', owner: 'follower', epoch: follower.epoch()! }, async (c) => {
      await c.query('INSERT INTO write_ahead (owner, epoch) VALUES ($1, $2)', ['follower', follower!.epoch()!.toString()]);
    });
    const rows = (await pool.query('SELECT owner, epoch::text AS epoch FROM write_ahead ORDER BY id')).rows;
    expect(rows).toEqual([
      { owner: childOwner, epoch: String(oldEpoch) },
      { owner: 'follower', epoch: String(oldEpoch + 1n) },
    ]);

    // Two renew intervals later the resumed process is still a follower and the follower still leads.
    await new Promise((r) => setTimeout(r, 2 * TIMING.renewEveryMs));
    child!.stdin.write('status\n');
    expect(await next('status')).toEqual({ event: 'status', isLeader: false });
    expect(follower.isLeader()).toBe(true);

    child!.stdin.write('stop\n');
    await new Promise<void>((r) => (child!.exitCode !== null ? r() : child!.once('exit', () => r())));
    expect(child!.exitCode).toBe(0);
    expect(follower.epoch()).toBe(oldEpoch + 1n);
  }, 120_000);
});
