/**
 * A replica's elector in its own process, for the paused-leader test (real SIGSTOP/SIGCONT).
 *
 * Env: BALLAST_TEST_PG_URL, LEASE_TTL_MS, LEASE_RENEW_MS, LEASE_MARGIN_MS. Prints one JSON line per event:
 * `{"event":"gained","epoch":"3","owner":…}`, `{"event":"lost","epoch":"3","reason":"deadline"}`.
 * Reads commands on stdin, one per line:
 * - `act`: first reads isLeader() (before anything else), then tries a write-ahead insert into `write_ahead`
 *   in a fenced transaction under the epoch it last gained; prints `{"event":"act","isLeader":…,"fenced":"ok"|code}`;
 * - `status`: prints `{"event":"status","isLeader":…}`;
 * - `stop`: stops the elector (releasing the lease) and exits 0.
 */
import { createInterface } from 'node:readline';
import pg from 'pg';
import { LeaderElector } from '../../../packages/ballast/src/ha/elector.ts';
import { withFencedTransaction } from '../../../packages/ballast/src/store/pg/pgTransaction.ts';

const url = process.env.BALLAST_TEST_PG_URL ?? '';
const print = (o: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(o)}\n`);
};
let lastEpoch: bigint | null = null;
const elector = new LeaderElector({
  connectionString: url,
  ttlMs: Number(process.env.LEASE_TTL_MS),
  renewEveryMs: Number(process.env.LEASE_RENEW_MS),
  marginMs: Number(process.env.LEASE_MARGIN_MS),
  onGained: (t) => {
    lastEpoch = t.epoch;
    print({ event: 'gained', epoch: t.epoch.toString(), owner: elector.owner });
  },
  onLost: (l) => print({ event: 'lost', epoch: l.epoch.toString(), reason: l.reason }),
});
const pool = new pg.Pool({ connectionString: url, max: 1 });

async function act(): Promise<void> {
  const isLeader = elector.isLeader(); // before doing anything
  let fenced = 'no-epoch';
  if (lastEpoch !== null) {
    const epoch = lastEpoch;
    try {
      await withFencedTransaction(pool, { name: elector.name, owner: elector.owner, epoch }, async (c) => {
        await c.query('INSERT INTO write_ahead (owner, epoch) VALUES ($1, $2)', [elector.owner, epoch.toString()]);
      });
      fenced = 'ok';
    } catch (err) {
      fenced = String((err as { code?: unknown }).code ?? (err as Error).message); // coded errors carry `code`
    }
  }
  print({ event: 'act', isLeader, fenced });
}

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    if (line === 'act') await act();
    else if (line === 'status') print({ event: 'status', isLeader: elector.isLeader() });
    else if (line === 'stop') {
      await elector.stop();
      await pool.end();
      process.exit(0);
    }
  });
});

await elector.start();
print({ event: 'started', owner: elector.owner });
