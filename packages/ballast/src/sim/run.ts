/**
 * Runs a scenario through the real cycle (`runCycle`: planner, fee policy, verification, executor, store) against
 * the simulated world, in simulated time: one cycle every `pollMs`, the traffic applied as it falls due (a payment
 * waits while its holding is short and is tried again every `retryMs`; still undelivered `drainMs` after the last
 * flow, it failed), until every payment is settled, a cycle has run after the last flow and no transfer is in
 * flight. A payment waiting on its short holding, or announced ahead of its time, is recorded as a need in the run's
 * store before the next cycle (src/sim/paymentNeeds.ts). Returns the event log the KPIs are computed from.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import { pino, type Logger } from 'pino';
import type { Address, Hex } from 'viem';
import type { ChainAdapter } from '../chains/adapter.ts';
import { createEvmAdapter } from '../chains/evm/adapter.ts';
import type { CycleContext, WalletRuntime } from '../cycle/context.ts';
import { runCycle } from '../cycle/runCycle.ts';
import { createMetrics, type BallastMetrics } from '../metrics/metrics.ts';
import { countTransfersByRoute } from '../store/ledger.ts';
import { listInFlightTransfers } from '../store/transfers.ts';
import { openSqliteStore } from '../store/openStore.ts';
import type { SqliteStoreDb } from '../store/sqliteDb.ts';
import { simConfig } from './config.ts';
import { simChains, simIdentity, simToken } from './identity.ts';
import { inMemoryNode, type ProcessHandle } from './node.ts';
import { inMemoryRelayClient } from './relayApi.ts';
import { PaymentNeeds, type PaymentState, type SimNeed } from './paymentNeeds.ts';
import { routeOf, type SimRefillPoint, type SimScenario } from './scenario.ts';
import { SIM_CONFIRMATIONS, SIM_GAS, SIM_START_MS, SimWorld } from './world.ts';

/**
 * A payment's outcome. Times ms after the start; `completedAtMs` is when the attempt that succeeded was mined (the
 * time of the block that holds it, as Hyperlane's simulator counts a delivery), null when it failed.
 */
export interface PaymentRecord {
  id: string;
  chain: string;
  amount: bigint;
  requestedAtMs: number;
  dueMs: number;
  completedAtMs: number | null;
}

/** A rebalancing transfer Ballast made. Times ms after the start; amounts base units. */
export interface TransferRecord {
  origin: string;
  destination: string;
  amountIn: bigint;
  amountOut: bigint;
  fee: bigint;
  quotedAtMs: number;
  /** When the fill (`filled`) or refund was mined; null when still in flight at the end. */
  settledAtMs: number | null;
  outcome: 'filled' | 'refunded' | 'inFlight' | 'notDeposited';
}

/** The treasury's balance per chain at a cycle's start, base units. */
export interface BalanceSample {
  atMs: number;
  balances: Record<string, bigint>;
}

/** Everything a run produced. */
export interface SimLog {
  scenario: string;
  seed: number;
  chains: string[];
  token: { symbol: string; decimals: number; priceUsd: string };
  pollMs: number;
  /** Virtual ms between blocks; 0: a block as each transaction arrives (src/sim/world.ts). */
  blockMs: number;
  /** `min` per chain, base units, when the holding has a band (weights have none). */
  mins: Record<string, bigint | null>;
  /** The band per chain (min, target, max), base units; null for a weighted holding, whose band moves each cycle. */
  bands: Record<string, { min: bigint; target: bigint; max: bigint } | null>;
  initial: Record<string, bigint>;
  final: Record<string, bigint>;
  payments: PaymentRecord[];
  transfers: TransferRecord[];
  samples: BalanceSample[];
  cycles: number;
  /**
   * Cycles that failed (the run goes on): the error of each cycle whose report's outcome is `error` (a Relay API
   * outage fails the cycle's GET /chains, for one), or that threw.
   */
  cycleErrors: string[];
  /** Simulated duration, ms. */
  durationMs: number;
  /** Rows in the store's transfers table at the end, by status. */
  storeTransfers: Record<string, number>;
  /** A multi-asset run's asset symbols, in order (its chains are keyed `"ASSET|chain"`, src/sim/multiAsset.ts); absent otherwise. */
  assets?: string[];
  /** The needs the run recorded for its payments (src/sim/paymentNeeds.ts), in the order recorded; absent: none. */
  needs?: SimNeed[];
}

/** Options of a run. */
export interface SimRunOptions {
  seed?: number;
  /** A Ballast config file to use instead of the scenario's holdings. */
  configFile?: string;
  /** pino level for Ballast's own logs (default silent). */
  logLevel?: string;
  /** Keep the store file here instead of a temp dir removed at the end. */
  storeDir?: string;
  /**
   * The refill point (`policy.refillTo` of the scenario's asset: `target` or a share of the band such as `"40%"`),
   * instead of the scenario's or the config's own.
   */
  refillTo?: SimRefillPoint;
  /**
   * Record a payment that waits on its short holding as a need, and an announced payment when announced (default
   * true, src/sim/paymentNeeds.ts); false: a payment system that tells Ballast nothing.
   */
  paymentNeeds?: boolean;
}

let sharedMetrics: BallastMetrics | undefined;

/**
 * Runs a scenario.
 *
 * @throws ConfigError when the config does not load; Error when it lacks the treasury wallet
 */
export async function runScenario(scenario: SimScenario, options: SimRunOptions = {}): Promise<SimLog> {
  const s = options.refillTo === undefined ? scenario : { ...scenario, refillTo: options.refillTo };
  const seed = options.seed ?? 1;
  const id = simIdentity(seed);
  const chains = simChains(s.chains);
  const token = simToken(seed, s.token.symbol, s.token.decimals, s.token.priceUsd);
  const dir = options.storeDir ?? mkdtempSync(path.join(os.tmpdir(), 'ballast-simulate-'));
  const config = simConfig(s, chains, token, id, dir, options.configFile);
  const world = new SimWorld({
    seed,
    chains,
    token,
    identity: id,
    treasury: s.initial,
    route: (o, d) => routeOf(s, o, d),
    outages: s.outages,
    ...(s.blockMs !== undefined ? { blockMs: s.blockMs } : {}),
  });
  // createMetrics registers process collectors once: one registry serves every run of a process.
  sharedMetrics ??= createMetrics();
  const logger: Logger = pino({ level: options.logLevel ?? 'silent' }, pino.destination(2));
  const db = openSqliteStore(path.join(dir, 'simulate.db'));
  const handle: ProcessHandle = { id: 1, alive: true };
  try {
    const ctx = context(config, db, world, handle, sharedMetrics, logger);
    const treasury = id.treasury.address.toLowerCase() as Address;
    const balances = () => Object.fromEntries(s.chains.map((c) => [c, world.treasuryBalance(c)]));
    const needs = new PaymentNeeds(
      db,
      s.token.symbol,
      SIM_START_MS,
      s.flows.filter((f) => f.kind === 'payment').map((f) => f.id),
    );
    const payments = scheduleTraffic(s, world, treasury, id.counterparty, options.paymentNeeds === false ? undefined : needs);
    const paidAtHead = (p: LivePayment) =>
      p.completedAtMs !== null || (p.hash !== undefined && world.chain(p.chain).minedTx(p.hash)?.mined.status === 'success');
    const stateOf = (i: number): PaymentState => {
      const p = payments[i]!; // the needs' indices are the payments'
      return { ...p, paid: paidAtHead(p) };
    };
    const lastFlowMs = s.flows.reduce((m, f) => Math.max(m, f.atMs), 0);
    const samples: BalanceSample[] = [];
    const cycleErrors: string[] = [];
    let cycles = 0;
    let nextPollMs = SIM_START_MS;
    // Done when every payment is settled, a cycle has seen the last flow, and no transfer is in flight: in the
    // world, and in the store (a cycle leaves its fills to the next ones, which record them).
    const settled = async () =>
      payments.every((p) => p.completedAtMs !== null || p.failed) &&
      world.elapsedMs >= lastFlowMs + s.pollMs &&
      world.relay.orders.every((r) => r.deposit === null || r.settled) &&
      (await listInFlightTransfers(db)).length === 0;
    while (!(await settled())) {
      await needs.sync(world.elapsedMs, stateOf); // before the cycle reads the needs and the balances of this instant
      samples.push({ atMs: world.elapsedMs, balances: balances() });
      cycles += 1;
      try {
        const report = await runCycle(ctx, { mode: 'execute', trigger: 'once' });
        if (report.outcome === 'error') cycleErrors.push(report.error ?? `cycle ${report.cycleId} failed`);
      } catch (error) {
        cycleErrors.push(error instanceof Error ? error.message : String(error));
      }
      nextPollMs += s.pollMs;
      world.advance(Math.max(0, nextPollMs - world.nowMs));
      if (world.elapsedMs > lastFlowMs + s.drainMs + 10 * s.pollMs) break; // every payment has failed or completed by now
    }
    await needs.sync(world.elapsedMs, stateOf); // the needs of the payments settled since the last cycle are closed
    const storeTransfers: Record<string, number> = {};
    for (const r of await countTransfersByRoute(db, 0)) storeTransfers[r.status] = (storeTransfers[r.status] ?? 0) + r.count;
    return {
      scenario: s.name,
      seed,
      chains: [...s.chains],
      token: { ...s.token },
      pollMs: s.pollMs,
      blockMs: world.blockMs,
      ...bandsOf(config.assets[token.symbol] ?? [], s.chains, s.token.decimals),
      initial: { ...s.initial },
      final: balances(),
      payments: payments.map(({ id, chain, amount, requestedAtMs, dueMs, completedAtMs }) => ({
        id,
        chain,
        amount,
        requestedAtMs,
        dueMs,
        completedAtMs,
      })),
      transfers: transfersOf(world),
      samples,
      cycles,
      cycleErrors,
      durationMs: world.elapsedMs,
      storeTransfers,
      ...(needs.needs.length > 0 ? { needs: needs.needs } : {}),
    };
  } finally {
    handle.alive = false;
    await db.close();
    if (!options.storeDir) rmSync(dir, { recursive: true, force: true });
  }
}

function context(
  config: CycleContext['config'],
  db: SqliteStoreDb,
  world: SimWorld,
  handle: ProcessHandle,
  metrics: BallastMetrics,
  logger: Logger,
): CycleContext {
  const treasury = config.wallets.treasury;
  if (treasury?.vm !== 'evm') throw new Error('the simulated treasury is an evm wallet named "treasury"');
  const accounts = new Map([['treasury', treasury.account]]);
  const chains = new Map<string, ChainAdapter>();
  for (const c of world.spec.chains) {
    const client = inMemoryNode(world, world.chain(c.name), handle, { operator: world.spec.identity.treasury, fees: SIM_GAS });
    chains.set(c.name, createEvmAdapter({ name: c.name, chainId: c.chainId, client, accounts, confirmations: SIM_CONFIRMATIONS }));
  }
  const wallets = new Map<string, WalletRuntime>([['treasury', { name: 'treasury', vm: 'evm', address: treasury.address }]]);
  return {
    config,
    db,
    relay: inMemoryRelayClient(world, handle, world.relay.chainsDocument),
    chains,
    wallets,
    metrics,
    logger,
    now: () => world.nowMs,
    sleep: async (ms) => world.advance(ms),
    // One virtual clock: a cycle leaves its fills to the next cycles' refresh, so cycles keep the poll cadence.
    trackFills: false,
  };
}

/** A payment while the run goes on: its attempts, whether it waits on its holding, its announcement. */
type LivePayment = PaymentRecord & { failed: boolean; waiting: boolean; hash?: Hex; announcedAtMs?: number };

/**
 * Queues the traffic: receipts land when due; payments are tried when due, then every `retryMs` while short. With
 * `needs`, a payment found short, and an announced payment from the start, are watched, to be recorded as needs.
 */
function scheduleTraffic(
  s: SimScenario,
  world: SimWorld,
  treasury: Address,
  counterparty: Address,
  needs: PaymentNeeds | undefined,
): LivePayment[] {
  const lastFlowMs = s.flows.reduce((m, f) => Math.max(m, f.atMs), 0);
  const payments: LivePayment[] = [];
  for (const f of s.flows) {
    if (f.kind === 'receipt') {
      world.at(SIM_START_MS + f.atMs, () => void world.transfer(f.chain, counterparty, treasury, f.amount, `receipt-${f.id}`));
      continue;
    }
    const p: LivePayment = {
      id: f.id,
      chain: f.chain,
      amount: f.amount,
      requestedAtMs: f.requestedAtMs ?? f.atMs,
      dueMs: f.atMs,
      completedAtMs: null,
      failed: false,
      waiting: false,
      ...(f.announcedAtMs !== undefined ? { announcedAtMs: f.announcedAtMs } : {}),
    };
    const index = payments.length;
    payments.push(p);
    if (f.announcedAtMs !== undefined) needs?.watch(index); // recorded by the first sync at or after its announcement
    let attempt = 0;
    const tryPay = () => {
      if (world.elapsedMs > lastFlowMs + s.drainMs) {
        p.failed = true;
        return;
      }
      if (world.treasuryBalance(f.chain) < f.amount) {
        p.waiting = true;
        needs?.watch(index);
        world.at(world.nowMs + s.retryMs, tryPay);
        return;
      }
      p.waiting = false;
      const hash = world.transfer(f.chain, treasury, counterparty, f.amount, `payment-${f.id}-${attempt++}`);
      p.hash = hash;
      const check = () => {
        const hit = world.chain(f.chain).minedTx(hash as Hex);
        if (!hit) return world.at(world.nowMs + 50, check);
        // Complete when mined: the time of its block, however late this check sees it.
        if (hit.mined.status === 'success') p.completedAtMs = hit.block.timestampMs - SIM_START_MS;
        else world.at(world.nowMs + s.retryMs, tryPay);
      };
      world.at(world.nowMs + 50, check);
    };
    world.at(SIM_START_MS + f.atMs, tryPay);
  }
  return payments;
}

function bandsOf(
  holdings: readonly { chain: string; min?: string | null; target?: string | null; max?: string | null; weight?: number }[],
  chains: readonly string[],
  decimals: number,
): Pick<SimLog, 'mins' | 'bands'> {
  const toUnits = (whole: string) => wholeToBaseUnits(whole, decimals);
  const bands: SimLog['bands'] = {};
  const mins: SimLog['mins'] = {};
  for (const c of chains) {
    const h = holdings.find((x) => x.chain === c && x.weight === undefined); // a weighted holding is loaded with min/target/max "0"
    mins[c] = h?.min ? toUnits(h.min) : null;
    bands[c] = h?.min && h.target && h.max ? { min: toUnits(h.min), target: toUnits(h.target), max: toUnits(h.max) } : null;
  }
  return { mins, bands };
}

function transfersOf(world: SimWorld): TransferRecord[] {
  const name = (chainId: number) => world.spec.chains.find((c) => c.chainId === chainId)?.name ?? String(chainId);
  return world.relay.orders.map((r) => {
    const a = r.action;
    const outcome: TransferRecord['outcome'] =
      r.deposit === null && a === null ? 'notDeposited' : !r.settled ? 'inFlight' : a?.kind === 'fill' ? 'filled' : 'refunded';
    return {
      origin: name(r.order.originChainId),
      destination: name(r.order.destinationChainId),
      amountIn: r.order.amountIn,
      amountOut: a?.kind === 'fill' ? a.amount : 0n,
      fee: a?.kind === 'fill' ? r.order.amountIn - a.amount : 0n,
      quotedAtMs: r.createdAtMs - SIM_START_MS,
      settledAtMs: r.settledAtMs === null ? null : r.settledAtMs - SIM_START_MS,
      outcome,
    };
  });
}
