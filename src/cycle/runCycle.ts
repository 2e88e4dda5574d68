/**
 * One rebalancing cycle (docs/design.md "One cycle = one pass of this pipeline"): read GET /chains, resolve targets,
 * read balances (each chain at one block) and signer gas, refresh in-flight transfers, plan gas top-ups
 * (src/cycle/gasTopUp.ts) and the rebalance, then quote/check/execute each planned transfer, top-ups first.
 * The caller holds the single-run lock.
 */
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import type { BalanceReading, Plan, TargetBand } from '../planner/types.ts';
import { planRebalance } from '../planner/planRebalance.ts';
import { applyWeights } from '../planner/weights.ts';
import { readGasBalances } from './gasBalances.ts';
import { countGasTopUps, planCycleGasTopUps } from './gasTopUp.ts';
import { setBalanceGauges } from './metricsBalances.ts';
import { recordCycleEndMetrics } from './metricsCycleEnd.ts';
import { closeAbandonedCycles, finishCycle, startCycle } from '../store/cycles.ts';
import { recordBalances } from '../store/balances.ts';
import { recordPlanDecisions, recordPlannedTransfers } from '../store/plans.ts';
import { listInFlightTransfers } from '../store/transfers.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { crashPoint } from '../core/crashPoints.ts';
import type { CycleContext } from './context.ts';
import { refreshInFlight } from './inFlight.ts';
import { fillBlocks } from './fillBlocks.ts';
import { readBlocks, toPlannerInFlight } from './plannerInFlight.ts';
import { originFailurePauses, pausedRoutes, pausedWallets, withoutPausedRoutes } from './pausedRoutes.ts';
import { listOpenWalletPauses } from '../store/walletPauses.ts';
import { setScreeningPaused } from '../metrics/screeningMetrics.ts';
import { relayAuthRefusal, type RelayAuthRefusal } from '../relay/authRefusal.ts';
import { listOriginFailureStreaks, listUnresolvedFailures } from '../store/failures.ts';
import { processTransfer, type TransferAttempt } from './processTransfer.ts';
import { killSwitchVerdict } from './spendingGate.ts';
import { readTargetBalances } from './readBalances.ts';
import { resolveTargets, type UnresolvedTarget } from './resolveTargets.ts';
import { recoverInCycle } from '../withdraw/recover.ts';
import type { Logger } from 'pino';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { countMonitorAttempt } from '../metrics/monitorMetrics.ts';

/** Cycle outcome: `ok` completed; `refused` a needed transfer was refused by policy or verification; `error` otherwise. */
export type CycleOutcome = 'ok' | 'refused' | 'error';

/** What a cycle saw and did. Amounts are bigint base units. */
export interface CycleReport {
  cycleId: number;
  mode: 'once' | 'daemon' | 'plan';
  outcome: CycleOutcome;
  startedAtMs: number;
  finishedAtMs: number;
  targets: TargetBand[];
  unresolved: UnresolvedTarget[];
  balances: BalanceReading[];
  plan: Plan;
  attempts: TransferAttempt[];
  error?: string;
  /**
   * Set when the Relay API refused the API key (HTTP 401/403) during the cycle, on GET /chains or a quote: a
   * configuration error (`relay.apiKey`), exit 2 (src/relay/authRefusal.ts).
   */
  authRefusal?: RelayAuthRefusal;
}

/** Exit code a cron wrapper acts on: 0 ok, 1 error, 3 refused (README "Exit codes"). */
export function exitCodeFor(outcome: CycleOutcome): number {
  return outcome === 'ok' ? 0 : outcome === 'refused' ? 3 : 1;
}

/**
 * The process exit code of a cycle report: {@link exitCodeFor} its outcome, except 2 (bad configuration) when
 * the Relay API refused the API key (401/403, `report.authRefusal`): retrying will not help until `relay.apiKey`
 * is fixed.
 */
export function exitCodeForReport(report: Pick<CycleReport, 'outcome' | 'authRefusal'>): number {
  if (report.authRefusal !== undefined) return 2;
  return exitCodeFor(report.outcome);
}

/**
 * Runs one cycle.
 *
 * @param opts.mode recorded on the cycle row; `plan` quotes and verifies but signs nothing
 * @param opts.monitor with `plan`: monitor-only mode (`daemon --monitor-only`): also judges the kill switch and the
 *   spending limits read-only, counts the cycle like a daemon's, and reports what it would have done
 *   (`ballast_monitor_*` metrics, one log line per planned transfer)
 * @returns the report; never throws for API or chain failures (they make the outcome `error`)
 */
export async function runCycle(ctx: CycleContext, opts: { mode: 'once' | 'daemon' | 'plan'; monitor?: boolean }): Promise<CycleReport> {
  const startedAtMs = ctx.now();
  const log = ctx.logger.child({ component: 'cycle' });
  if (opts.mode !== 'plan') {
    // Under the run lock: an unfinished cycle of a locked mode belongs to a run that died mid-way.
    const aborted = await closeAbandonedCycles(ctx.db, startedAtMs);
    if (aborted.length > 0) {
      ctx.metrics.cyclesAbortedTotal.inc(aborted.length);
      log.warn({ cycleIds: aborted }, 'cycles of a run that died mid-way closed as aborted; their transfers are reconciled now');
    }
  }
  const cycleId = await startCycle(ctx.db, { mode: opts.mode, startedAtMs });
  const report: CycleReport = {
    cycleId,
    mode: opts.mode,
    outcome: 'ok',
    startedAtMs,
    finishedAtMs: startedAtMs,
    targets: [],
    unresolved: [],
    balances: [],
    plan: { transfers: [], decisions: [] },
    attempts: [],
  };
  crashPoint('cycle:started');
  try {
    let chainsDoc: ChainsResponse;
    try {
      chainsDoc = ctx.chainsCache ? await ctx.chainsCache.get() : (await ctx.relay.getChains()).chains;
    } catch (error) {
      throw new Error(`GET /chains failed: ${shortErrorMessage(error)}`, { cause: error });
    }
    const resolved = await resolveTargets(ctx, chainsDoc);
    let targets = resolved.targets;
    const unresolved = resolved.unresolved;
    report.targets = targets;
    report.unresolved = unresolved;
    // Signer gas balances are read next to the targets; a failed gas read never fails the cycle.
    const [balances, gas] = await Promise.all([readTargetBalances(ctx, targets), readGasBalances(ctx)]);
    report.balances = balances;
    // In-flight transfers are refreshed after the balance read and judged against the blocks it was read at, so
    // a deposit or a fill that lands between the two reads is counted once (src/cycle/plannerInFlight.ts).
    const refreshed = opts.mode === 'plan' ? { inFlight: await listInFlightTransfers(ctx.db), closed: [] } : await refreshInFlight(ctx);
    const inFlightRows = refreshed.inFlight;
    crashPoint('cycle:refreshed');
    await recoverInCycle(ctx, chainsDoc, opts.mode); // withdrawals.auto: unfilled deposits back to the treasury (the planner still credits them this cycle)
    const plannerInFlight = toPlannerInFlight(inFlightRows, readBlocks(report.balances), await fillBlocks(ctx, refreshed.closed));
    // Weighted holdings get this cycle's bands from their asset's current total (src/planner/weights.ts).
    const weighted = applyWeights(targets, report.balances, plannerInFlight);
    targets = weighted.targets;
    report.targets = targets;
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
        amount: report.balances[i]!.amount,
        error: report.balances[i]!.error,
        readAtMs: ctx.now(),
      })),
    );
    setBalanceGauges(ctx.metrics, targets, report.balances);
    // Paused by a failed deposit, or by origin transactions failing on chain in a row (src/cycle/pausedRoutes.ts).
    const paused = [
      ...pausedRoutes(await listUnresolvedFailures(ctx.db)),
      ...originFailurePauses(await listOriginFailureStreaks(ctx.db), ctx.config.policy.pauseRouteAfterOriginFailures),
    ];
    ctx.metrics.routesPaused.set(new Set(paused.map((r) => `${r.asset}\u0000${r.originChain}\u0000${r.destinationChain}`)).size);
    // Wallets refused by Relay address screening: every route they send from or receive on waits (pausedRoutes.ts).
    const screened = pausedWallets(await listOpenWalletPauses(ctx.db), ctx.wallets.values());
    setScreeningPaused(ctx.metrics, screened.map((w) => w.wallet));
    // Signers below minGasBalance are topped up first, so they can pay for their deposits later in this cycle;
    // the planner counts the top-ups as under way, so it does not spend their source twice.
    const topUps = planCycleGasTopUps(ctx, { targets, balances: report.balances, gas, inFlight: plannerInFlight, chainsDoc });
    const rebalance = planRebalance({
      targets,
      balances: report.balances,
      inFlight: [...plannerInFlight, ...topUps.inFlight],
      minTransfer: ctx.config.policy.minTransfer,
      maxTransfer: ctx.config.policy.maxTransfer,
      transferLimits: ctx.config.policy.transferLimits,
      sweepTo: sweepHomes(ctx.config.policy.sweepTo),
      maxAlternatives: ctx.config.policy.routeChoice.maxCandidates - 1,
      routes: ctx.config.policy.routes,
      onlyListedRoutes: ctx.config.policy.onlyListedRoutes,
      batchSmallDeficits: ctx.config.policy.batchSmallDeficits,
    });
    report.plan = withoutPausedRoutes(
      { transfers: [...topUps.transfers, ...rebalance.transfers], decisions: [...rebalance.decisions, ...topUps.decisions], ...(rebalance.spare ? { spare: rebalance.spare } : {}) },
      paused,
      screened,
    );
    report.plan.decisions.unshift(...weighted.decisions);
    for (const d of report.plan.decisions.filter((x) => x.kind === 'route_paused')) log.error({ asset: d.asset }, d.detail);
    // A target whose decimals could not be resolved is not planned; say so next to the planner's decisions.
    for (const u of unresolved) {
      report.plan.decisions.push({ asset: u.asset, chain: u.chain, kind: 'chain_unreadable', detail: u.error });
    }
    await recordPlanDecisions(ctx.db, cycleId, report.plan.decisions);
    const planIds = await recordPlannedTransfers(
      ctx.db,
      cycleId,
      report.plan.transfers.map((p) => ({
        asset: p.asset,
        originChain: p.from.chain,
        destinationChain: p.to.chain,
        amountIn: p.amountIn,
        reason: p.reason,
      })),
    );
    crashPoint('cycle:planned');
    log.info({ cycleId, planned: report.plan.transfers.length, inFlight: inFlightRows.length }, 'plan ready');
    const decimalsOf = (asset: string, chain: string) => targets.find((t) => t.asset === asset && t.chain === chain)?.decimals;
    ctx.metrics.killSwitchEngaged.set(killSwitchVerdict(ctx) ? 1 : 0);
    // Route choice spends the donors' spare surplus as it moves transfers to alternative donors.
    const spare = new Map(report.plan.spare ?? []);
    for (const [i, planned] of report.plan.transfers.entries()) {
      if (ctx.signal?.aborted) {
        log.warn('shutdown requested; remaining planned transfers wait for the next cycle');
        break;
      }
      report.attempts.push(
        // A list refreshed for an earlier transfer of this cycle judges the later ones too.
        await processTransfer(ctx, {
          cycleId,
          planId: planIds[i]!,
          planned,
          chainsDoc: ctx.chainsCache?.current() ?? chainsDoc,
          execute: opts.mode !== 'plan',
          monitor: opts.mode === 'plan' && opts.monitor === true,
          decimalsOf,
          spare,
        }),
      );
      if (opts.monitor) reportMonitorAttempt(ctx, report.attempts.at(-1)!, log);
    }
    report.outcome = outcomeOf(report.attempts, report.plan.decisions);
    const refusedKey = report.attempts.find((a) => a.authRefusal !== undefined)?.authRefusal;
    if (refusedKey) report.authRefusal = refusedKey;
    if (opts.mode !== 'plan') countGasTopUps(ctx, report.attempts, topUps.skipped);
  } catch (error) {
    report.outcome = 'error';
    report.error = shortErrorMessage(error);
    const refusedKey = relayAuthRefusal(error);
    if (refusedKey) report.authRefusal = refusedKey;
    log.error({ cycleId, err: report.error }, 'cycle failed');
  }
  report.finishedAtMs = ctx.now();
  await finishCycle(ctx.db, cycleId, {
    outcome: report.outcome,
    finishedAtMs: report.finishedAtMs,
    summary: {
      planned: report.plan.transfers.length,
      outcomes: report.attempts.map((a) => a.outcome),
      unresolved: report.unresolved.length,
    },
    ...(report.error ? { error: report.error } : {}),
  });
  if (opts.mode !== 'plan' || opts.monitor) {
    ctx.metrics.cyclesTotal.inc({ outcome: report.outcome });
    ctx.metrics.cycleDurationSeconds.observe((report.finishedAtMs - startedAtMs) / 1000);
    if (report.outcome !== 'error') ctx.metrics.lastSuccessfulCycleTimestampSeconds.set(report.finishedAtMs / 1000);
  }
  await recordCycleEndMetrics(ctx, report);
  return report;
}

/**
 * A cycle is `error` when a transfer failed or when a chain could not be read: its targets were not planned, so
 * the cycle cannot claim the treasury is in band (a partial failure, exit 1).
 */
function outcomeOf(attempts: TransferAttempt[], decisions: readonly { kind: string }[]): CycleOutcome {
  const errors = attempts.some((a) => ['quote_error', 'origin_failed', 'failure', 'refund'].includes(a.outcome));
  if (errors || decisions.some((d) => d.kind === 'chain_unreadable')) return 'error';
  if (attempts.some((a) => a.outcome === 'skipped_fee' || a.outcome === 'skipped_limit' || a.outcome === 'refused_verification')) return 'refused';
  return 'ok';
}

/** Monitor-only: counts an attempt and logs what a normal cycle would have done with it. */
function reportMonitorAttempt(ctx: CycleContext, a: TransferAttempt, log: Logger): void {
  countMonitorAttempt(ctx.metrics, a);
  const what = {
    asset: a.planned.asset,
    from: a.planned.from.chain,
    to: a.planned.to.chain,
    amountIn: a.planned.amountIn.toString(),
    reason: a.planned.reason,
    outcome: a.outcome,
    ...(a.fee?.breakdown ? { feesUsd: formatUsdMicros(a.fee.breakdown.totalMicros) } : {}),
    ...(a.error ? { why: a.error } : {}),
  };
  log.info(what, a.outcome === 'quoted' ? 'monitor-only: would sign and send this transfer' : 'monitor-only: a normal cycle would not send this transfer');
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
