/**
 * Runs one Solana model schedule against the real cycle through the EVM model's driver (`driveSchedule`:
 * SQLite per schedule, crashes at step boundaries, settling cycles, invariants after every cycle): a config
 * with the Solana chain (finalized commitment) and alpha, one USDC asset held on both, the real Solana adapter
 * over the in-memory JSON-RPC `fetch`, alpha's EVM adapter over the in-memory node, and the Solana Relay
 * service. The adapter waits for inclusion on the wall clock; the model lets {@link INCLUSION_WAIT_MS} of
 * virtual time pass instead and then has it read the status once.
 */
import type { ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import { createEvmAdapter } from '../../../packages/ballast/src/chains/evm/adapter.ts';
import { createSvmAdapter } from '../../../packages/ballast/src/chains/svm/adapter.ts';
import { svmKeypairSigner } from '../../../packages/ballast/src/chains/svm/signer.ts';
import type { WalletRuntime } from '../../../packages/ballast/src/cycle/context.ts';
import { SOLANA_CHAIN_ID } from '../../../packages/sandbox/src/quote/vmChains.ts';
import { createModelEnv, driveSchedule, modelSleep, type ContextBuilder, type DriveOutcome, type ModelEnv } from '../harness.ts';
import { inMemoryNode, type ProcessHandle } from '../inMemoryNode.ts';
import { inMemoryRelayClient } from '../inMemoryRelay.ts';
import { ACCOUNTS, FINALITY_BLOCKS } from '../world.ts';
import { ALPHA, SOL } from './solAccounts.ts';
import { checkSolAlways, checkSolSettled } from './solInvariants.ts';
import { SOL_CHAINS_DOC, SOLANA_RPC_URL } from './solRelay.ts';
import { inMemorySolanaRpc } from './solRpc.ts';
import { describeSolSchedule, SOL_BANDS, type SolSchedule } from './solSchedule.ts';
import { SolWorld } from './solWorld.ts';

/** Settling cycles and the time before each: room for a blockhash to expire, a re-plan, a fill. */
const SETTLE_CYCLES = 6;
const SETTLE_GAP_MS = 3 * 60_000;

/**
 * Settling cycles of a schedule: {@link SETTLE_CYCLES}, plus the cycles the solver's own plans take (each fill
 * plan's `delayMs` and `indexDelayMs`, rounded up to whole gaps). Orders may follow one another (a refund, then
 * the need paid again by a new order), so the last one may settle only after the sum of those delays; the
 * invariants judge the end once the solver has had that time, and are unchanged. Pure.
 */
export function solSettleCycles(schedule: Pick<SolSchedule, 'fills'>): number {
  return schedule.fills.reduce((n, f) => n + Math.ceil((f.delayMs + f.indexDelayMs) / SETTLE_GAP_MS), SETTLE_CYCLES);
}
/** Virtual time a `waitForInclusion` lets pass before its one status read (a finalized block is 13 s deep). */
export const INCLUSION_WAIT_MS = 15_000;
/** The priority-fee and compute caps of the model's chain (`maxMicroLamportsPerCu`, `maxComputeUnits`). */
export const MAX_MICRO_LAMPORTS_PER_CU = 1_000_000n;
export const MAX_COMPUTE_UNITS = 1_400_000;
/** Highest fee a transaction of ours may pay: one signature plus the highest priority fee, lamports. */
export const MAX_FEE_LAMPORTS = 5_000n + (MAX_MICRO_LAMPORTS_PER_CU * BigInt(MAX_COMPUTE_UNITS)) / 1_000_000n;

/** The Solana model's config, loaded the way `loadConfig` loads it (URLs are placeholders nobody contacts). */
export function createSolModelEnv(logLevel = 'silent'): ModelEnv {
  const band = (chain: string, currency: string, wallet: string, b: { min: bigint; target: bigint; max: bigint }) =>
    `    - { chain: ${chain}, currency: "${currency}", wallet: ${wallet}, min: "${b.min}", target: "${b.target}", max: "${b.max}" }`;
  const yaml = [
    'relay: { baseUrl: "http://127.0.0.1:9", referrer: ballast-model }',
    'wallets:',
    '  treasury: { vm: evm, privateKey: "${MODEL_TREASURY_KEY}" }',
    `  treasury_sol: { vm: svm, privateKey: "\${MODEL_SOL_KEY}", address: "${SOL.treasury}" }`,
    'chains:',
    `  alpha: { chainId: ${ALPHA.chainId}, rpcUrl: "http://127.0.0.1:9", confirmations: ${FINALITY_BLOCKS} }`,
    `  solana: { chainId: ${SOLANA_CHAIN_ID}, vm: svm, rpcUrl: "${SOLANA_RPC_URL}", commitment: finalized, maxMicroLamportsPerCu: "${MAX_MICRO_LAMPORTS_PER_CU}", maxComputeUnits: ${MAX_COMPUTE_UNITS} }`,
    'assets:',
    '  USDC:',
    band('solana', SOL.usdcMint, 'treasury_sol', SOL_BANDS.solana),
    band('alpha', ALPHA.usdc, 'treasury', SOL_BANDS.alpha),
    'policy:',
    '  minTransfer: "100"',
    '  maxTransfer: "50000"',
    '  slippageBps: 50',
    '  maxFees: { totalBps: 30, totalUsd: "25", components: { execution: { usd: "2" }, swap: { bps: 20 }, platform: { bps: 10 }, app: { bps: 0 } } }',
    'tracking: { pollMs: 1000, timeoutSec: 60 }',
    'store: "./unused.db"',
    'metrics: { listen: "127.0.0.1:9464" }',
  ].join('\n');
  return createModelEnv(logLevel, { yaml, vars: { MODEL_TREASURY_KEY: ACCOUNTS.treasury.privateKey, MODEL_SOL_KEY: SOL.secretKeyBase58 } });
}

/** The real Solana adapter over the model's JSON-RPC, its inclusion wait on virtual time. */
function solanaAdapter(world: SolWorld, handle: ProcessHandle): ChainAdapter {
  const adapter = createSvmAdapter({
    name: 'solana',
    chainId: SOLANA_CHAIN_ID,
    rpcUrl: SOLANA_RPC_URL,
    wsUrl: 'ws://127.0.0.1:10',
    commitment: 'finalized',
    maxMicroLamportsPerCu: MAX_MICRO_LAMPORTS_PER_CU,
    maxComputeUnits: MAX_COMPUTE_UNITS,
    signers: new Map([['treasury_sol', svmKeypairSigner(SOL.keypair)]]),
    fetch: inMemorySolanaRpc(world, handle),
    pollIntervalMs: 0,
  });
  return {
    ...adapter,
    async waitForInclusion(tx, timeoutMs) {
      if (!handle.alive) throw new Error(`process ${handle.id} has ended; no more waiting`);
      world.advance(Math.min(timeoutMs, INCLUSION_WAIT_MS));
      return adapter.waitForInclusion(tx, 0);
    },
  };
}

function solContext(env: ModelEnv, world: SolWorld): ContextBuilder {
  return (db, handle) => {
    const treasury = env.config.wallets.treasury!; // the model config names it
    if (treasury.vm !== 'evm') throw new Error('the model treasury is an evm wallet');
    const chains = new Map<string, ChainAdapter>([
      [
        'alpha',
        createEvmAdapter({
          name: 'alpha',
          chainId: ALPHA.chainId,
          client: inMemoryNode(world, world.alpha, handle),
          accounts: new Map([['treasury', treasury.account]]),
          confirmations: FINALITY_BLOCKS,
        }),
      ],
      ['solana', solanaAdapter(world, handle)],
    ]);
    const wallets = new Map<string, WalletRuntime>([
      ['treasury', { name: 'treasury', vm: 'evm', address: treasury.address }],
      ['treasury_sol', { name: 'treasury_sol', vm: 'svm', address: SOL.treasury }],
    ]);
    return {
      config: env.config,
      db,
      relay: inMemoryRelayClient(world, handle, SOL_CHAINS_DOC),
      chains,
      wallets,
      metrics: env.metrics,
      logger: env.logger.child({ process: handle.id }),
      now: () => world.nowMs,
      sleep: modelSleep(world, handle),
    };
  };
}

/** What a Solana schedule did. */
export interface SolOutcome extends DriveOutcome {
  injected: string[];
  orders: number;
  unknownMethods: string[];
}

/**
 * Runs a Solana schedule to the end and checks the invariants after every cycle.
 *
 * @throws Error naming every violated invariant, the schedule and the faults injected
 */
export async function runSolSchedule(env: ModelEnv, schedule: SolSchedule): Promise<SolOutcome> {
  const world = new SolWorld(schedule);
  const outcome = await driveSchedule(env, {
    world,
    described: describeSolSchedule(schedule),
    gapsMs: schedule.gapsMs,
    crashes: schedule.crashes,
    ...(schedule.crashAt ? { crashAt: schedule.crashAt } : {}),
    build: solContext(env, world),
    checkAlways: (db) => checkSolAlways(world, db),
    checkSettled: (db) => checkSolSettled(world, db),
    settleCycles: solSettleCycles(schedule),
    settleGapMs: SETTLE_GAP_MS,
    counters: () => ({ ...world.counters }),
  });
  return { ...outcome, injected: [...world.journal], orders: world.relay.orders.length, unknownMethods: [...world.unknownMethods] };
}
