/**
 * One planned transfer through the pipeline: quote → fee policy → local verification → execution → tracking
 * (DESIGN.md "The main job, as data flows"). Every decision is recorded before the next step runs; nothing is
 * signed unless the fee policy accepted the quote and every verification rule passed.
 */
import type { PlannedTransfer } from '../planner/types.ts';
import type { ChainsResponse, QuoteRequest, QuoteResponse } from '../relay/schemas.ts';
import { evaluateFees, type FeeDecision, type OrderGuarantee } from '../policy/feePolicy.ts';
import type { Verdict } from '../verify/verifyQuote.ts';
import { verifyWithFreshChains } from './chainsRefresh.ts';
import { recordFeeDecision, recordQuote, recordVerdict } from '../store/quotes.ts';
import type { TransferStatus } from '../store/transfers.ts';
import { formatUsdMicros } from '../core/units.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { crashPoint } from '../core/crashPoints.ts';
import { executeTransfer } from '../executor/executeTransfer.ts';
import { requiredLeadSec } from '../executor/deadlines.ts';
import type { CycleContext } from './context.ts';
import { noteRelayStatus } from './inFlight.ts';
import { buildQuoteRequest, expectationsFor, guaranteedOutputFloor } from './expectations.ts';
import { requestQuote } from './requestQuote.ts';
import { killSwitchVerdict, spendingVerdict, type DecimalsOf } from './spendingGate.ts';
import { recordLimitHit } from '../store/limitHits.ts';
import { recordLedger } from './recordLedger.ts';
import type { TransferStage } from './progressEvent.ts';


/** How a planned transfer ended this cycle. */
export type AttemptOutcome =
  | 'quoted' // plan mode: quoted, checked, not executed
  | 'success'
  | 'in_flight'
  | 'skipped_fee'
  | 'skipped_limit' // a spending limit or the kill switch: nothing signed
  | 'refused_verification'
  | 'quote_error'
  | 'origin_failed'
  | 'failure'
  | 'refund';

/** The record of one planned transfer's way through the pipeline (for reports, CLI output and exit codes). */
export interface TransferAttempt {
  planned: PlannedTransfer;
  planId: number;
  outcome: AttemptOutcome;
  request?: QuoteRequest;
  quote?: QuoteResponse;
  quoteId?: number;
  requestId?: string | null;
  /** Floor we required for the guaranteed output, destination base units. */
  minOutRequired?: bigint;
  fee?: FeeDecision;
  verdict?: Verdict;
  transferId?: number;
  transferStatus?: TransferStatus;
  originTxHashes?: string[];
  error?: string;
}

/**
 * Arguments of {@link processTransfer}: one planned transfer to run. `execute: false` stops after verification (`ballast plan`); `monitor` (with
 * `execute: false`, monitor-only mode) also judges the kill switch and the spending limits, read-only, so the
 * outcome says what a normal cycle would have done: `quoted` (it would sign) or `skipped_limit`.
 */
type ProcessArgs = {
  cycleId: number;
  planId: number;
  planned: PlannedTransfer;
  chainsDoc: ChainsResponse;
  execute: boolean;
  monitor?: boolean;
  decimalsOf?: DecimalsOf;
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
  const { planned, cycleId, planId } = args;
  const policy = ctx.config.policy;
  const labels = { asset: planned.asset, origin_chain: planned.from.chain, destination_chain: planned.to.chain };
  const log = ctx.logger.child({ component: 'pipeline', asset: planned.asset, from: planned.from.chain, to: planned.to.chain });
  const request = buildQuoteRequest(planned, { referrer: ctx.config.relay.referrer, slippageBps: policy.slippageBps });
  const attempt: TransferAttempt = { planned, planId, outcome: 'quote_error', request };
  const halted = args.execute ? killSwitchVerdict(ctx) : null;
  if (halted) return await refuseOnLimit(ctx, attempt, { cycleId, ...halted });

  const quoted = await requestQuote(ctx, request, { cycleId, planId, singleSource: originSwapSource(ctx, planned.from.chain) });
  attempt.request = quoted.request;
  if (!quoted.ok) return { ...attempt, error: quoted.error };
  const { quote, raw } = quoted;
  ctx.metrics.quotesTotal.inc(labels);
  ctx.prices?.noteQuote(planned.asset, quote.details);
  const requestId = quote.requestId ?? quote.steps[0]?.requestId ?? null;
  const orderId = quote.protocol?.v2?.orderId ?? null;
  const quoteId = await recordQuote(ctx.db, { cycleId, planId, requestId, orderId, request: quoted.request, raw, receivedAtMs: ctx.now() });
  Object.assign(attempt, { quote, quoteId, requestId });
  crashPoint('quote:recorded');
  emitProgress(ctx, args, 'quoted', { minOut: guaranteedOut(quote) });

  const fee = evaluateFees(quote.details, policy.maxFees ?? {}, orderGuarantee(quote, planned, policy.slippageBps));
  await recordFeeDecision(ctx.db, quoteId, fee.accepted
    ? { accepted: true, breakdown: breakdownJson(fee.breakdown) }
    : { accepted: false, reason: fee.reason, detail: fee.detail, breakdown: fee.breakdown ? breakdownJson(fee.breakdown) : undefined });
  attempt.fee = fee;
  if (!fee.accepted) {
    ctx.metrics.quotesSkippedTotal.inc({ reason: fee.reason });
    log.warn({ requestId, reason: fee.reason, detail: fee.detail }, 'quote skipped by fee policy; nothing signed');
    return { ...attempt, outcome: 'skipped_fee' };
  }

  // The loader requires totalBps; were it missing, 0 makes the floor strictest (fail closed). A gas top-up's
  // floor is its configured minOut (two assets: the input converted is no floor).
  const minOut = guaranteedOutputFloor(planned, { slippageBps: policy.slippageBps, totalFeeBps: policy.maxFees.totalBps ?? 0 });
  attempt.minOutRequired = minOut;
  const originChain = ctx.chains.get(planned.from.chain)!; // the planner only plans configured chains
  let origin;
  try {
    origin = await originChain.originFacts(quote, planned.from.address);
  } catch (error) {
    const message = `reading what verification needs from chains.${planned.from.chain} failed: ${shortErrorMessage(error)}`;
    log.error({ requestId, err: message }, 'quote not verified; nothing signed');
    return { ...attempt, outcome: 'quote_error', error: message };
  }
  // Judged on the cached GET /chains list; a refusal the list may explain is judged once more on a fresh one.
  const { verdict } = await verifyWithFreshChains({
    quote,
    chains: args.chainsDoc,
    origin,
    limits: originChain.depositLimits,
    expect: expectationsFor(planned, minOut, {
      ourWallets: [...ctx.wallets.values()].map((w) => w.address),
      maxDeadlineSec: policy.maxDeadlineSec,
    }),
    // Deadlines must leave time to send every item and for the fill (src/executor/deadlines.ts): a quote
    // whose order expires sooner is refused on `deadline` (its deposit would likely be refunded, not filled).
    nowSec: Math.floor(ctx.now() / 1000) + requiredLeadSec(quote.steps.reduce((n, step) => n + step.items.length, 0)),
  }, ctx.chainsCache, log, { requestId });
  await recordVerdict(ctx.db, quoteId, { ok: verdict.ok, rules: verdict.rules });
  crashPoint('quote:verified');
  attempt.verdict = verdict;
  if (!verdict.ok) {
    const failed = verdict.rules.filter((r) => !r.ok);
    for (const r of failed) ctx.metrics.quotesRefusedTotal.inc({ rule: r.rule });
    log.error({ requestId, orderId, failed }, 'quote refused by local verification; nothing signed');
    return { ...attempt, outcome: 'refused_verification' };
  }
  emitProgress(ctx, args, 'verified', { minOut: guaranteedOut(quote) });
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

/**
 * What the quote's order guarantees for the planned transfer (payment amount and summed output
 * `minimumAmount`, base units), or undefined without `protocol.v2` (verification refuses such quotes) or for a
 * gas top-up: its input and output are different assets, so their difference is no loss; the top-up's bound is
 * the configured `minOut`, which verification holds the order to, and every fee cap still applies.
 */
function orderGuarantee(quote: QuoteResponse, planned: PlannedTransfer, slippageBps: number | undefined): OrderGuarantee | undefined {
  if (planned.gasTopUp) return undefined;
  const order = quote.protocol?.v2?.orderData;
  const payment = order?.inputs[0]?.payment;
  if (!order || !payment) return undefined;
  return {
    amountIn: BigInt(payment.amount), // schema: unsigned integer string
    decimalsIn: planned.from.decimals,
    minOut: sumPayments(order.output.payments, 'minimumAmount'),
    decimalsOut: planned.to.decimals,
    slippageBps: slippageBps ?? 0,
  };
}

/** Sum of an amount field over the order's output payments (verification checked they are all ours, one currency). */
export function sumPayments(
  payments: readonly { minimumAmount: string; expectedAmount: string }[],
  field: 'minimumAmount' | 'expectedAmount',
): bigint {
  return payments.reduce((sum, p) => sum + BigInt(p[field]), 0n); // schema: unsigned integer strings
}

function breakdownJson(b: { inputUsdMicros: bigint | null; components: Record<string, bigint>; sponsoredMicros: bigint; totalMicros: bigint }) {
  return {
    inputUsd: b.inputUsdMicros === null ? null : formatUsdMicros(b.inputUsdMicros),
    components: Object.fromEntries(Object.entries(b.components).map(([k, v]) => [k, formatUsdMicros(v)])),
    sponsoredUsd: formatUsdMicros(b.sponsoredMicros),
    totalUsd: formatUsdMicros(b.totalMicros),
  };
}

/** `chains.<name>.originSwapSource` of a Solana origin chain: the single swap source tried last on an oversized route. */
function originSwapSource(ctx: CycleContext, chainName: string): string | undefined {
  const chain = ctx.config.chains[chainName];
  return chain?.vm === 'svm' ? chain.originSwapSource : undefined;
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

/** The order's guaranteed output (summed `minimumAmount`), or undefined without `protocol.v2`. */
function guaranteedOut(quote: QuoteResponse): bigint | undefined {
  const payments = quote.protocol?.v2?.orderData.output.payments;
  return payments ? sumPayments(payments, 'minimumAmount') : undefined;
}

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
