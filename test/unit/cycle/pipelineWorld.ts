/**
 * A small world for the pipeline's own tests (checkQuote, processTransfer, refreshInFlight, reconcileOrigins):
 * the model tests' config, in-memory chains and Relay service (test/model), a real SQLite store file in a temp
 * dir, a cycle row and one planned transfer of 20 000 USDC from alpha to beta. Each function under test gets the
 * narrow dependencies it declares, built here from these real parts: nothing is cast.
 *
 * A test file calls {@link pipelineSuite} once (its hooks: one model environment per file, one world per test),
 * then takes the arguments and dependencies of the function under test from {@link checkArgs},
 * {@link processArgs}, {@link checkDeps} and {@link trackingDeps}.
 */
import { policyContentOf, policyText } from '../../../packages/ballast/src/approvals/policyDoc.ts';
import { initPolicy } from '../../../packages/ballast/src/store/approvalPolicies.ts';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import { createEvmAdapter } from '../../../packages/ballast/src/chains/evm/adapter.ts';
import type { LoadedConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import type { CheckArgs, CheckQuoteDeps } from '../../../packages/ballast/src/cycle/checkQuote.ts';
import type { WalletRuntime } from '../../../packages/ballast/src/cycle/context.ts';
import type { RefreshDeps } from '../../../packages/ballast/src/cycle/inFlight.ts';
import type { Mode } from '../../../packages/ballast/src/cycle/mode.ts';
import type { ProcessArgs, ProcessTransferDeps } from '../../../packages/ballast/src/cycle/processTransfer.ts';
import type { ReconcileDeps } from '../../../packages/ballast/src/cycle/reconcile.ts';
import { resolveTargets } from '../../../packages/ballast/src/cycle/resolveTargets.ts';
import type { PlannedTransfer } from '../../../packages/ballast/src/planner/types.ts';
import type { ChainsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { openSqliteStore } from '../../../packages/ballast/src/store/openStore.ts';
import type { SqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import { createModelEnv, modelSleep, type ModelEnv } from '../../model/harness.ts';
import { inMemoryNode, type ProcessHandle } from '../../model/inMemoryNode.ts';
import { inMemoryRelayClient } from '../../model/inMemoryRelay.ts';
import { UNIT, type Schedule } from '../../model/schedule.ts';
import { CHAIN_IDS, FINALITY_BLOCKS, World } from '../../model/world.ts';
import { seedPlan } from './pipelineSeeds.ts';

/** What one test works with. */
export interface PipelineWorld {
  world: World;
  db: SqliteStoreDb;
  /** Every dependency the pipeline functions may ask for (each takes a subset). */
  deps: ProcessTransferDeps;
  chainsDoc: ChainsResponse;
  cycleId: number;
  planId: number;
  /** 20 000 USDC from alpha to beta (base units: 6 decimals). */
  planned: PlannedTransfer;
  close(): void;
}

/** A schedule with one need of 20 000 USDC from alpha to beta and the given faults (none by default). */
export function oneNeed(faults: Partial<Schedule> = {}): Schedule {
  return {
    needs: [{ asset: 'USDC', from: 'alpha', amount: 20_000n * UNIT }],
    gapsMs: [],
    lookupFaults: [],
    reorgs: [],
    sendFaults: [],
    relayFaults: [],
    fills: [],
    crashes: [],
    ...faults,
  };
}

/** How one test's world differs from the default. */
export interface PipelineOptions {
  /** The config to use instead of the model's (e.g. with a kill switch). */
  config?: LoadedConfig;
  /** The world's schedule (default {@link oneNeed}). */
  schedule?: Schedule;
  /**
   * With `policy.approvals` in the config: record it as the approved policy, as `ballast policy init` does
   * (default true; false leaves the store without an approved policy).
   */
  initApprovalPolicy?: boolean;
}

/**
 * Builds the world on `env` (one per test file) with its own store file.
 *
 * @param opts.config the config to use instead of the model's (e.g. with a kill switch)
 * @param opts.schedule the world's schedule (default {@link oneNeed})
 */
export async function pipelineWorld(env: ModelEnv, name: string, opts: PipelineOptions = {}): Promise<PipelineWorld> {
  const world = new World(opts.schedule ?? oneNeed());
  const file = path.join(env.root, `${name}.db`);
  writeFileSync(file, env.migratedStore);
  const db = openSqliteStore(file);
  const handle: ProcessHandle = { id: 1, alive: true };
  const config = opts.config ?? env.config;
  const treasury = config.wallets.treasury!; // the model config names it
  if (treasury.vm !== 'evm') throw new Error('the model treasury is an evm wallet');
  const accounts = new Map([['treasury', treasury.account]]);
  const chains = new Map<string, ChainAdapter>();
  for (const chain of ['alpha', 'beta'] as const) {
    const client = inMemoryNode(world, world.chains[chain], handle);
    chains.set(chain, createEvmAdapter({ name: chain, chainId: CHAIN_IDS[chain], client, accounts, confirmations: FINALITY_BLOCKS }));
  }
  const wallets = new Map<string, WalletRuntime>([['treasury', { name: 'treasury', vm: 'evm', address: treasury.address }]]);
  const relay = inMemoryRelayClient(world, handle);
  const deps: ProcessTransferDeps = {
    config,
    db,
    relay,
    chains,
    wallets,
    metrics: env.metrics,
    logger: env.logger,
    now: () => world.nowMs,
    sleep: modelSleep(world, handle),
  };
  const chainsDoc = (await relay.getChains()).chains;
  const { targets } = await resolveTargets(deps, chainsDoc);
  const band = (chain: string) => targets.find((t) => t.asset === 'USDC' && t.chain === chain)!; // the model config has both
  const planned: PlannedTransfer = {
    asset: 'USDC',
    from: band('alpha'),
    to: band('beta'),
    amountIn: 20_000n * UNIT,
    reason: 'beta below min (test)',
  };
  const content = policyContentOf(config);
  if (content && opts.initApprovalPolicy !== false)
    await initPolicy(db, { text: policyText(content, null), by: 'test', nowMs: world.nowMs });
  const { cycleId, planId } = await seedPlan(db, world.nowMs, {
    asset: 'USDC',
    originChain: 'alpha',
    destinationChain: 'beta',
    amountIn: planned.amountIn,
    reason: planned.reason,
  });
  return {
    world,
    db,
    deps,
    chainsDoc,
    cycleId,
    planId,
    planned,
    close: () => {
      handle.alive = false;
      if (db.sqlite.open) db.sqlite.close();
    },
  };
}

/** The model config with `policy` changed by `change` (e.g. a kill switch or tighter fee caps). */
export function withPolicy(config: LoadedConfig, change: Partial<LoadedConfig['policy']>): LoadedConfig {
  return { ...config, policy: { ...config.policy, ...change } };
}

/** One test file's model environment and the world of its running test. */
export interface PipelineSuite {
  /**
   * The file's model environment (test/model/harness.ts), created before its first test.
   *
   * @throws Error when read before the file's tests start
   */
  readonly env: ModelEnv;
  /** Builds the running test's world ({@link pipelineWorld}); it is closed after the test. */
  world(name: string, opts?: PipelineOptions): Promise<PipelineWorld>;
}

/**
 * Registers the calling test file's hooks: one model environment for the file (closed after its last test) and
 * a world per test built with {@link PipelineSuite.world} (closed after that test).
 */
export function pipelineSuite(): PipelineSuite {
  let env: ModelEnv | undefined;
  let current: PipelineWorld | undefined;
  beforeAll(() => {
    env = createModelEnv();
  });
  afterEach(() => {
    current?.close();
    current = undefined;
  });
  afterAll(() => env?.close());
  const suite: PipelineSuite = {
    get env() {
      if (!env) throw new Error('the model environment exists only while the file runs');
      return env;
    },
    async world(name, opts) {
      current = await pipelineWorld(suite.env, name, opts);
      return current;
    },
  };
  return suite;
}

/** The world's planned transfer as checkQuote takes it: cycle, plan row, transfer and Relay chains document. */
export function checkArgs(p: PipelineWorld): CheckArgs {
  return { cycleId: p.cycleId, planId: p.planId, planned: p.planned, chainsDoc: p.chainsDoc };
}

/** The world's planned transfer as processTransfer takes it, in `mode`. */
export function processArgs(p: PipelineWorld, mode: Mode): ProcessArgs {
  return { ...checkArgs(p), mode };
}

/** Just what checkQuote declares, taken from the world's parts. */
export function checkDeps(p: PipelineWorld): CheckQuoteDeps {
  const { config, db, relay, chains, wallets, metrics, logger, now } = p.deps;
  return { config, db, relay, chains, wallets, metrics, logger, now };
}

/** Just what refreshInFlight and reconcileOrigins declare (the same parts), taken from the world's parts. */
export function trackingDeps(p: PipelineWorld): RefreshDeps & ReconcileDeps {
  const { config, db, relay, chains, metrics, logger, now } = p.deps;
  return { config, db, relay, chains, metrics, logger, now };
}

/** How many rows of `table` (`quotes` or `quote_errors`) name the world's plan row. */
export async function rowsForPlan(p: PipelineWorld, table: 'quotes' | 'quote_errors'): Promise<number> {
  const row = await p.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE plan_id = ?`, p.planId); // one INTEGER column
  return row!.n;
}
