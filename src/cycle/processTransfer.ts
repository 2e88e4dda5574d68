/**
 * One planned transfer through the pipeline: quote → fee policy → local verification → execution → tracking
 * (docs/design.md "The main job, as data flows"). Every decision is recorded before the next step runs; nothing is
 * signed unless the fee policy accepted the quote and every verification rule passed.
 */
import type { PlannedTransfer } from '../planner/types.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { executeTransfer } from '../executor/executeTransfer.ts';
import type { CycleContext } from './context.ts';
import { noteRelayStatus } from './inFlight.ts';
import { killSwitchVerdict, spendingVerdict, type DecimalsOf } from './spendingGate.ts';
import { recordLimitHit } from '../store/limitHits.ts';
import { followRefund } from './followRefund.ts';
import { recordLedger } from './recordLedger.ts';
import type { TransferStage } from './progressEvent.ts';
import { checkQuote, guaranteedOut, sumPayments, type AttemptOutcome, type CheckStage, type TransferAttempt } from './checkQuote.ts';
import { chooseRoute } from './routeChoice.ts';

export type { AttemptOutcome, TransferAttempt } from './checkQuote.ts';
export { sumPayments } from './checkQuote.ts';

/**
 * Arguments of {@link processTransfer}: one planned transfer to run. `execute: false` stops after verification (`ballast plan`); `monitor` (with
 * `execute: false`, monitor-only mode) also judges the kill switch and the spending limits, read-only, so the
 * outcome says what a normal cycle would have done: `quoted` (it would sign) or `skipped_limit`.
 */
export type ProcessArgs = {
  cycleId: number;
  planId: number;
  planned: PlannedTransfer;
  chainsDoc: ChainsResponse;
  execute: boolean;
  monitor?: boolean;
  decimalsOf?: DecimalsOf;
  /**
   * Route choice: the cycle's spare surplus per donor holding (`Plan.spare`, donor base units). With it, a
   * transfer that has alternatives has them quoted too, and the spare is updated for the donor chosen.
   */
  spare?: Map<string, bigint>;
};

/**
 * Runs one planned transfer. With `execute: false` (ballast plan) it stops after verification. Emits its
 * stages to `ctx.progress` when set (planned, quoted, verified, deposited, then the end state).
 *
 * @throws only on store failures; API and chain failures become the attempt's outcome
 */
export async function processTransfer(ctx: CycleContext, args: ProcessArgs): Promise<TransferAttempt> {
  emitProgress(ctx, args, 'planned');
  const attempt = await runAttempt(ctx, args);
  emitProgress(ctx, args, END_STAGE[attempt.outcome], {
    ...(attempt.minOutRequired !== undefined && attempt.quote ? { minOut: guaranteedOut(attempt.quote) } : {}),
    ...(attempt.error ? { detail: attempt.error } : attempt.fee && !attempt.fee.accepted ? { detail: attempt.fee.reason } : {}),
    ...(attempt.verdict && !attempt.verdict.ok ? { detail: attempt.verdict.rules.filter((r) => !r.ok).map((r) => r.rule).join(', ') } : {}),
  });
  return attempt;
}

async function runAttempt(ctx: CycleContext, args: ProcessArgs): Promise<TransferAttempt> {
  const { cycleId, planId } = args;
  const halted = args.execute ? killSwitchVerdict(ctx) : null;
  if (halted) return await refuseOnLimit(ctx, { planned: args.planned, planId, outcome: 'quote_error' }, { cycleId, ...halted });

  const onStage = (stage: CheckStage, minOut: bigint | undefined) => emitProgress(ctx, args, stage, { minOut });
  const choice = ctx.config.policy.routeChoice;
  const attempt =
    args.planned.alternatives?.length && choice.maxCandidates > 1 && args.spare
      ? await chooseRoute(ctx, args, { spare: args.spare, maxCandidates: choice.maxCandidates, parallelQuotes: choice.parallelQuotes }, onStage)
      : await checkQuote(ctx, args, onStage);
  if (attempt.outcome !== 'quoted') return attempt;
  // From here on, the transfer is the one that passed (route choice may have picked another donor).
  const planned = attempt.planned;
  const quote = attempt.quote!; // a `quoted` check carries its quote, fee decision and verdict
  const fee = attempt.fee!;
  if (!fee.accepted) throw new Error('a checked quote always has an accepted fee decision');
  const requestId = attempt.requestId ?? null;
  const quoteId = attempt.quoteId!;
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
  if (!args.execute && args.monitor) {
    // Monitor-only: the same gates a normal cycle applies next, read-only (no limit hit is recorded).
    const halt = killSwitchVerdict(ctx);
    const gate = halt ? { ok: false as const, ...halt } : await spending();
    if (!gate.ok) return { ...attempt, outcome: 'skipped_limit', error: `${gate.reason}: ${gate.detail}` };
  }
  if (!args.execute) return { ...attempt, outcome: 'quoted' };
  if (ctx.signal?.aborted) return { ...attempt, outcome: 'quote_error', error: 'shutdown requested before execution' };
  const limits = await spending();
  if (!limits.ok) return await refuseOnLimit(ctx, attempt, { cycleId, quoteId, reason: limits.reason, detail: limits.detail });

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
        ...(ctx.leading ? { leading: ctx.leading } : {}),
        onRelayStatus: (status) => noteRelayStatus(ctx, status, { requestId }),
        onDeposited: () => emitProgress(ctx, args, 'deposited', { minOut: guaranteedOut(quote) }),
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
    // A store failure (e.g. a duplicate requestId) before or after broadcast: whatever was written stays in
    // flight for reconciliation; this transfer ends here and the cycle goes on with the next.
    const message = shortErrorMessage(error);
    log.error({ requestId, err: message }, 'execution failed');
    return { ...attempt, outcome: 'origin_failed', error: `execution error: ${message}` };
  }
  const outcome: AttemptOutcome =
    result.status === 'success' || result.status === 'failure' || result.status === 'refund' || result.status === 'origin_failed'
      ? result.status
      : 'in_flight';
  if (outcome !== 'in_flight') ctx.metrics.transfersTotal.inc({ outcome, ...labels });
  // After the close is committed; never throws (failures are logged and retried by the next cycle's backfill).
  if (outcome === 'success' || outcome === 'failure' || outcome === 'refund') await recordLedger(ctx, result.transferId);
  if (outcome === 'failure' || outcome === 'refund') await followRefund(ctx, result.transferId); // never throws
  return {
    ...attempt,
    outcome,
    transferId: result.transferId,
    transferStatus: result.status,
    originTxHashes: result.originTxHashes,
    ...(result.error ? { error: result.error } : {}),
  };
}

/** Records a spending-limit refusal, meters it and ends the attempt as `skipped_limit`; nothing is signed. */
async function refuseOnLimit(
  ctx: CycleContext,
  attempt: TransferAttempt,
  hit: { cycleId: number; quoteId?: number; reason: string; detail: string },
): Promise<TransferAttempt> {
  const { planned } = attempt;
  await recordLimitHit(ctx.db, {
    cycleId: hit.cycleId,
    planId: attempt.planId,
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
  ctx.logger.warn({ component: 'pipeline', asset: planned.asset, from: planned.from.chain, to: planned.to.chain, reason: hit.reason }, `spending limit: ${hit.detail}; nothing signed`);
  return { ...attempt, outcome: 'skipped_limit', error: hit.detail };
}

/** The progress stage each attempt outcome ends on. */
const END_STAGE: Readonly<Record<AttemptOutcome, TransferStage>> = {
  quoted: 'checked',
  success: 'filled',
  in_flight: 'in_flight',
  skipped_fee: 'skipped',
  skipped_limit: 'skipped',
  refused_verification: 'refused',
  quote_error: 'quote_error',
  origin_failed: 'origin_failed',
  failure: 'failed',
  refund: 'refunded',
};

/** Sends one progress event to `ctx.progress`; a sink that throws is ignored (progress never stops a transfer). */
function emitProgress(ctx: CycleContext, args: ProcessArgs, stage: TransferStage, extra: { minOut?: bigint | undefined; detail?: string } = {}): void {
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
      atMs: ctx.now(),
    });
  } catch (error) {
    ctx.logger.warn({ err: shortErrorMessage(error) }, 'progress sink failed; ignored');
  }
}
