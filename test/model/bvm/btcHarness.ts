/**
 * Runs one Bitcoin model schedule against the real cycle through the EVM model's driver (`driveSchedule`:
 * SQLite per schedule, crashes at step boundaries, settling cycles, invariants after every cycle): a config
 * with the Bitcoin chain (regtest, Esplora) and alpha, one BTC asset held as BTC on Bitcoin and WBTC on alpha,
 * the real Bitcoin adapter over the in-memory Esplora `fetch`, alpha's EVM adapter over the in-memory node, and
 * the Bitcoin Relay service.
 */
import type { ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import { createBvmAdapter } from '../../../packages/ballast/src/chains/bvm/adapter.ts';
import { bvmKeyFromWif } from '../../../packages/ballast/src/chains/bvm/wallet.ts';
import { createEvmAdapter } from '../../../packages/ballast/src/chains/evm/adapter.ts';
import type { WalletRuntime } from '../../../packages/ballast/src/cycle/context.ts';
import { BITCOIN_CHAIN_ID, BTC_NATIVE_ADDRESS } from '../../../packages/sandbox/src/quote/vmChains.ts';
import { createModelEnv, driveSchedule, modelSleep, type ContextBuilder, type DriveOutcome, type ModelEnv } from '../harness.ts';
import { inMemoryNode } from '../inMemoryNode.ts';
import { inMemoryRelayClient } from '../inMemoryRelay.ts';
import { ACCOUNTS, FINALITY_BLOCKS } from '../world.ts';
import { inMemoryEsplora } from './btcEsplora.ts';
import { checkBtcAlways, checkBtcSettled } from './btcInvariants.ts';
import { BTC_CHAINS_DOC } from './btcRelay.ts';
import { BTC_BANDS, describeBtcSchedule, type BtcSchedule } from './btcSchedule.ts';
import {
  ALPHA,
  BTC_KEYS,
  BtcWorld,
  MAX_FEE_RATE_SAT_PER_VB,
  MAX_MINER_FEE_SATS,
  MINER_FEE_RESERVE_SATS,
  MODEL_DEADLINE_LEAD_SEC,
} from './btcWorld.ts';

/** Settling cycles and the time before each: room for a cancel to be mined 6 deep, a re-plan, a fill. */
const SETTLE_CYCLES = 6;
const SETTLE_GAP_MS = 12 * 60_000;
const ESPLORA_URL = 'http://127.0.0.1:9/api';

/** The Bitcoin model's config, loaded the way `loadConfig` loads it (URLs are placeholders nobody contacts). */
export function createBtcModelEnv(logLevel = 'silent'): ModelEnv {
  const band = (chain: string, currency: string, wallet: string, b: { min: bigint; target: bigint; max: bigint }) =>
    `    - { chain: ${chain}, currency: "${currency}", wallet: ${wallet}, min: "${b.min}", target: "${b.target}", max: "${b.max}" }`;
  const yaml = [
    'relay: { baseUrl: "http://127.0.0.1:9", referrer: ballast-model }',
    'wallets:',
    '  treasury: { vm: evm, privateKey: "${MODEL_TREASURY_KEY}" }',
    '  treasury_btc: { vm: bvm, privateKey: "${MODEL_BTC_WIF}", network: regtest }',
    'chains:',
    `  alpha: { chainId: ${ALPHA.chainId}, rpcUrl: "http://127.0.0.1:9", confirmations: ${FINALITY_BLOCKS} }`,
    `  bitcoin: { chainId: ${BITCOIN_CHAIN_ID}, vm: bvm, esploraUrl: "${ESPLORA_URL}", network: regtest, minerFeeReserveSats: "${MINER_FEE_RESERVE_SATS}", maxFeeRateSatPerVb: ${MAX_FEE_RATE_SAT_PER_VB} }`,
    'assets:',
    '  BTC:',
    band('bitcoin', BTC_NATIVE_ADDRESS, 'treasury_btc', BTC_BANDS.bitcoin),
    band('alpha', ALPHA.wbtc, 'treasury', BTC_BANDS.alpha),
    'policy:',
    '  minTransfer: "0.1"',
    '  maxTransfer: "5"',
    '  slippageBps: 50',
    '  maxFees: { totalBps: 30, totalUsd: "300", components: { execution: { usd: "20" }, swap: { bps: 20 }, platform: { bps: 10 }, app: { bps: 0 } } }',
    'tracking: { pollMs: 5000, timeoutSec: 60 }',
    'store: "./unused.db"',
    'metrics: { listen: "127.0.0.1:9464" }',
  ].join('\n');
  return createModelEnv(logLevel, {
    yaml,
    vars: { MODEL_TREASURY_KEY: ACCOUNTS.treasury.privateKey, MODEL_BTC_WIF: BTC_KEYS.treasuryWif },
  });
}

function btcContext(env: ModelEnv, world: BtcWorld): ContextBuilder {
  const key = bvmKeyFromWif(BTC_KEYS.treasuryWif, { network: 'regtest', addressType: 'p2wpkh' });
  if (!key.ok) throw new Error(`the model's Bitcoin key does not load: ${key.problem}`);
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
      [
        'bitcoin',
        createBvmAdapter({
          name: 'bitcoin',
          chainId: BITCOIN_CHAIN_ID,
          esploraUrl: ESPLORA_URL,
          network: 'regtest',
          confirmations: 1,
          highValueSats: 1_000n * 100_000_000n,
          minerFeeReserveSats: MINER_FEE_RESERVE_SATS,
          maxFeeRateSatPerVb: MAX_FEE_RATE_SAT_PER_VB,
          maxMinerFeeSats: MAX_MINER_FEE_SATS,
          // The model's blocks come every minute, not ten: one block and a minute for the fill.
          minDeadlineLeadSec: MODEL_DEADLINE_LEAD_SEC,
          signers: new Map([['treasury_btc', key.key]]),
          fetch: inMemoryEsplora(world, handle),
          // The adapter waits on the wall clock: one status read, then the transfer stays in flight.
          maxInclusionWaitMs: 0,
          pollIntervalMs: 0,
        }),
      ],
    ]);
    const wallets = new Map<string, WalletRuntime>([
      ['treasury', { name: 'treasury', vm: 'evm', address: treasury.address }],
      ['treasury_btc', { name: 'treasury_btc', vm: 'bvm', address: key.key.address }],
    ]);
    return {
      config: env.config,
      db,
      relay: inMemoryRelayClient(world, handle, BTC_CHAINS_DOC),
      chains,
      wallets,
      metrics: env.metrics,
      logger: env.logger.child({ process: handle.id }),
      now: () => world.nowMs,
      sleep: modelSleep(world, handle),
    };
  };
}

/** What a Bitcoin schedule did. */
export interface BtcOutcome extends DriveOutcome {
  injected: string[];
  orders: number;
}

/**
 * Runs a Bitcoin schedule to the end and checks the invariants after every cycle.
 *
 * @throws Error naming every violated invariant, the schedule and the faults injected
 */
export async function runBtcSchedule(env: ModelEnv, schedule: BtcSchedule): Promise<BtcOutcome> {
  const world = new BtcWorld(schedule);
  const outcome = await driveSchedule(env, {
    world,
    described: describeBtcSchedule(schedule),
    gapsMs: schedule.gapsMs,
    crashes: schedule.crashes,
    ...(schedule.crashAt ? { crashAt: schedule.crashAt } : {}),
    build: btcContext(env, world),
    checkAlways: (db) => checkBtcAlways(world, db),
    checkSettled: (db) => checkBtcSettled(world, db),
    settleCycles: SETTLE_CYCLES,
    settleGapMs: SETTLE_GAP_MS,
    counters: () => ({ ...world.counters }),
  });
  return { ...outcome, injected: [...world.journal], orders: world.relay.orders.length };
}
