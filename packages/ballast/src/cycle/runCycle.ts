/**
 * One rebalancing cycle (docs/design.md "One cycle = one pass of this pipeline"): read GET /chains, resolve targets,
 * read balances (each chain at one block) and signer gas, refresh in-flight transfers, plan gas top-ups
 * (src/cycle/gasTopUp.ts) and the rebalance, close stale approval requests (src/cycle/approvalGate.ts), then
 * quote/check/execute each planned transfer, top-ups first.
 * The steps live in src/cycle/cycleSteps.ts. The caller holds the single-run lock when the cycle may sign.
 */
import type { BalanceReading, Plan, TargetBand } from '../planner/types.ts';
import { applyWeights } from '../planner/weights.ts';
import { countGasTopUps } from './gasTopUp.ts';
import { recordCycleEndMetrics } from './metricsCycleEnd.ts';
import { startCycle } from '../store/cycles.ts';
import { finishOwnCycle } from './cycleTakenOver.ts';
import { finishOrKeep, recordLateCycleEnds } from './lateCycleEnds.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { crashPoint } from '../core/crashPoints.ts';
import type { CycleContext } from './context.ts';
import { relayAuthRefusal, type RelayAuthRefusal } from '../relay/authRefusal.ts';
import type { TransferAttempt } from './transferAttempt.ts';
import { resolveTargets, type UnresolvedTarget } from './resolveTargets.ts';
import { recoverInCycle } from '../withdraw/recover.ts';
import { cycleFlows } from './flowSignals.ts';
import { cycleNeeds } from './cycleNeeds.ts';
import { applySolverLiquidity, createLiquidityCache } from './solverLiquidity.ts';
import { closeStaleRequests } from './approvalGate.ts';
import { loadPolicyStanding } from './approvalStanding.ts';
import { countsCycle, cycleKind, signs, type CycleKind, type CycleRun, type Mode } from './mode.ts';
import {
  closeAbandoned,
  inFlightTransfers,
  outcomeOf,
  planTransfers,
  plannerInFlight,
  readChainsDoc,
  readHoldings,
  readPauses,
  recordPlan,
  recordReadings,
  type CycleOutcome,
} from './cycleSteps.ts';
import { runTransfers } from './runTransfers.ts';

export type { CycleOutcome } from './cycleSteps.ts';

/** What a cycle saw and did. Amounts are bigint base units. */
export interface CycleReport {
  cycleId: number;
  /** Recorded on the cycle row: `plan` for a cycle that signs nothing (src/cycle/mode.ts). */
  mode: CycleKind;
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
 * @param run the cycle's mode (src/cycle/mode.ts): `execute` signs (and records its trigger, `once` or `daemon`);
 *   `plan` quotes and verifies but signs nothing; `monitor` (`daemon --monitor-only`) also judges the kill switch
 *   and the spending limits read-only, counts the cycle like a daemon's, and reports what it would have done
 *   (`ballast_monitor_*` metrics, one log line per planned transfer)
 * @returns the report; never throws for API or chain failures (they make the outcome `error`)
 * @throws CycleTakenOverError (`CYCLE_TAKEN_OVER`) when the run's leader term ended and the leader that took over
 *   closed this cycle before it could (src/cycle/cycleTakenOver.ts); store errors
 */
export async function runCycle(ctx: CycleContext, run: CycleRun): Promise<CycleReport> {
  const startedAtMs = ctx.now();
  const log = ctx.logger.child({ component: 'cycle' });
  const kind = cycleKind(run);
  // Under the run lock: an unfinished cycle of a locked mode belongs to a run that died mid-way; as leader, to a
  // leader whose term ended.
  if (signs(run.mode)) {
    await recordLateCycleEnds(ctx.db, log);
    await closeAbandoned(ctx, log, startedAtMs);
  }
  const cycleId = await startCycle(ctx.db, { mode: kind, startedAtMs });
  const report = emptyReport(cycleId, kind, startedAtMs);
  crashPoint('cycle:started');
  try {
    await runSteps(ctx, run.mode, report, log);
  } catch (error) {
    report.outcome = 'error';
    report.error = shortErrorMessage(error);
    const refusedKey = relayAuthRefusal(error);
    if (refusedKey) report.authRefusal = refusedKey;
    log.error({ cycleId, err: report.error }, 'cycle failed');
  }
  report.finishedAtMs = ctx.now();
  await finishReport(ctx, report, run.mode, log);
  return report;
}

/** The steps of a cycle, in order, filling `report` as they go (a step that throws leaves what was read so far). */
async function runSteps(ctx: CycleContext, mode: Mode, report: CycleReport, log: CycleContext['logger']): Promise<void> {
  const { cycleId } = report;
  const chainsDoc = await readChainsDoc(ctx);
  const resolved = await resolveTargets(ctx, chainsDoc);
  report.targets = resolved.targets;
  report.unresolved = resolved.unresolved;
  const { balances, gas } = await readHoldings(ctx, resolved.targets);
  report.balances = balances;
  // In-flight transfers are refreshed after the balance read and judged against the blocks it was read at.
  const refreshed = await inFlightTransfers(ctx, mode);
  crashPoint('cycle:refreshed');
  await recoverInCycle(ctx, chainsDoc, report.mode); // withdrawals.auto: unfilled deposits back to the treasury (the planner still credits them this cycle)
  const inFlight = await plannerInFlight(ctx, refreshed, balances);
  // Weighted holdings get this cycle's bands from their asset's current total (src/planner/weights.ts).
  const weighted = applyWeights(resolved.targets, balances, inFlight);
  const targets = weighted.targets;
  report.targets = targets;
  await recordReadings(ctx, cycleId, targets, balances);
  const pauses = await readPauses(ctx);
  // Flow strategy: this cycle's observation folded into each holding's stored history; only a cycle that signs
  // writes it (src/cycle/flowSignals.ts).
  const flows = await cycleFlows(ctx, { targets, balances, inFlight }, signs(mode));
  // Known outflows (docs/needs.md): held on their holdings by the planner while due within the horizon.
  const needs = await cycleNeeds(ctx, targets, balances, signs(mode));
  const planned = planTransfers(
    ctx,
    {
      targets,
      balances,
      gas,
      inFlight,
      chainsDoc,
      pauses,
      weightDecisions: weighted.decisions,
      unresolved: resolved.unresolved,
      ...(flows ? { flows } : {}),
      needs,
    },
    log,
  );
  // A transfer larger than the solver holds on its destination would be refunded: fit it, or defer it. Read fresh
  // each cycle (one request per destination chain): the solver's balance moves with every fill, ours included.
  const plan = await applySolverLiquidity(ctx, planned.plan, createLiquidityCache({ ttlMs: 0 }), planned.minAmountIn);
  const { topUps } = planned;
  report.plan = plan;
  const planIds = await recordPlan(ctx, cycleId, plan);
  crashPoint('cycle:planned');
  // The approval policy in force (docs/approvals.md "The approval policy"), read once for every transfer of the cycle.
  const standing = mode === 'plan' ? null : await loadPolicyStanding(ctx);
  if (standing?.hold) log.warn({ component: 'approvals', approvedPolicy: standing.approvedDigest }, standing.hold);
  if (mode !== 'plan') ctx.metrics.approvalPolicyHeld.set(standing?.hold ? 1 : 0);
  // Approval requests that expired, or whose route this plan no longer holds, close before any is used.
  if (signs(mode)) await closeStaleRequests(ctx, plan.transfers, standing);
  log.info({ cycleId, planned: plan.transfers.length, inFlight: refreshed.inFlight.length }, 'plan ready');
  await runTransfers(ctx, { cycleId, mode, plan, planIds, chainsDoc, targets, standing }, report.attempts, log);
  report.outcome = outcomeOf(report.attempts, plan.decisions);
  const refusedKey = report.attempts.find((a) => a.authRefusal !== undefined)?.authRefusal;
  if (refusedKey) report.authRefusal = refusedKey;
  if (signs(mode)) countGasTopUps(ctx, report.attempts, topUps.skipped);
}

/** A report of a cycle that has not read anything yet (outcome `ok` until a step says otherwise). */
function emptyReport(cycleId: number, mode: CycleKind, startedAtMs: number): CycleReport {
  return {
    cycleId,
    mode,
    outcome: 'ok',
    startedAtMs,
    finishedAtMs: startedAtMs,
    targets: [],
    unresolved: [],
    balances: [],
    plan: { transfers: [], decisions: [] },
    attempts: [],
  };
}

/**
 * Closes the cycle row with its summary, counts the cycle (not a `plan` one) and refreshes the end-of-cycle gauges.
 *
 * @throws CycleTakenOverError when the leader that took over closed the row first (the cycle is not counted here)
 */
async function finishReport(ctx: CycleContext, report: CycleReport, mode: Mode, log: CycleContext['logger']): Promise<void> {
  const end = {
    outcome: report.outcome,
    finishedAtMs: report.finishedAtMs,
    summary: {
      planned: report.plan.transfers.length,
      outcomes: report.attempts.map((a) => a.outcome),
      unresolved: report.unresolved.length,
    },
    ...(report.error ? { error: report.error } : {}),
  };
  // A lost store connection leaves the row open: this process records the end at its next cycle.
  await finishOrKeep(ctx.db, report.cycleId, end, () => finishOwnCycle(ctx, report.cycleId, end), log);
  if (countsCycle(mode)) {
    ctx.metrics.cyclesTotal.inc({ outcome: report.outcome });
    ctx.metrics.cycleDurationSeconds.observe((report.finishedAtMs - report.startedAtMs) / 1000);
    if (report.outcome !== 'error') ctx.metrics.lastSuccessfulCycleTimestampSeconds.set(report.finishedAtMs / 1000);
  }
  await recordCycleEndMetrics(ctx, report);
}
