/**
 * A small world for the pipeline's own tests (checkQuote, processTransfer, refreshInFlight, reconcileOrigins):
 * the model tests' config, in-memory chains and Relay service (test/model), a real SQLite store file in a temp
 * dir, a cycle row and one planned transfer of 20 000 USDC from alpha to beta. Each function under test gets the
 * narrow dependencies it declares, built here from these real parts: nothing is cast.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChainAdapter } from '../../../src/chains/adapter.ts';
import { createEvmAdapter } from '../../../src/chains/evm/adapter.ts';
import type { LoadedConfig } from '../../../src/config/loadConfig.ts';
import type { WalletRuntime } from '../../../src/cycle/context.ts';
import type { ProcessTransferDeps } from '../../../src/cycle/processTransfer.ts';
import { resolveTargets } from '../../../src/cycle/resolveTargets.ts';
import type { PlannedTransfer } from '../../../src/planner/types.ts';
import type { ChainsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { startCycle } from '../../../src/store/cycles.ts';
import { openSqliteStore } from '../../../src/store/openStore.ts';
import { recordPlannedTransfers } from '../../../src/store/plans.ts';
import type { SqliteStoreDb } from '../../../src/store/sqliteDb.ts';
import { modelSleep, type ModelEnv } from '../../model/harness.ts';
import { inMemoryNode, type ProcessHandle } from '../../model/inMemoryNode.ts';
import { inMemoryRelayClient } from '../../model/inMemoryRelay.ts';
import { UNIT, type Schedule } from '../../model/schedule.ts';
import { CHAIN_IDS, FINALITY_BLOCKS, World } from '../../model/world.ts';

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

/**
 * Builds the world on `env` (one per test file) with its own store file.
 *
 * @param opts.config the config to use instead of the model's (e.g. with a kill switch)
 * @param opts.schedule the world's schedule (default {@link oneNeed})
 */
export async function pipelineWorld(
  env: ModelEnv,
  name: string,
  opts: { config?: LoadedConfig; schedule?: Schedule } = {},
): Promise<PipelineWorld> {
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
  const cycleId = await startCycle(db, { mode: 'once', startedAtMs: world.nowMs });
  const [planId] = await recordPlannedTransfers(db, cycleId, [
    { asset: 'USDC', originChain: 'alpha', destinationChain: 'beta', amountIn: planned.amountIn, reason: planned.reason },
  ]);
  return {
    world,
    db,
    deps,
    chainsDoc,
    cycleId,
    planId: planId!, // one row recorded
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
