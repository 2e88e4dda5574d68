/**
 * One planned transfer through the pipeline: quote → fee policy → local verification → spending limits → approval
 * gate (with `policy.approvals`, docs/approvals.md) → execution → tracking (docs/design.md "The main job, as data
 * flows"). Every decision is recorded before the next step runs; nothing is signed unless the fee policy accepted
 * the quote and every verification rule passed.
 */
import type { PlannedTransfer } from '../planner/types.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { executeTransfer } from '../executor/executeTransfer.ts';
import { isTermEnd, TermEndedError, termHasEnded } from '../executor/termEnded.ts';
import { handOver } from './handOver.ts';
import type { CycleContext } from './context.ts';
import { noteRelayStatus } from './inFlight.ts';
import { killSwitchVerdict, spendingVerdict, type DecimalsOf } from './spendingGate.ts';
import { recordLimitHit } from '../store/limitHits.ts';
import { IN_FLIGHT_STATUSES } from '../store/transfers.ts';
import { notify } from '../notify/notify.ts';
import { limitHitEvent } from '../notify/eventOf.ts';
import { executeRequest } from '../store/approvalRequests.ts';
import { approvalNotifier } from '../notify/approvalSink.ts';
import { approvalVerdict, approvedRequestFor, withinApproval, type ApprovalMatch } from './approvalGate.ts';
import { validatorVerdict } from './validatorGate.ts';
import { loadPolicyStanding, type PolicyStanding } from './approvalStanding.ts';
import { addressBookAllows } from '../approvals/policyDoc.ts';
import { feeCapsFor } from '../policy/routeFees.ts';
import { followRefund } from './followRefund.ts';
import { recordLedger } from './recordLedger.ts';
import type { TransferStage } from './progressEvent.ts';
import { checkQuote, guaranteedOut, sumPayments, type CheckQuoteDeps, type CheckStage } from './checkQuote.ts';
import { chooseRoute } from './routeChoice.ts';
import type { Mode } from './mode.ts';
import {
  executedAttempt,
  haltedAttempt,
  heldAttempt,
  type AttemptOutcome,
  type QuotedAttempt,
  type TransferAttempt,
} from './transferAttempt.ts';

export type { AttemptOutcome, TransferAttempt } from './transferAttempt.ts';
export { sumPayments } from './checkQuote.ts';

/**
 * What {@link processTransfer} uses of the cycle's runtime: what checking a quote uses ({@link CheckQuoteDeps}),
 * and for execution the sleep, the shutdown signal, the leader check, the webhook status feed and the progress sink.
 */
export type ProcessTransferDeps = CheckQuoteDeps &
  Pick<CycleContext, 'sleep' | 'signal' | 'leading' | 'statusFeed' | 'progress' | 'trackFills'>;

/**
 * Arguments of {@link processTransfer}: one planned transfer to run. `mode` `plan` stops after verification
 * (`ballast plan`); `monitor` also judges the kill switch and the spending limits, read-only, so the outcome says
 * what a normal cycle would have done: `quoted` (it would sign) or `skipped_limit`; `execute` signs.
 */
export type ProcessArgs = {
  cycleId: number;
  planId: number;
  planned: PlannedTransfer;
  chainsDoc: ChainsResponse;
  mode: Mode;
  decimalsOf?: DecimalsOf;
  /**
   * Route choice: the cycle's spare surplus per donor holding (`Plan.spare`, donor base units). With it, a
   * transfer that has alternatives has them quoted too, and the spare is updated for the donor chosen.
   */
  spare?: Map<string, bigint>;
  /**
   * The approval policy in force this cycle (src/cycle/approvalStanding.ts), read once per cycle by the caller;
   * absent: read for this transfer.
   */
  standing?: PolicyStanding | null;
  /**
   * Called once the transfer's deposit is confirmed and only its fill is awaited, with the attempt as it stands
   * then (`in_flight`, its transfer `deposited`): src/cycle/runTransfers.ts then starts the next
   * transfer. Not called when it ends before that.
   */
  onTracking?: (inFlight: TransferAttempt) => void;
};

/**
 * Runs one planned transfer. Unless `args.mode` is `execute` it stops before signing. Emits its stages to
 * `ctx.progress` when set (planned, quoted, verified, deposited, then the end state).
 *
 * @returns the attempt, tagged by its outcome; `handed_over` when the run's leader term ended while the transfer
 *   was executing (src/cycle/handOver.ts): logged at warn, left in flight for the replica that leads now
 * @throws only on store failures; API and chain failures become the attempt's outcome
 */
export async function processTransfer(ctx: ProcessTransferDeps, args: ProcessArgs): Promise<TransferAttempt> {
  emitProgress(ctx, args, 'planned');
  const attempt = await runAttempt(ctx, args);
  emitProgress(ctx, args, END_STAGE[attempt.outcome], {
    ...(attempt.transferId !== undefined ? { transferId: attempt.transferId } : {}),
    ...(attempt.minOutRequired !== undefined && attempt.quote ? { minOut: guaranteedOut(attempt.quote) } : {}),
    ...(attempt.error ? { detail: attempt.error } : attempt.fee && !attempt.fee.accepted ? { detail: attempt.fee.reason } : {}),
    ...(attempt.verdict && !attempt.verdict.ok
      ? {
          detail: attempt.verdict.rules
            .filter((r) => !r.ok)
            .map((r) => r.rule)
            .join(', '),
        }
      : {}),
  });
  return attempt;
}

async function runAttempt(ctx: ProcessTransferDeps, given: ProcessArgs): Promise<TransferAttempt> {
  const { cycleId, planId } = given;
  const halted = given.mode === 'execute' ? killSwitchVerdict(ctx) : null;
  if (halted) {
    await recordRefusal(ctx, given.planned, planId, { cycleId, ...halted });
    return haltedAttempt(given.planned, planId, halted.detail);
  }
  // The approval policy in force; an approved request for this route: the transfer is quoted within it, on its route only.
  const standing = given.mode === 'plan' ? null : given.standing !== undefined ? given.standing : await loadPolicyStanding(ctx);
  const match = await approvedRequestFor(ctx, given.planned, standing);
  const withStanding = { ...given, standing };
  const args = match ? { ...withStanding, planned: withinApproval(given.planned, match) } : withStanding;

  const onStage = (stage: CheckStage, minOut: bigint | undefined) => emitProgress(ctx, args, stage, { minOut });
  const choice = ctx.config.policy.routeChoice;
  const attempt =
    args.planned.alternatives?.length && choice.maxCandidates > 1 && args.spare
      ? await chooseRoute(
          ctx,
          args,
          { spare: args.spare, maxCandidates: choice.maxCandidates, parallelQuotes: choice.parallelQuotes },
          onStage,
        )
      : await checkQuote(ctx, args, onStage);
  if (attempt.outcome !== 'quoted') return attempt;
  return await afterChecks(ctx, args, attempt, match);
}

/**
 * The spending gates and the approval gate, then (in `execute` mode) execution and tracking, of an attempt that
 * passed every check. `match` is the approved request the transfer was quoted within, if any.
 */
async function afterChecks(
  ctx: ProcessTransferDeps,
  args: ProcessArgs,
  attempt: QuotedAttempt,
  match: ApprovalMatch | undefined,
): Promise<TransferAttempt> {
  const { cycleId } = args;
  // From here on, the transfer is the one that passed (route choice may have picked another donor).
  const { planned, quote, fee, requestId, quoteId } = attempt;
  const originChain = ctx.chains.get(planned.from.chain)!; // the planner only plans configured chains
  const labels = { asset: planned.asset, origin_chain: planned.from.chain, destination_chain: planned.to.chain };
  const log = ctx.logger.child({ component: 'pipeline', asset: planned.asset, from: planned.from.chain, to: planned.to.chain });
  const spending = () =>
    spendingVerdict(ctx, {
      planned,
      amountUsd: quote.details?.currencyIn?.amountUsd ?? null,
      feesUsd: formatUsdMicros(fee.breakdown.totalMicros),
      decimalsOf: args.decimalsOf ?? (() => undefined),
    });
  const standing = args.standing ?? null;
  const approval = (record: boolean) =>
    approvalVerdict(ctx, {
      cycleId,
      planId: attempt.planId,
      quoteId,
      planned,
      amountUsd: quote.details?.currencyIn?.amountUsd ?? null,
      match,
      record,
      standing,
    });
  // The approved policy's address book (addressBook: required): money goes only to the addresses it lists.
  const booked = () => {
    const ok = !standing || addressBookAllows(standing.policy, planned.to.chainId, planned.to.address);
    const detail = `the recipient ${planned.to.address} on chain ${planned.to.chainId} is not in the approved policy's address book${standing?.hold ? ` (${standing.hold})` : ''}`;
    return ok ? ({ ok: true } as const) : ({ ok: false, reason: 'address_book', detail } as const);
  };
  if (args.mode === 'monitor') {
    // Monitor-only: the same gates a normal cycle applies next, read-only (no limit hit or request is recorded).
    const halt = killSwitchVerdict(ctx);
    const spent = halt ? { ok: false as const, ...halt } : await spending();
    const gate = spent.ok ? booked() : spent;
    if (!gate.ok) return heldAttempt(attempt, 'skipped_limit', `${gate.reason}: ${gate.detail}`);
    const approved = await approval(false);
    if (!approved.ok) return heldAttempt(attempt, 'awaiting_approval', approved.detail);
  }
  if (args.mode !== 'execute') return attempt;
  if (ctx.signal?.aborted) {
    // With a leader lease the signal also aborts when the run's term ends: then the move is the new leader's.
    if (termHasEnded(ctx.leading))
      return handOver(attempt, { transferId: null, originTxHashes: [], detail: 'stopped before execution' }, log);
    return heldAttempt(attempt, 'quote_error', 'shutdown requested before execution');
  }
  const spent = await spending();
  const limits = spent.ok ? booked() : spent;
  if (!limits.ok) {
    await recordRefusal(ctx, planned, attempt.planId, { cycleId, quoteId, reason: limits.reason, detail: limits.detail });
    return heldAttempt(attempt, 'skipped_limit', limits.detail);
  }
  // Last: an approval never lets through what another gate refused.
  const approved = await approval(true);
  if (!approved.ok) return heldAttempt(attempt, 'awaiting_approval', approved.detail);
  const approvalId = approved.requestId;
  // Then the validators, who can only veto (docs/approvals.md "Validators").
  const vetted = await validatorVerdict(ctx, standing, {
    planned,
    amountUsd: quote.details?.currencyIn?.amountUsd ?? null,
    maxFees: feeCapsFor(ctx.config.policy, planned),
    orderId: quote.protocol!.v2!.orderId, // verification passed, so protocol.v2 is present
    approvalRequestId: approvalId ?? null,
  });
  if (!vetted.ok) {
    await recordRefusal(ctx, planned, attempt.planId, { cycleId, quoteId, reason: 'validator', detail: vetted.detail });
    return heldAttempt(attempt, 'skipped_limit', vetted.detail);
  }

  const wallet = ctx.wallets.get(planned.from.wallet)!;
  const v2 = quote.protocol!.v2!; // verification passed, so protocol.v2 is present
  let result;
  try {
    result = await executeTransfer(
      {
        db: ctx.db,
        chain: originChain,
        wallet: wallet.name,
        relay: ctx.relay,
        logger: log,
        now: ctx.now,
        sleep: ctx.sleep,
        tracking: {
          pollMs: ctx.config.tracking.pollMs,
          timeoutMs: ctx.config.tracking.timeoutSec * 1000,
          stuckWaitingMs: Math.min(30_000, ctx.config.tracking.timeoutSec * 500),
        },
        signal: ctx.signal,
        ...(ctx.trackFills === false ? { trackFill: false } : {}),
        ...(ctx.leading ? { leading: ctx.leading } : {}),
        onRelayStatus: (status) => noteRelayStatus(ctx, status, { requestId }),
        onDeposited: (transferId, originTxHashes) => {
          emitProgress(ctx, args, 'deposited', { minOut: guaranteedOut(quote), transferId });
          args.onTracking?.(executedAttempt(attempt, { transferId, status: 'deposited', originTxHashes: [...originTxHashes] }));
        },
        ...(approvalId !== undefined
          ? { onWriteAhead: (transferId: number) => executeRequest(ctx.db, approvalId, transferId, ctx.now(), approvalNotifier(ctx)) }
          : {}),
        ...(ctx.statusFeed ? { statusFeed: ctx.statusFeed } : {}),
      },
      {
        cycleId,
        quoteId,
        asset: planned.asset,
        originChain: planned.from.chain,
        originChainId: planned.from.chainId,
        originCurrency: planned.from.currency,
        destinationChain: planned.to.chain,
        destinationChainId: planned.to.chainId,
        destinationCurrency: planned.to.currency,
        user: wallet.address,
        recipient: planned.to.address,
        amountIn: planned.amountIn,
        expectedOut: sumPayments(v2.orderData.output.payments, 'expectedAmount'),
        minOut: sumPayments(v2.orderData.output.payments, 'minimumAmount'),
        requestId: requestId ?? v2.orderId,
        orderId: v2.orderId,
        feesUsd: formatUsdMicros(fee.breakdown.totalMicros),
        quote,
      },
    );
  } catch (error) {
    // The run's leader term ended (the fencing check refused a write-ahead, or a write met the rows as the replica
    // that took over left them; the executor asked the run-term check): not a failure, the transfer is that
    // replica's now.
    if (isTermEnd(error)) {
      const left = error instanceof TermEndedError ? error : { transferId: null, originTxHashes: [], detail: shortErrorMessage(error) };
      return handOver(attempt, left, log);
    }
    // A store failure (e.g. a duplicate requestId) before or after broadcast: whatever was written stays in
    // flight for reconciliation; this transfer ends here and the cycle goes on with the next.
    const message = shortErrorMessage(error);
    log.error({ requestId, err: message }, 'execution failed');
    return { ...attempt, outcome: 'origin_failed', error: `execution error: ${message}` };
  }
  // Stopped in flight after the run's term ended (e.g. written ahead and left unsent): the new leader's to finish.
  if (IN_FLIGHT_STATUSES.includes(result.status) && termHasEnded(ctx.leading)) {
    const detail = result.error ?? `stopped with the transfer ${result.status}`;
    return handOver(attempt, { transferId: result.transferId, originTxHashes: result.originTxHashes, detail }, log);
  }
  const executed = executedAttempt(attempt, result);
  const { outcome } = executed;
  if (outcome !== 'in_flight') ctx.metrics.transfersTotal.inc({ outcome, ...labels });
  // After the close is committed; never throws (failures are logged and retried by the next cycle's backfill).
  if (outcome === 'success' || outcome === 'failure' || outcome === 'refund') await recordLedger(ctx, result.transferId);
  if (outcome === 'failure' || outcome === 'refund') await followRefund(ctx, result.transferId); // never throws
  return executed;
}

/** Records a spending-limit refusal (or the kill switch) and meters it; the attempt ends `skipped_limit`, nothing signed. */
async function recordRefusal(
  ctx: Pick<ProcessTransferDeps, 'db' | 'metrics' | 'logger' | 'now' | 'config'>,
  planned: PlannedTransfer,
  planId: number,
  hit: { cycleId: number; quoteId?: number; reason: string; detail: string },
): Promise<void> {
  await recordLimitHit(ctx.db, {
    cycleId: hit.cycleId,
    planId,
    ...(hit.quoteId === undefined ? {} : { quoteId: hit.quoteId }),
    asset: planned.asset,
    originChain: planned.from.chain,
    destinationChain: planned.to.chain,
    amountIn: planned.amountIn,
    reason: hit.reason,
    detail: hit.detail,
    decidedAtMs: ctx.now(),
  });
  ctx.metrics.spendingLimitHitsTotal.inc({ reason: hit.reason });
  ctx.logger.warn(
    { component: 'pipeline', asset: planned.asset, from: planned.from.chain, to: planned.to.chain, reason: hit.reason },
    `spending limit: ${hit.detail}; nothing signed`,
  );
  await notify(ctx, limitHitEvent(planned, { ...hit, planId, atMs: ctx.now() }));
}

/** The progress stage each attempt outcome ends on. */
const END_STAGE: Readonly<Record<AttemptOutcome, TransferStage>> = {
  quoted: 'checked',
  success: 'filled',
  in_flight: 'in_flight',
  skipped_fee: 'skipped',
  skipped_limit: 'skipped',
  awaiting_approval: 'skipped',
  refused_verification: 'refused',
  quote_error: 'quote_error',
  origin_failed: 'origin_failed',
  failure: 'failed',
  refund: 'refunded',
  handed_over: 'handed_over',
};

/** Sends one progress event to `ctx.progress`; a sink that throws is ignored (progress never stops a transfer). */
function emitProgress(
  ctx: Pick<ProcessTransferDeps, 'progress' | 'now' | 'logger'>,
  args: ProcessArgs,
  stage: TransferStage,
  extra: { minOut?: bigint | undefined; detail?: string; transferId?: number } = {},
): void {
  if (!ctx.progress) return;
  const { planned } = args;
  try {
    ctx.progress({
      planId: args.planId,
      asset: planned.asset,
      originChain: planned.from.chain,
      destinationChain: planned.to.chain,
      amountIn: planned.amountIn,
      decimalsIn: planned.from.decimals,
      decimalsOut: planned.to.decimals,
      stage,
      ...(extra.minOut !== undefined ? { minOut: extra.minOut } : {}),
      ...(extra.detail !== undefined ? { detail: extra.detail } : {}),
      ...(extra.transferId !== undefined ? { transferId: extra.transferId } : {}),
      atMs: ctx.now(),
    });
  } catch (error) {
    ctx.logger.warn({ err: shortErrorMessage(error) }, 'progress sink failed; ignored');
  }
}
