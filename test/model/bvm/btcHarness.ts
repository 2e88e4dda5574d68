/**
 * Runs one Bitcoin model schedule against the real cycle through the EVM model's driver (`driveSchedule`:
 * SQLite per schedule, crashes at step boundaries, settling cycles, invariants after every cycle): a config
 * with the Bitcoin chain (regtest, Esplora) and alpha, one BTC asset held as BTC on Bitcoin and WBTC on alpha,
 * the real Bitcoin adapter over the in-memory Esplora `fetch` (with the model's one-minute blocks and virtual
 * clock), alpha's EVM adapter over the in-memory node, and the Bitcoin Relay service. Two configs: Ballast
 * allowed to spend our own unconfirmed change (`chains.bitcoin.allowOwnUnconfirmedInputs: true`) or not; a
 * schedule picks one ({@link BtcSchedule.allowOwnUnconfirmedInputs}).
 */
import type { ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import { createBvmAdapter, type BvmAdapterOptions } from '../../../packages/ballast/src/chains/bvm/adapter.ts';
import { bvmKeyFromWif, type BvmKey } from '../../../packages/ballast/src/chains/bvm/wallet.ts';
import { createEvmAdapter } from '../../../packages/ballast/src/chains/evm/adapter.ts';
import type { WalletRuntime } from '../../../packages/ballast/src/cycle/context.ts';
import { BITCOIN_CHAIN_ID, BTC_NATIVE_ADDRESS } from '../../../packages/sandbox/src/quote/vmChains.ts';
import { createModelEnv, driveSchedule, modelSleep, type ContextBuilder, type DriveOutcome, type ModelEnv } from '../harness.ts';
import { inMemoryNode, type ProcessHandle } from '../inMemoryNode.ts';
import { inMemoryRelayClient } from '../inMemoryRelay.ts';
import { ACCOUNTS, FINALITY_BLOCKS } from '../world.ts';
import { inMemoryEsplora } from './btcEsplora.ts';
import type { TransferRow } from '../../../packages/ballast/src/store/transfers.ts';
import { checkBtcAlways, transfersOf, type BtcLimits } from './btcInvariants.ts';
import { checkBtcSettled } from './btcSettled.ts';
import { BTC_CHAINS_DOC } from './btcRelay.ts';
import { BTC_BANDS, describeBtcSchedule, type BtcSchedule } from './btcSchedule.ts';
import {
  ALPHA,
  BTC_BLOCK_MS,
  BTC_KEYS,
  BtcWorld,
  CANCEL_REPRICE_AFTER_BLOCKS,
  MAX_CANCEL_FEE_SATS,
  MAX_FEE_RATE_SAT_PER_VB,
  MAX_MINER_FEE_SATS,
  MINER_FEE_RESERVE_SATS,
  MODEL_DEADLINE_LEAD_SEC,
} from './btcWorld.ts';

/** Settling cycles and the time before each: room for a cancel to be mined 6 deep, a re-plan, a fill. */
export const SETTLE_CYCLES = 6;
export const SETTLE_GAP_MS = 12 * 60_000;
const ESPLORA_URL = 'http://127.0.0.1:9/api';
/** `policy.pauseRouteAfterOriginFailures` of the model (the default, 3, would take four loops to exceed). */
const PAUSE_ROUTE_AFTER_ORIGIN_FAILURES = 2;

/**
 * `tracking.stalledAfterSec` of the model (its largest value, 30 days, beyond any schedule): a transfer's stall
 * flag then says what the product proved (a cancel at its cap, a deposit mined without a final status), not
 * that it is old, so the no-stranding invariant can read it as "waiting, with an alert".
 */
const STALLED_AFTER_SEC = 30 * 86_400;

/** The two configs of a test file: Ballast allowed to spend our own unconfirmed change, or not. */
export interface BtcModelEnvs {
  base: ModelEnv;
  ownUnconfirmed: ModelEnv;
  close(): void;
}

/** Both configs of {@link BtcModelEnvs} (each loaded once). */
export function createBtcModelEnvs(logLevel = 'silent'): BtcModelEnvs {
  const base = createBtcModelEnv(logLevel);
  const ownUnconfirmed = createBtcModelEnv(logLevel, { allowOwnUnconfirmedInputs: true });
  return {
    base,
    ownUnconfirmed,
    close: () => {
      base.close();
      ownUnconfirmed.close();
    },
  };
}

/**
 * The Bitcoin model's config, loaded the way `loadConfig` loads it (URLs are placeholders nobody contacts).
 *
 * @param opts.allowOwnUnconfirmedInputs `chains.bitcoin.allowOwnUnconfirmedInputs` (default false)
 */
export function createBtcModelEnv(logLevel = 'silent', opts: { allowOwnUnconfirmedInputs?: boolean } = {}): ModelEnv {
  const cancelKeys = `, maxCancelFeeSats: "${MAX_CANCEL_FEE_SATS}", cancelRepriceAfterBlocks: ${CANCEL_REPRICE_AFTER_BLOCKS}, allowOwnUnconfirmedInputs: ${opts.allowOwnUnconfirmedInputs ?? false}`;
  const band = (chain: string, currency: string, wallet: string, b: { min: bigint; target: bigint; max: bigint }) =>
    `    - { chain: ${chain}, currency: "${currency}", wallet: ${wallet}, min: "${b.min}", target: "${b.target}", max: "${b.max}" }`;
  const yaml = [
    'relay: { baseUrl: "http://127.0.0.1:9", referrer: ballast-model }',
    'wallets:',
    '  treasury: { vm: evm, privateKey: "${MODEL_TREASURY_KEY}" }',
    '  treasury_btc: { vm: bvm, privateKey: "${MODEL_BTC_WIF}", network: regtest }',
    'chains:',
    `  alpha: { chainId: ${ALPHA.chainId}, rpcUrl: "http://127.0.0.1:9", confirmations: ${FINALITY_BLOCKS} }`,
    `  bitcoin: { chainId: ${BITCOIN_CHAIN_ID}, vm: bvm, esploraUrl: "${ESPLORA_URL}", network: regtest, minerFeeReserveSats: "${MINER_FEE_RESERVE_SATS}", maxFeeRateSatPerVb: ${MAX_FEE_RATE_SAT_PER_VB}, maxMinerFeeSats: "${MAX_MINER_FEE_SATS}"${cancelKeys} }`,
    'assets:',
    '  BTC:',
    band('bitcoin', BTC_NATIVE_ADDRESS, 'treasury_btc', BTC_BANDS.bitcoin),
    band('alpha', ALPHA.wbtc, 'treasury', BTC_BANDS.alpha),
    'policy:',
    '  minTransfer: "0.1"',
    '  maxTransfer: "5"',
    '  slippageBps: 50',
    // A schedule spans some 130 blocks, room for three deposit-and-cancel loops at most: two in a row pause the route.
    `  pauseRouteAfterOriginFailures: ${PAUSE_ROUTE_AFTER_ORIGIN_FAILURES}`,
    '  maxFees: { totalBps: 30, totalUsd: "300", components: { execution: { usd: "20" }, swap: { bps: 20 }, platform: { bps: 10 }, app: { bps: 0 } } }',
    `tracking: { pollMs: 5000, timeoutSec: 60, stalledAfterSec: ${STALLED_AFTER_SEC} }`,
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
      ['bitcoin', createBvmAdapter(bvmOptions(env, world, handle, key.key))],
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

/** The cancel keys of the loaded `chains.bitcoin`. */
function cancelConfigOf(
  env: ModelEnv,
): Pick<BvmAdapterOptions, 'maxCancelFeeSats' | 'cancelRepriceAfterBlocks' | 'allowOwnUnconfirmedInputs'> {
  const chain = env.config.chains.bitcoin;
  if (chain?.vm !== 'bvm') throw new Error('the model config has a bvm chain named bitcoin');
  return {
    maxCancelFeeSats: chain.maxCancelFeeSats,
    cancelRepriceAfterBlocks: chain.cancelRepriceAfterBlocks,
    allowOwnUnconfirmedInputs: chain.allowOwnUnconfirmedInputs,
  };
}

/** The Bitcoin adapter's options in one process: the model's caps, one-minute blocks, virtual clock and Esplora. */
function bvmOptions(env: ModelEnv, world: BtcWorld, handle: ProcessHandle, key: BvmKey): BvmAdapterOptions {
  const opts: BvmAdapterOptions = {
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
    signers: new Map([['treasury_btc', key]]),
    fetch: inMemoryEsplora(world, handle),
    // The adapter waits on the wall clock: one status read, then the transfer stays in flight.
    maxInclusionWaitMs: 0,
    pollIntervalMs: 0,
    ...cancelConfigOf(env),
    blockIntervalSec: BTC_BLOCK_MS / 1000,
    nowMs: () => world.nowMs,
  };
  return opts;
}

/** The caps and policy the invariants hold Ballast to, from the config it runs with. */
function btcLimits(env: ModelEnv): BtcLimits {
  const cancel = cancelConfigOf(env);
  return {
    maxFeeRateSatPerVb: MAX_FEE_RATE_SAT_PER_VB,
    maxMinerFeeSats: MAX_MINER_FEE_SATS,
    maxCancelFeeSats: cancel.maxCancelFeeSats ?? MAX_MINER_FEE_SATS,
    cancelRepriceAfterBlocks: cancel.cancelRepriceAfterBlocks ?? CANCEL_REPRICE_AFTER_BLOCKS,
    pauseRouteAfterOriginFailures: env.config.policy.pauseRouteAfterOriginFailures,
    settleGapBlocks: SETTLE_GAP_MS / BTC_BLOCK_MS,
  };
}

/** What a Bitcoin schedule did. */
export interface BtcOutcome extends DriveOutcome {
  injected: string[];
  orders: number;
  /** Every transfer in the store at the end, oldest first. */
  rows: TransferRow[];
}

/**
 * Runs a Bitcoin schedule to the end and checks the invariants after every cycle.
 *
 * @throws Error naming every violated invariant, the schedule and the faults injected
 */
export async function runBtcSchedule(envs: ModelEnv | BtcModelEnvs, schedule: BtcSchedule): Promise<BtcOutcome> {
  const own = schedule.allowOwnUnconfirmedInputs === true;
  if (own && !('ownUnconfirmed' in envs)) throw new Error('a schedule allowing our own unconfirmed inputs needs createBtcModelEnvs');
  const env = 'ownUnconfirmed' in envs ? (own ? envs.ownUnconfirmed : envs.base) : envs;
  const world = new BtcWorld(schedule);
  const limits = btcLimits(env);
  let rows: TransferRow[] = [];
  const outcome = await driveSchedule(env, {
    world,
    described: describeBtcSchedule(schedule),
    gapsMs: schedule.gapsMs,
    crashes: schedule.crashes,
    ...(schedule.crashAt ? { crashAt: schedule.crashAt } : {}),
    build: btcContext(env, world),
    checkAlways: (db) => checkBtcAlways(world, db, limits),
    checkSettled: async (db) => {
      rows = await transfersOf(db); // the last settled check runs after the last cycle: the end state
      return checkBtcSettled(world, db, limits);
    },
    settleCycles: SETTLE_CYCLES,
    settleGapMs: SETTLE_GAP_MS,
    counters: () => ({ ...world.counters }),
  });
  return { ...outcome, injected: [...world.journal], orders: world.relay.orders.length, rows };
}
