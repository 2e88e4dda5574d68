/**
 * A leader cut off from the database past its term, while its transfer's deposit is on its way, and another
 * replica that takes the transfer over and completes it: what each replica logs and records (docs/ha.md,
 * src/cycle/handOver.ts, src/cycle/cycleTakenOver.ts, src/cycle/cycleSteps.ts `closeAbandoned`).
 *
 * In-process, with real parts: one PostgreSQL database, two replicas with their own store pools and real leader
 * leases (`createLeadership`), the real daemon (`runDaemon`) on replica A and the real cycle on both, the model's
 * in-memory chains and Relay service (test/model) for the money. A's lease connection goes through a TCP proxy
 * the test cuts: A's term ends at its deadline while its executor is held right after broadcasting the deposit
 * (a slow node answer). B takes the lease, closes A's cycle and reconciles A's transfer to `success`. Then A's
 * executor goes on and meets the rows as B left them.
 *
 * What must hold: A logs at warn, not error, that its transfer was left to the replica that leads now and that
 * its cycle was closed by the replica that took over, and its daemon lives on; the attempt is `handed_over`; no
 * row says `origin_failed`; A's cycle row says its leader's term ended (not a crash), and so does B's log; the
 * treasury paid one deposit and lost nothing (the model's invariants).
 */
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
// The model harness first: test/model/world.ts and inMemoryRelay.ts import each other and load in its order.
import { createModelEnv, evmContext, type ModelEnv } from '../model/harness.ts';
import type { ProcessHandle } from '../model/inMemoryNode.ts';
import { checkSettled } from '../model/invariants.ts';
import { BLOCK_MS, World } from '../model/world.ts';
import { oneNeed } from '../unit/cycle/pipelineWorld.ts';
import type { Ballast } from '../../packages/ballast/src/app/createBallast.ts';
import { runDaemon, type DaemonHandle } from '../../packages/ballast/src/app/daemon.ts';
import { createLeadership, type Leadership } from '../../packages/ballast/src/app/leaderGuard.ts';
import type { ChainAdapter } from '../../packages/ballast/src/chains/adapter.ts';
import type { CycleContext } from '../../packages/ballast/src/cycle/context.ts';
import { runCycle } from '../../packages/ballast/src/cycle/runCycle.ts';
import { getCycle } from '../../packages/ballast/src/store/cycles.ts';
import { openPgStore } from '../../packages/ballast/src/store/openStore.ts';
import type { PgStoreDb } from '../../packages/ballast/src/store/pg/pgDb.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { StatusFeed } from '../../packages/ballast/src/webhooks/statusFeed.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { gate } from '../helpers/gate.ts';
import { startTcpProxy } from './helpers/tcpProxy.ts';

const HA = { lease: 'ballast', ttlMs: 1_500, renewEveryMs: 200, marginMs: 300 };
const WARN = 40; // pino's levels
const ERROR = 50;

interface Line {
  level: number;
  msg: string;
  component?: string;
  detail?: string;
}

let env: ModelEnv;
let own: PostgresServer | null = null;
let serverUrl: string;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  env = createModelEnv();
  const shared = inject('ballastPostgresUrl'); // the integration tier's server, else one of our own
  if (!shared) own = await startPostgres();
  serverUrl = shared ?? own!.url;
}, 60_000);
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});
afterAll(async () => {
  await own?.stop();
  env?.close();
});

async function waitUntil(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One replica: its store pool, its lease (through `leaseUrl`), its log kept in memory and its cycle context. */
interface Replica {
  db: PgStoreDb;
  leadership: Leadership;
  ctx: CycleContext;
  lines: Line[];
}

async function replica(
  name: string,
  storeUrl: string,
  leaseUrl: string,
  world: World,
  id: number,
  wrapAlpha: (a: ChainAdapter) => ChainAdapter = (a) => a,
): Promise<Replica> {
  const lines: Line[] = [];
  const logger = pino({ level: 'info', base: { replica: name } }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  const db = await openPgStore(storeUrl);
  closers.push(() => db.close());
  const leadership = createLeadership({ url: leaseUrl, ha: { ...HA, instance: name }, store: db, metrics: env.metrics, logger });
  closers.push(() => leadership.stop());
  const handle: ProcessHandle = { id, alive: true };
  const base = evmContext(env, world)(db, handle);
  const chains = new Map(base.chains).set('alpha', wrapAlpha(base.chains.get('alpha')!)); // the model names alpha
  const ctx: CycleContext = { ...base, chains, logger, leading: () => leadership.leadsRunTerm() };
  return { db, leadership, ctx, lines };
}

/** Replica A's Ballast as `createBallast` wires one on a PostgreSQL store, around the replica's parts. */
function ballastOf(r: Replica, abort: AbortController): Ballast {
  const exclusive = <T>(fn: (signal: AbortSignal) => Promise<T>) => r.leadership.run(abort.signal, fn);
  return {
    ctx: r.ctx,
    db: r.db,
    metrics: env.metrics,
    relay: r.ctx.relay,
    statusFeed: new StatusFeed(),
    webhooks: null,
    runCycle: () => exclusive((signal) => runCycle({ ...r.ctx, signal }, { mode: 'execute', trigger: 'daemon' })),
    mode: 'execute',
    transfer: () => Promise.reject(new Error('no manual transfers in this test')),
    exclusive,
    leadership: r.leadership,
    notifyDispatch: null,
    storeOpen: () => true,
    close: () => r.leadership.stop(),
  };
}

const messages = (r: Replica, level: number) => r.lines.filter((l) => l.level === level).map((l) => l.msg);

describe('a leader cut off past its term while its deposit is on its way', () => {
  it('hands the transfer over at warn, records no origin_failed, and the cycle row says the term ended', async () => {
    const storeUrl = await createDatabase(serverUrl, 'leader_handover');
    const proxy = await startTcpProxy(Number(new URL(storeUrl).port));
    closers.push(() => proxy.close());
    const leaseUrlA = new URL(storeUrl);
    leaseUrlA.port = String(proxy.port);
    const world = new World(oneNeed());

    // A's deposit is broadcast, then A is held before it records the send (a node slow to answer).
    const held = gate();
    const a = await replica('replica-a', storeUrl, leaseUrlA.toString(), world, 1, (alpha) => {
      let step = '';
      return {
        ...alpha,
        sign: async (...s: Parameters<ChainAdapter['sign']>) => ((step = s[1].stepId), alpha.sign(...s)),
        broadcast: async (rawTx: string) => {
          await alpha.broadcast(rawTx);
          if (step === 'deposit') await held.wait();
        },
      };
    });
    const abort = new AbortController();
    const config = { ...env.config, schedule: '0 0 1 1 *', metrics: { ...env.config.metrics, listen: '' } }; // no tick, no server
    const daemon: DaemonHandle = await runDaemon({ config, ballast: ballastOf(a, abort), logger: a.ctx.logger, abort });
    closers.push(() => daemon.stop('test over'));
    await held.reached; // A leads, has written ahead and broadcast its deposit
    const cycleA = (await a.db.get<{ id: number }>('SELECT MAX(id) AS id FROM cycles'))!.id;

    proxy.cut(); // A's lease connection: A's term ends at its deadline
    await waitUntil("A's term to end", () => !a.leadership.isLeader());
    const b = await replica('replica-b', storeUrl, storeUrl, world, 2);
    await b.leadership.start();
    await waitUntil('B to take the lease', () => b.leadership.isLeader());

    // B's cycles: the first closes A's cycle; they reconcile A's transfer (its deposit mined, then filled).
    const statuses = async () => (await listRecentTransfers(b.db, 10)).map((t) => t.status);
    for (let i = 0; i < 10 && (await statuses()).join() !== 'success'; i++) {
      await b.leadership.run(undefined, (signal) => runCycle({ ...b.ctx, signal }, { mode: 'execute', trigger: 'daemon' }));
      world.advance(5 * BLOCK_MS);
    }
    expect(await statuses()).toEqual(['success']);

    held.open(); // A's node answers at last; A goes on with the rows as B left them
    await waitUntil("A's cycle to end", () =>
      a.lines.some((l) => l.component === 'daemon' && /^cycle (\d+ was closed|crashed|finished)/.test(l.msg)),
    );
    const [transfer] = await listRecentTransfers(b.db, 10);

    expect(messages(a, WARN)).toEqual(
      expect.arrayContaining([
        `term ended; transfer ${transfer!.id} is left to the replica that leads now (nothing lost)`,
        `cycle ${cycleA} was closed by the replica that took over (term ended)`,
      ]),
    );
    // What stopped A: its send could not be recorded, B had recorded the deposit's receipt already.
    const handed = a.lines.find((l) => l.component === 'pipeline' && l.level === WARN && l.msg.startsWith('term ended'));
    expect(handed?.detail).toMatch(/^transaction \d+ is confirmed, not signed; sent not recorded/);
    expect(a.lines.filter((l) => l.level >= ERROR).map((l) => l.msg)).toEqual([]); // not 'execution failed', 'cycle crashed'
    expect(a.lines.map((l) => l.msg)).not.toContain('cycle finished');
    expect(messages(b, WARN)).toContain(
      'cycles left by a leader whose term ended (crash, pause, or cut off from the database) closed as aborted by the leader that took over; their transfers are reconciled now',
    );
    const row = await getCycle(b.db, cycleA);
    expect(row?.outcome).toBe('aborted');
    expect(row?.error).toMatch(/^its leader's term ended before this cycle finished \(crash, pause, or cut off from the database\)/);
    const all = await b.db.all<{ status: string }>('SELECT status FROM transfers');
    expect(all.map((t) => t.status)).toEqual(['success']); // nothing written origin_failed
    expect(await checkSettled(world, b.db)).toEqual([]); // one deposit, filled; nothing lost

    // A lives on, as a follower once its connection is back.
    proxy.restore();
    expect(daemon.fatal).toBeNull();
    expect(a.leadership.isLeader()).toBe(false);
  }, 60_000);
});
