/**
 * Runs one model schedule against the real cycle (`runCycle` with its planner, executor and reconciler): a
 * config loaded the way `loadConfig` loads it, a SQLite file per schedule (a copy of a store migrated once per
 * test file), in-memory chains and Relay service,
 * a virtual clock, and processes that crash at the schedule's step boundaries. A crash closes the process's
 * database and kills its chain and Relay handles, so nothing after it can write or send; the next cycle runs in
 * a new process on the reopened file. After the faulty cycles, faults stop and settling cycles run with time
 * moved past every deadline. The invariants (invariants.ts) are checked after every cycle. The driver
 * ({@link driveSchedule}, {@link ModelProcess}) is shared with the Bitcoin model (test/model/bvm).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { armCrashPoints, type CrashPoint } from '../../packages/ballast/src/core/crashPoints.ts';
import { shortErrorMessage } from '../../packages/ballast/src/core/errorMessage.ts';
import { loadConfig, type LoadedConfig } from '../../packages/ballast/src/config/loadConfig.ts';
import type { CycleContext, WalletRuntime } from '../../packages/ballast/src/cycle/context.ts';
import type { ChainAdapter } from '../../packages/ballast/src/chains/adapter.ts';
import { createEvmAdapter } from '../../packages/ballast/src/chains/evm/adapter.ts';
import { runCycle } from '../../packages/ballast/src/cycle/runCycle.ts';
import { createMetrics, type BallastMetrics } from '../../packages/ballast/src/metrics/metrics.ts';
import { openSqliteStore } from '../../packages/ballast/src/store/openStore.ts';
import type { StoreDb } from '../../packages/ballast/src/store/db.ts';
import type { SqliteStoreDb } from '../../packages/ballast/src/store/sqliteDb.ts';
import { inMemoryNode, type ProcessHandle } from './inMemoryNode.ts';
import { inMemoryRelayClient } from './inMemoryRelay.ts';
import { checkAlways, checkSettled } from './invariants.ts';
import { BANDS, describeSchedule, type ChainName, type Schedule } from './schedule.ts';
import { ACCOUNTS, ADDR, CHAIN_IDS, FINALITY_BLOCKS, World } from './world.ts';

/**
 * Settling cycles run after the faulty ones, and the virtual time before each (past every deadline), ms. A
 * transfer is failed only on a second proof of absence a cycle after the first, and a failure can free a nonce
 * that the next transfer then needs proven too: six cycles leave room for such a chain.
 */
const SETTLE_CYCLES = 6;
const SETTLE_GAP_MS = 6 * 60_000;

/**
 * What every schedule of a test file shares: the loaded config, one metrics registry, a logger, a temp root and
 * the bytes of a freshly migrated store.
 */
export interface ModelEnv {
  root: string;
  config: LoadedConfig;
  metrics: BallastMetrics;
  logger: Logger;
  /**
   * A SQLite store file as `openSqliteStore` leaves a new one (every migration applied, no rows, WAL mode),
   * checkpointed into its main file: each schedule starts from a copy instead of migrating a new file.
   */
  migratedStore: Buffer;
  /** Removes the temp root. */
  close(): void;
}

/** The EVM treasury's wallet entry with its key on the host (the model's default). */
const KEY_TREASURY = '{ vm: evm, privateKey: "${MODEL_TREASURY_KEY}" }';

/**
 * Writes the model's config (two chains, USDC and USDT bands, the demo's fee policy, 1 s polls, 60 s tracking)
 * into a temp dir (under /dev/shm when there is one) and loads it with `loadConfig`. The RPC and API URLs are
 * loopback placeholders: nothing is contacted.
 *
 * @param logLevel pino level for Ballast's logs (default silent; `BALLAST_MODEL_LOG` in the test file)
 * @param config another model's config instead (the Bitcoin model's): its YAML lines and the variables they use
 */
export function createModelEnv(logLevel = 'silent', config?: { yaml: string; vars: Record<string, string> }): ModelEnv {
  const base = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const root = mkdtempSync(path.join(base, 'ballast-model-'));
  if (config) return loadModelEnv(root, config.yaml, config.vars, logLevel);
  return loadModelEnv(root, evmModelYaml(KEY_TREASURY), { MODEL_TREASURY_KEY: ACCOUNTS.treasury.privateKey }, logLevel);
}

/**
 * The EVM model's environment with another treasury wallet entry (e.g. its key in a key service, docs/keys.md):
 * the same store template, metrics and logger, the config loaded from a file beside the first.
 *
 * @param treasuryWallet the treasury's wallet entry, a YAML flow mapping
 */
export function withTreasuryWallet(env: ModelEnv, treasuryWallet: string): ModelEnv {
  const file = path.join(mkdtempSync(path.join(env.root, 'config-')), 'ballast.yaml');
  writeFileSync(file, `${evmModelYaml(treasuryWallet)}\n`);
  return { ...env, config: loadConfig(file, {}) };
}

function evmModelYaml(treasuryWallet: string): string {
  const band = (chain: ChainName, asset: 'USDC' | 'USDT') =>
    `    - { chain: ${chain}, currency: "${ADDR[asset]}", wallet: treasury, min: "${BANDS[chain].min}", target: "${BANDS[chain].target}", max: "${BANDS[chain].max}" }`;
  return [
    'relay: { baseUrl: "http://127.0.0.1:9", referrer: ballast-model }',
    'wallets:',
    `  treasury: ${treasuryWallet}`,
    'chains:',
    `  alpha: { chainId: ${CHAIN_IDS.alpha}, rpcUrl: "http://127.0.0.1:9", confirmations: ${FINALITY_BLOCKS} }`,
    `  beta: { chainId: ${CHAIN_IDS.beta}, rpcUrl: "http://127.0.0.1:9", confirmations: ${FINALITY_BLOCKS} }`,
    'assets:',
    '  USDC:',
    band('alpha', 'USDC'),
    band('beta', 'USDC'),
    '  USDT:',
    band('alpha', 'USDT'),
    band('beta', 'USDT'),
    'policy:',
    '  minTransfer: "100"',
    '  maxTransfer: "50000"',
    '  slippageBps: 50',
    '  maxFees: { totalBps: 30, totalUsd: "25", components: { execution: { usd: "2" }, swap: { bps: 20 }, platform: { bps: 10 }, app: { bps: 0 } } }',
    'tracking: { pollMs: 1000, timeoutSec: 60 }',
    'store: "./unused.db"',
    'metrics: { listen: "127.0.0.1:9464" }',
  ].join('\n');
}

function loadModelEnv(root: string, yaml: string, vars: Record<string, string>, logLevel: string): ModelEnv {
  const file = path.join(root, 'ballast.yaml');
  writeFileSync(file, `${yaml}\n`);
  const config = loadConfig(file, vars);
  // createMetrics has no registry option and registers process collectors: one instance serves every process.
  const metrics = createMetrics();
  const logger = pino({ level: logLevel }, pino.destination(2));
  return {
    root,
    config,
    metrics,
    logger,
    migratedStore: migratedStoreBytes(root),
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Creates and migrates a store file with `openSqliteStore`, moves its WAL into the main file and returns the
 * file's bytes (the file is removed). A copy of them opens, through `openSqliteStore`, as the same schema at the
 * latest version with nothing left to migrate.
 */
function migratedStoreBytes(root: string): Buffer {
  const file = path.join(root, 'migrated-template.db');
  const store = openSqliteStore(file);
  try {
    store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.sqlite.close();
  }
  const bytes = readFileSync(file);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  return bytes;
}

/** Thrown by the crash handler at the boundary where the process dies. */
export class ModelCrash extends Error {
  constructor(
    readonly point: CrashPoint,
    readonly pass: number,
  ) {
    super(`process crashed at ${point} (boundary pass ${pass})`);
  }
}

/** Builds a process's cycle context on its database connection and handle (the model's chains and Relay). */
export type ContextBuilder = (db: SqliteStoreDb, handle: ProcessHandle) => CycleContext;

/** One Ballast process: its database connection, handles and cycle context. */
export class ModelProcess {
  readonly handle: ProcessHandle;
  readonly db: SqliteStoreDb;
  readonly ctx: CycleContext;

  constructor(dbFile: string, id: number, build: ContextBuilder) {
    this.handle = { id, alive: true };
    this.db = openSqliteStore(dbFile);
    // A process crash, not a power loss, is modelled: committed rows are in the OS cache either way.
    this.db.sqlite.pragma('synchronous = OFF');
    this.ctx = build(this.db, this.handle);
  }

  /**
   * The process dies: its database closes and its handles refuse every further call. The raw connection is
   * closed at once, not through the store's async `close()` (which would wait for a transaction in progress and
   * let the dead process write meanwhile): an open transaction is rolled back, as a crash would leave it, and
   * every later statement of this process fails.
   */
  kill(): void {
    if (!this.handle.alive) return;
    this.handle.alive = false;
    if (this.db.sqlite.open) this.db.sqlite.close();
  }
}

/**
 * The EVM model's process context: alpha and beta through in-memory nodes that die with the process, the in-memory
 * Relay, the virtual clock. Takes any store (the HA handover test runs it on PostgreSQL).
 *
 * @throws Error when the model config's treasury is not an EVM wallet
 */
export function evmContext(env: ModelEnv, world: World): (db: StoreDb, handle: ProcessHandle) => CycleContext {
  return (db, handle) => {
    const treasury = env.config.wallets.treasury!; // the model config names it
    if (treasury.vm !== 'evm') throw new Error('the model treasury is an evm wallet');
    const accounts = new Map([['treasury', treasury.account]]);
    const chains = new Map<string, ChainAdapter>();
    for (const name of ['alpha', 'beta'] as const) {
      const client = inMemoryNode(world, world.chains[name], handle);
      chains.set(name, createEvmAdapter({ name, chainId: CHAIN_IDS[name], client, accounts, confirmations: FINALITY_BLOCKS }));
    }
    const wallets = new Map<string, WalletRuntime>([['treasury', { name: 'treasury', vm: 'evm', address: treasury.address }]]);
    return {
      config: env.config,
      db,
      relay: inMemoryRelayClient(world, handle),
      chains,
      wallets,
      metrics: env.metrics,
      logger: env.logger.child({ process: handle.id }),
      now: () => world.nowMs,
      sleep: modelSleep(world, handle),
    };
  };
}

/** `ctx.sleep` of a model process: virtual time passes; a dead process cannot wait. */
export function modelSleep(world: { advance(ms: number): void }, handle: ProcessHandle): (ms: number) => Promise<void> {
  return async (ms) => {
    if (!handle.alive) throw new Error(`process ${handle.id} has ended; no more waiting`);
    world.advance(ms);
  };
}

/** What a schedule did, for the test's own checks and reports. */
export interface ScheduleOutcome {
  cycles: number;
  crashes: number;
  /** Calls counted while faults were on: node lookups, broadcasts, Relay calls, step boundaries passed. */
  calls: { lookups: number; sends: number; relay: number; boundaries: number };
  transfers: number;
  statuses: Record<string, number>;
  /** The faults injected, in order (as in failure reports). */
  injected: string[];
}

let runCount = 0;

/** What {@link driveSchedule} needs of a model: its world, the schedule's timing and crashes, and its checks. */
export interface ModelDrive {
  world: { faultsOn: boolean; readonly journal: string[]; advance(ms: number): void };
  /** The schedule as one line, for failure reports. */
  described: string;
  gapsMs: readonly number[];
  crashes: readonly number[];
  crashAt?: readonly { point: CrashPoint; hit: number }[];
  build: ContextBuilder;
  checkAlways(db: SqliteStoreDb): Promise<string[]>;
  checkSettled(db: SqliteStoreDb): Promise<string[]>;
  /** Settling cycles and the virtual time before each, ms (default {@link SETTLE_CYCLES}, {@link SETTLE_GAP_MS}). */
  settleCycles?: number;
  settleGapMs?: number;
  /** Counters of calls made while faults were on, read when the faults stop. */
  counters(): Record<string, number>;
}

/** What {@link driveSchedule} saw: cycles, crashes, calls while faults were on, transfers by status. */
export interface DriveOutcome {
  cycles: number;
  crashes: number;
  calls: Record<string, number>;
  transfers: number;
  statuses: Record<string, number>;
}

/**
 * Runs a model's schedule through the real cycle: its faulty cycles with crashes at step boundaries, then the
 * settling cycles with faults off, checking the invariants after every cycle.
 *
 * @throws Error naming every violated invariant, with the schedule and the faults injected, on the first cycle
 *   after which one fails; or when `runCycle` throws while its process is alive (it must not)
 */
export async function driveSchedule(env: ModelEnv, drive: ModelDrive): Promise<DriveOutcome> {
  const { world } = drive;
  const dir = mkdtempSync(path.join(env.root, `run-${++runCount}-`));
  const dbFile = path.join(dir, 'ballast.db');
  // The first process opens a copy of a migrated store: the same schema as migrating a new file, without the cost.
  writeFileSync(dbFile, env.migratedStore);
  let processes = 1;
  let proc = new ModelProcess(dbFile, processes, drive.build);
  let passes = 0;
  let crashes = 0;
  let cycles = 0;
  const crashAt = new Set(drive.crashes);
  const crashAtPoint = (point: CrashPoint, hit: number) => (drive.crashAt ?? []).some((c) => c.point === point && c.hit === hit);
  armCrashPoints((point, hit) => {
    if (!world.faultsOn) return;
    passes += 1;
    if (!crashAt.has(passes) && !crashAtPoint(point, hit)) return;
    crashes += 1;
    world.journal.push(`crash at ${point} #${hit} (pass ${passes})`);
    proc.kill();
    throw new ModelCrash(point, passes);
  });
  const fail = (when: string, violations: string[]) => {
    throw new Error(
      [
        `${when}:`,
        ...violations.map((v) => `  - ${v}`),
        `schedule: ${drive.described}`,
        `injected: ${world.journal.join(' | ') || 'nothing'}`,
      ].join('\n'),
    );
  };
  const cycle = async (label: string, settled: boolean) => {
    cycles += 1;
    const running = proc;
    try {
      await runCycle(running.ctx, { mode: 'execute', trigger: 'once' });
    } catch (error) {
      if (running.handle.alive) fail(`${label}: runCycle threw while its process was alive`, [shortErrorMessage(error)]);
    }
    if (!proc.handle.alive) proc = new ModelProcess(dbFile, ++processes, drive.build);
    const violations = settled ? await drive.checkSettled(proc.db) : await drive.checkAlways(proc.db);
    if (violations.length > 0) fail(`after ${label}`, violations);
  };
  try {
    for (const [i, gapMs] of drive.gapsMs.entries()) {
      world.advance(gapMs);
      await cycle(`cycle ${i + 1}`, false);
    }
    world.faultsOn = false;
    const calls = { ...drive.counters(), boundaries: passes };
    const settleCycles = drive.settleCycles ?? SETTLE_CYCLES;
    for (let i = 0; i < settleCycles; i++) {
      world.advance(drive.settleGapMs ?? SETTLE_GAP_MS);
      await cycle(`settling cycle ${i + 1}`, i === settleCycles - 1);
    }
    const rows = await proc.db.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM transfers GROUP BY status');
    return {
      cycles,
      crashes,
      calls,
      transfers: rows.reduce((s, r) => s + r.n, 0),
      statuses: Object.fromEntries(rows.map((r) => [r.status, r.n])),
    };
  } finally {
    armCrashPoints(null);
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs an EVM schedule to the end and checks the invariants after every cycle (see {@link driveSchedule}).
 *
 * @throws Error as {@link driveSchedule}
 */
export async function runSchedule(env: ModelEnv, schedule: Schedule): Promise<ScheduleOutcome> {
  const world = new World(schedule);
  const outcome = await driveSchedule(env, {
    world,
    described: describeSchedule(schedule),
    gapsMs: schedule.gapsMs,
    crashes: schedule.crashes,
    ...(schedule.crashAt ? { crashAt: schedule.crashAt } : {}),
    build: evmContext(env, world),
    checkAlways: (db) => checkAlways(world, db),
    checkSettled: (db) => checkSettled(world, db),
    counters: () => ({ ...world.counters }),
  });
  const calls = outcome.calls as ScheduleOutcome['calls']; // the EVM world's counters plus boundaries
  return { ...outcome, calls, injected: [...world.journal] };
}
