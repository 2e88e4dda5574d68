/**
 * The transfers of one cycle (src/cycle/runCycle.ts): admitted one at a time, their fills awaited side by side
 * up to `policy.maxConcurrentTransfers`, and in the daemon left to background trackers once deposited
 * (src/cycle/backgroundTracking.ts).
 */
import type { Logger } from 'pino';
import { formatUnits } from 'viem';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import type { Plan, PlanDecision, PlannedTransfer, TargetBand } from '../planner/types.ts';
import { recordPlanDecisions } from '../store/plans.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { countMonitorAttempt } from '../metrics/monitorMetrics.ts';
import { termHasEnded } from '../executor/termEnded.ts';
import type { PolicyStanding } from './approvalStanding.ts';
import type { CycleContext } from './context.ts';
import type { Mode } from './mode.ts';
import { processTransfer, type ProcessTransferDeps } from './processTransfer.ts';
import { killSwitchVerdict } from './spendingGate.ts';
import type { TransferAttempt } from './transferAttempt.ts';

/** What {@link runTransfers} runs: the cycle's plan, its rows and the context the transfers are judged in. */
export interface TransfersInput {
  cycleId: number;
  mode: Mode;
  plan: Plan;
  planIds: readonly number[];
  chainsDoc: ChainsResponse;
  /** This cycle's targets (weighted): the decimals the spending gates read. */
  targets: readonly TargetBand[];
  /** The approval policy in force this cycle (src/cycle/approvalStanding.ts); null: none, or a `plan` cycle. */
  standing: PolicyStanding | null;
}

/**
 * Runs each planned transfer in the plan's order (top-ups first). One is admitted at a time; the next starts once
 * the previous one's deposit is confirmed and only its fill is awaited (a gas top-up: once it has ended, so the gas
 * is there before a deposit needs it), with at most `policy.maxConcurrentTransfers` awaiting fills at once. Pushes
 * the attempts onto `attempts` in the plan's order once every started transfer has ended, or, in the daemon
 * (`ctx.background`), once each is deposited or over: fills still awaited then go on in the background and are
 * reported `in_flight`, and when the daemon's earlier fills hold every slot the rest wait for the next cycle.
 * Stops early when shutdown is requested (the rest wait for the next cycle). Sets the kill switch gauge first; in
 * `monitor` mode, counts and logs what a normal cycle would have done with each attempt.
 *
 * @throws only on store failures (the attempts so far stay in `attempts`)
 */
export async function runTransfers(
  ctx: ProcessTransferDeps & Pick<CycleContext, 'background'>,
  input: TransfersInput,
  attempts: TransferAttempt[],
  log: Logger,
): Promise<void> {
  const decimalsOf = (asset: string, chain: string) => input.targets.find((t) => t.asset === asset && t.chain === chain)?.decimals;
  ctx.metrics.killSwitchEngaged.set(killSwitchVerdict(ctx) ? 1 : 0);
  // Route choice spends the donors' spare surplus as it moves transfers to alternative donors.
  const spare = new Map(input.plan.spare ?? []);
  // One transfer is admitted at a time (quote, gates, write-ahead, signing, sending, its deposit confirmed), so
  // spending limits, approvals, spare surplus, nonces and UTXOs are judged exactly as one after another; only the
  // wait for fills overlaps, up to policy.maxConcurrentTransfers transfers tracked at once (the daemon's fills
  // still tracked from earlier cycles included).
  const limit = input.mode === 'execute' ? ctx.config.policy.maxConcurrentTransfers : 1;
  const background = input.mode === 'execute' ? ctx.background : undefined;
  const results: TransferAttempt[] = [];
  /** Each transfer's attempt once its deposit was confirmed (`in_flight`), until its tracking ends. */
  const tracked: TransferAttempt[] = [];
  const tracking = new Map<Promise<void>, number>();
  const failures: unknown[] = [];
  for (const [i, planned] of input.plan.transfers.entries()) {
    while (tracking.size > 0 && tracking.size + (background?.size ?? 0) >= limit) await Promise.race(tracking.keys());
    if (background && background.size >= limit) {
      // Every slot holds a fill of an earlier cycle: this cycle does not wait for one; the next one plans again.
      const left = input.plan.transfers.slice(i);
      log.warn(
        { tracked: background.size, left: left.length },
        'planned transfers left to the next cycle: policy.maxConcurrentTransfers fills are still awaited',
      );
      await recordPlanDecisions(
        ctx.db,
        input.cycleId,
        left.map((p) => deferredDecision(p, background.size)),
      );
      break;
    }
    if (failures.length > 0) break; // a store failure ends the cycle, as it did before anything overlapped
    if (ctx.signal?.aborted) {
      // With a leader lease the signal also aborts when the run's term ends.
      if (termHasEnded(ctx.leading)) log.warn('term ended; the remaining planned transfers are left to the replica that leads now');
      else log.warn('shutdown requested; remaining planned transfers wait for the next cycle');
      break;
    }
    let admitted!: () => void;
    const next = new Promise<void>((resolve) => (admitted = resolve));
    const run: Promise<void> = processTransfer(ctx, {
      cycleId: input.cycleId,
      planId: input.planIds[i]!, // one row per planned transfer
      planned,
      // A list refreshed for an earlier transfer of this cycle judges the later ones too.
      chainsDoc: ctx.chainsCache?.current() ?? input.chainsDoc,
      mode: input.mode,
      decimalsOf,
      spare,
      standing: input.standing,
      // A gas top-up is waited for: the deposits after it may need the gas it brings.
      ...(planned.gasTopUp
        ? {}
        : {
            onTracking: (inFlight: TransferAttempt) => {
              tracked[i] = inFlight;
              admitted();
            },
          }),
    })
      .then((attempt) => {
        results[i] = attempt;
        if (input.mode === 'monitor') reportMonitorAttempt(ctx, attempt, log);
      })
      .catch((error: unknown) => {
        if (tracking.has(run)) failures.push(error);
        else
          log.error(
            { transferId: tracked[i]?.transferId, err: shortErrorMessage(error) },
            'tracking in the background failed; the transfer stays in flight',
          );
      })
      .finally(() => {
        admitted();
        tracking.delete(run);
      });
    tracking.set(run, i);
    await next; // the next transfer starts once this one only awaits its fill, or has ended
  }
  if (background && failures.length === 0) {
    // The daemon: fills still awaited go on in the background; the cycle reports those transfers in flight.
    for (const [run, i] of tracking) {
      const inFlight = tracked[i];
      if (inFlight?.transferId === undefined) continue; // still before its deposit (a gas top-up): waited for below
      tracking.delete(run);
      results[i] = inFlight;
      background.add(inFlight.transferId, run);
    }
    if (tracking.size === 0 && background.size > 0) log.info({ tracked: background.size }, 'fills tracked in the background');
  }
  await Promise.all(tracking.keys());
  attempts.push(...results.filter((a) => a !== undefined));
  if (failures.length > 0) throw failures[0];
}

/**
 * The `deferred_concurrency` decision of a planned transfer the cycle leaves to the next one, on its destination
 * chain; `tracked` is the count of fills still awaited.
 */
function deferredDecision(p: PlannedTransfer, tracked: number): PlanDecision {
  return {
    asset: p.asset,
    chain: p.to.chain,
    kind: 'deferred_concurrency',
    detail: `${formatUnits(p.amountIn, p.from.decimals)} ${p.asset} ${p.from.chain} -> ${p.to.chain} left to the next cycle: ${tracked} fills still awaited hold every slot of policy.maxConcurrentTransfers`,
  };
}

/** Monitor-only: counts an attempt and logs what a normal cycle would have done with it. */
function reportMonitorAttempt(ctx: Pick<CycleContext, 'metrics'>, a: TransferAttempt, log: Logger): void {
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
  log.info(
    what,
    a.outcome === 'quoted'
      ? 'monitor-only: would sign and send this transfer'
      : 'monitor-only: a normal cycle would not send this transfer',
  );
}
