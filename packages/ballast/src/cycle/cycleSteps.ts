/**
 * The steps of one cycle (src/cycle/runCycle.ts reads as their list; docs/design.md "One cycle = one pass of this
 * pipeline"). Each step takes only the parts of the cycle's runtime it uses.
 */
import type { Logger } from 'pino';
import { DEFAULT_REFILL_TO } from '../config/schema.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import type {
  BalanceReading,
  HoldingFlow,
  InFlightTransfer,
  Plan,
  PlanDecision,
  PlanInput as RebalanceInput,
  PlannedTransfer,
  PlanNeed,
  RefillPoint,
  TargetBand,
} from '../planner/types.ts';
import type { GasTopUpPlan } from '../planner/gasTopUp.ts';
import { planRebalance } from '../planner/planRebalance.ts';
import { minAmountInFromPlanInput } from './solverLiquidityFit.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { closeAbandonedCycles } from '../store/cycles.ts';
import { recordBalances } from '../store/balances.ts';
import { recordPlanDecisions, recordPlannedTransfers } from '../store/plans.ts';
import { listInFlightTransfers } from '../store/transfers.ts';
import { listOpenWalletPauses } from '../store/walletPauses.ts';
import { listOriginFailureStreaks, listUnresolvedFailures } from '../store/failures.ts';
import { setScreeningPaused } from '../metrics/screeningMetrics.ts';
import { countMonitorAttempt } from '../metrics/monitorMetrics.ts';
import type { CycleContext } from './context.ts';
import { notify } from '../notify/notify.ts';
import { routePausedEvent } from '../notify/eventOf.ts';
import { readGasBalances, type GasReading } from './gasBalances.ts';
import { planCycleGasTopUps } from './gasTopUp.ts';
import { setBalanceGauges } from './metricsBalances.ts';
import { refreshInFlight, type RefreshDeps, type RefreshedInFlight } from './inFlight.ts';
import { fillBlocks } from './fillBlocks.ts';
import { readBlocks, toPlannerInFlight } from './plannerInFlight.ts';
import {
  originFailurePauses,
  pausedRoutes,
  pausedWallets,
  withoutPausedRoutes,
  type PausedRoute,
  type PausedWallet,
} from './pausedRoutes.ts';
import { processTransfer, type ProcessTransferDeps } from './processTransfer.ts';
import { termHasEnded } from '../executor/termEnded.ts';
import { killSwitchVerdict } from './spendingGate.ts';
import { readTargetBalances } from './readBalances.ts';
import type { UnresolvedTarget } from './resolveTargets.ts';
import type { Mode } from './mode.ts';
import { outcomeClass, type TransferAttempt } from './transferAttempt.ts';
import type { PolicyStanding } from './approvalStanding.ts';

/** Cycle outcome: `ok` completed; `refused` a needed transfer was refused by policy or verification; `error` otherwise. */
export type CycleOutcome = 'ok' | 'refused' | 'error';

/**
 * Closes the cycles a run left unfinished (call under the run lock or as leader, before a cycle that signs): their
 * transfers are reconciled by this cycle. With the run lock (SQLite: one process) that run died mid-way; with a
 * leader lease (`ctx.leading` set) its leader's term ended, by a crash, a pause or a cut to the database, and
 * that process may still be alive (it writes nothing ahead and sends nothing under the ended term), so the row and
 * the log line say so rather than call it a crash.
 */
export async function closeAbandoned(
  ctx: Pick<CycleContext, 'db' | 'metrics' | 'leading'>,
  log: Logger,
  startedAtMs: number,
): Promise<void> {
  const lease = ctx.leading !== undefined;
  const aborted = await closeAbandonedCycles(ctx.db, startedAtMs, lease ? 'term_ended' : 'run_ended');
  if (aborted.length > 0) {
    ctx.metrics.cyclesAbortedTotal.inc(aborted.length);
    log.warn(
      { cycleIds: aborted },
      lease
        ? 'cycles left by a leader whose term ended (crash, pause, or cut off from the database) closed as aborted by the leader that took over; their transfers are reconciled now'
        : 'cycles of a run that died mid-way closed as aborted; their transfers are reconciled now',
    );
  }
}

/**
 * GET /chains, from the cache when there is one.
 *
 * @throws Error "GET /chains failed: …" with the client's error as `cause` (a refused key stays recognisable)
 */
export async function readChainsDoc(ctx: Pick<CycleContext, 'chainsCache' | 'relay'>): Promise<ChainsResponse> {
  try {
    return ctx.chainsCache ? await ctx.chainsCache.get() : (await ctx.relay.getChains()).chains;
  } catch (error) {
    throw new Error(`GET /chains failed: ${shortErrorMessage(error)}`, { cause: error });
  }
}

/** Reads the targets' balances (each chain at one block) and the signers' gas; a failed gas read never fails the cycle. */
export async function readHoldings(
  ctx: Pick<CycleContext, 'config' | 'chains' | 'wallets' | 'metrics' | 'logger'>,
  targets: TargetBand[],
): Promise<{ balances: BalanceReading[]; gas: GasReading[] }> {
  const [balances, gas] = await Promise.all([readTargetBalances(ctx, targets), readGasBalances(ctx)]);
  return { balances, gas };
}

/**
 * The transfers in flight: refreshed (reorgs, reconciliation, stalled ones, statuses) in `execute` mode, read
 * as they are otherwise (a cycle that signs nothing changes no transfer).
 */
export async function inFlightTransfers(ctx: RefreshDeps, mode: Mode): Promise<RefreshedInFlight> {
  return mode === 'execute' ? await refreshInFlight(ctx) : { inFlight: await listInFlightTransfers(ctx.db), closed: [] };
}

/**
 * The in-flight transfers as the planner counts them, judged against the blocks the balances were read at, so a
 * deposit or a fill that lands between the two reads is counted once (src/cycle/plannerInFlight.ts).
 */
export async function plannerInFlight(
  ctx: Pick<CycleContext, 'chains' | 'logger'>,
  refreshed: RefreshedInFlight,
  balances: readonly BalanceReading[],
): Promise<InFlightTransfer[]> {
  return toPlannerInFlight(refreshed.inFlight, readBlocks(balances), await fillBlocks(ctx, refreshed.closed));
}

/** Records this cycle's balance readings (one row per target) and sets the balance gauges. */
export async function recordReadings(
  ctx: Pick<CycleContext, 'db' | 'metrics' | 'now'>,
  cycleId: number,
  targets: readonly TargetBand[],
  balances: readonly BalanceReading[],
): Promise<void> {
  await recordBalances(
    ctx.db,
    cycleId,
    targets.map((t, i) => ({
      chain: t.chain,
      chainId: t.chainId,
      asset: t.asset,
      wallet: t.wallet,
      address: t.address,
      currency: t.currency,
      amount: balances[i]!.amount, // one reading per target, in order
      error: balances[i]!.error,
      readAtMs: ctx.now(),
    })),
  );
  setBalanceGauges(ctx.metrics, targets, balances);
}

/** Routes and wallets that wait this cycle (src/cycle/pausedRoutes.ts). */
export interface CyclePauses {
  routes: PausedRoute[];
  wallets: PausedWallet[];
}

/**
 * Routes paused by a failed deposit or by origin transactions failing on chain in a row, and wallets refused by
 * Relay address screening (every route they send from or receive on waits); sets their gauges.
 */
export async function readPauses(
  ctx: Pick<CycleContext, 'db' | 'metrics' | 'wallets' | 'config' | 'now' | 'logger'>,
): Promise<CyclePauses> {
  const routes = [
    ...pausedRoutes(await listUnresolvedFailures(ctx.db)),
    ...originFailurePauses(await listOriginFailureStreaks(ctx.db), ctx.config.policy.pauseRouteAfterOriginFailures),
  ];
  ctx.metrics.routesPaused.set(new Set(routes.map((r) => `${r.asset}\u0000${r.originChain}\u0000${r.destinationChain}`)).size);
  for (const route of routes) await notify(ctx, routePausedEvent(route));
  const wallets = pausedWallets(await listOpenWalletPauses(ctx.db), ctx.wallets.values());
  setScreeningPaused(
    ctx.metrics,
    wallets.map((w) => w.wallet),
  );
  return { routes, wallets };
}

/** What {@link planTransfers} plans from. Amounts are bigint base units. */
export interface PlanInput {
  targets: TargetBand[];
  balances: BalanceReading[];
  gas: GasReading[];
  inFlight: InFlightTransfer[];
  chainsDoc: ChainsResponse;
  pauses: CyclePauses;
  /** The weights' decisions (src/planner/weights.ts), listed first. */
  weightDecisions: readonly PlanDecision[];
  unresolved: readonly UnresolvedTarget[];
  /** Smoothed net flow per holding of the assets with a flow strategy (src/cycle/flowSignals.ts); absent: none. */
  flows?: readonly HoldingFlow[];
  /** Open needs due within the horizon (src/cycle/cycleNeeds.ts); absent: none. */
  needs?: readonly PlanNeed[];
}

/**
 * Plans gas top-ups first (signers below minGasBalance, so they can pay for their deposits later in this cycle;
 * the planner counts them as under way, so it does not spend their source twice), then the rebalance; drops paused
 * routes and wallets, and adds a `chain_unreadable` decision per target whose decimals could not be resolved.
 *
 * @returns the cycle's plan, the top-up plan (its skipped signers are counted after the transfers) and each planned
 *   transfer's smallest allowed amount (origin base units), for fitting transfers to the solver's liquidity
 */
export function planTransfers(
  ctx: Pick<CycleContext, 'config' | 'chains' | 'wallets' | 'logger'>,
  input: PlanInput,
  log: Logger,
): { plan: Plan; topUps: GasTopUpPlan; minAmountIn: (t: PlannedTransfer) => bigint } {
  const { targets, balances } = input;
  const policy = ctx.config.policy;
  const topUps = planCycleGasTopUps(ctx, { targets, balances, gas: input.gas, inFlight: input.inFlight, chainsDoc: input.chainsDoc });
  const rebalanceInput: RebalanceInput = {
    targets,
    balances,
    inFlight: [...input.inFlight, ...topUps.inFlight],
    minTransfer: policy.minTransfer,
    maxTransfer: policy.maxTransfer,
    transferLimits: policy.transferLimits,
    sweepTo: sweepHomes(policy.sweepTo),
    maxAlternatives: policy.routeChoice.maxCandidates - 1,
    routes: policy.routes,
    onlyListedRoutes: policy.onlyListedRoutes,
    batchSmallDeficits: policy.batchSmallDeficits,
    ...(policy.strategy ? { strategy: policy.strategy } : {}),
    ...(input.flows ? { flows: input.flows } : {}),
    ...(input.needs?.length ? { needs: input.needs } : {}),
    refillTo: refillPoints(policy.refillTo ?? {}, Object.keys(ctx.config.assets)),
  };
  const rebalance = planRebalance(rebalanceInput);
  const plan = withoutPausedRoutes(
    {
      transfers: [...topUps.transfers, ...rebalance.transfers],
      decisions: [...rebalance.decisions, ...topUps.decisions],
      ...(rebalance.spare ? { spare: rebalance.spare } : {}),
    },
    input.pauses.routes,
    input.pauses.wallets,
  );
  plan.decisions.unshift(...input.weightDecisions);
  for (const d of plan.decisions.filter((x) => x.kind === 'route_paused')) log.error({ asset: d.asset }, d.detail);
  // A target whose decimals could not be resolved is not planned; say so next to the planner's decisions.
  for (const u of input.unresolved) plan.decisions.push({ asset: u.asset, chain: u.chain, kind: 'chain_unreadable', detail: u.error });
  return { plan, topUps, minAmountIn: minAmountInFromPlanInput(rebalanceInput) };
}

/**
 * Records the plan's decisions and planned transfers.
 *
 * @returns the planned transfers' row ids, in the plan's order
 */
export async function recordPlan(ctx: Pick<CycleContext, 'db'>, cycleId: number, plan: Plan): Promise<number[]> {
  await recordPlanDecisions(ctx.db, cycleId, plan.decisions);
  return await recordPlannedTransfers(
    ctx.db,
    cycleId,
    plan.transfers.map((p) => ({
      asset: p.asset,
      originChain: p.from.chain,
      destinationChain: p.to.chain,
      amountIn: p.amountIn,
      reason: p.reason,
    })),
  );
}

/**
 * A cycle is `error` when a transfer failed or when a chain could not be read: its targets were not planned, so
 * the cycle cannot claim the treasury is in band (a partial failure, exit 1); `refused` when a transfer was
 * refused on purpose (fee policy, a spending limit, verification) and none failed.
 */
export function outcomeOf(attempts: readonly TransferAttempt[], decisions: readonly { kind: string }[]): CycleOutcome {
  const classes = attempts.map((a) => outcomeClass(a.outcome));
  if (classes.includes('error') || decisions.some((d) => d.kind === 'chain_unreadable')) return 'error';
  if (classes.includes('refused')) return 'refused';
  return 'ok';
}

/**
 * `policy.refillTo` as the planner takes it, for every asset of the config: `target`, or `"40%"` as 4000 bps of the
 * band; an asset without an entry gets {@link DEFAULT_REFILL_TO}.
 */
function refillPoints(refillTo: Readonly<Record<string, string>>, assets: readonly string[]): Record<string, RefillPoint> {
  return Object.fromEntries(
    assets.map((asset) => {
      const point = refillTo[asset] ?? DEFAULT_REFILL_TO;
      return [asset, point === 'target' ? 'target' : { bandBps: Math.round(Number(point.slice(0, -1)) * 100) }];
    }),
  );
}

/** `policy.sweepTo` as the planner takes it: per asset, the home chain and wallet (`<chain>[:<wallet>]`). */
function sweepHomes(sweepTo: Readonly<Record<string, string>> | undefined): Record<string, { chain: string; wallet?: string }> | undefined {
  if (!sweepTo) return undefined;
  return Object.fromEntries(
    Object.entries(sweepTo).map(([asset, home]) => {
      const [chain, wallet] = home.split(':') as [string, string | undefined];
      return [asset, wallet === undefined ? { chain } : { chain, wallet }];
    }),
  );
}
