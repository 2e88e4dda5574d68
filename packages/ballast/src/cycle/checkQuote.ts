/**
 * The checking half of the pipeline for one planned transfer: quote → fee policy → local verification (docs/design.md
 * "The main job, as data flows"). Every step is recorded before the next runs. Nothing here signs: a transfer
 * whose check ends `quoted` may go on to the spending gates and execution (src/cycle/processTransfer.ts); route
 * choice (src/cycle/routeChoice.ts) checks several candidates this way and keeps one.
 */
import type { PlannedTransfer } from '../planner/types.ts';
import type { ChainsResponse, QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { evaluateFees, type FeeBreakdown, type FeeDecision, type OrderGuarantee } from '../policy/feePolicy.ts';
import { feeCapsFor } from '../policy/routeFees.ts';
import { originCostOf, type NativeUsdPrice } from '../policy/originCost.ts';
import { originCostChain, originPriceFor } from './originPrice.ts';
import type { Verdict } from '../verify/verifyQuote.ts';
import { verifyWithFreshChains } from './chainsRefresh.ts';
import { recordFeeDecision, recordQuote, recordVerdict } from '../store/quotes.ts';
import { listInFlightTransfersFrom } from '../store/transfers.ts';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { crashPoint } from '../core/crashPoints.ts';
import type { CycleContext } from './context.ts';
import { buildQuoteRequest, expectationsFor, guaranteedOutputFloor } from './expectations.ts';
import { requestQuote } from './requestQuote.ts';
import { relayAuthRefusal } from '../relay/authRefusal.ts';
import { screeningRefusal } from '../relay/screening.ts';
import { pauseScreenedQuote } from './screeningPause.ts';
import type { CheckedAttempt, FeeStep, QuoteFailedAttempt, QuoteStep } from './transferAttempt.ts';

export type { AttemptOutcome, TransferAttempt } from './transferAttempt.ts';

/**
 * What {@link checkQuote} uses of the cycle's runtime: the config (policy, referrer, chains), the store, the Relay
 * client and the GET /chains cache, the chain adapters and wallets, metrics, prices, the logger and the clock.
 */
export type CheckQuoteDeps = Pick<
  CycleContext,
  'config' | 'db' | 'relay' | 'chainsCache' | 'nativePrices' | 'chains' | 'wallets' | 'metrics' | 'prices' | 'logger' | 'now'
>;

/** Stages {@link checkQuote} reports as it passes them. */
export type CheckStage = 'quoted' | 'verified';

/** What {@link checkQuote} checks: one planned transfer of a cycle's plan row. */
export interface CheckArgs {
  cycleId: number;
  planId: number;
  planned: PlannedTransfer;
  chainsDoc: ChainsResponse;
}

/**
 * Quotes `planned` (EXACT_INPUT, docs/relay-contract.md "POST /quote/v2"), applies the fee policy and verifies the quote
 * locally (docs/relay-contract.md "Local quote verification"), recording the quote, the fee decision and the verdict.
 *
 * @param onStage called when the quote is received and when it passed verification, with the order's
 *   guaranteed output (destination base units)
 * @returns the attempt: outcome `quoted` when every check passed (fee accepted, verdict ok, `minOutRequired`
 *   set), else `quote_error`, `skipped_fee` or `refused_verification` with the reason
 * @throws only on store failures
 */
export async function checkQuote(
  ctx: CheckQuoteDeps,
  args: CheckArgs,
  onStage: (stage: CheckStage, minOut: bigint | undefined) => void = () => {},
): Promise<CheckedAttempt> {
  const { planned, cycleId, planId } = args;
  const policy = ctx.config.policy;
  const labels = { asset: planned.asset, origin_chain: planned.from.chain, destination_chain: planned.to.chain };
  const log = ctx.logger.child({ component: 'pipeline', asset: planned.asset, from: planned.from.chain, to: planned.to.chain });
  const request = buildQuoteRequest(planned, { referrer: ctx.config.relay.referrer, slippageBps: policy.slippageBps });

  const quoted = await requestQuote(ctx, request, { cycleId, planId, singleSource: originSwapSource(ctx, planned.from.chain) });
  if (!quoted.ok) {
    const screened = screeningRefusal(quoted.cause);
    if (screened) return await pauseScreenedQuote(ctx, { planned, planId, request: quoted.request }, screened);
    const authRefusal = relayAuthRefusal(quoted.cause);
    const failed: QuoteFailedAttempt = { planned, planId, outcome: 'quote_error', request: quoted.request, error: quoted.error };
    return authRefusal ? { ...failed, authRefusal } : failed;
  }
  const { quote, raw } = quoted;
  ctx.metrics.quotesTotal.inc(labels);
  ctx.prices?.noteQuote(planned.asset, quote.details);
  const requestId = quote.requestId ?? quote.steps[0]?.requestId ?? null;
  const orderId = quote.protocol?.v2?.orderId ?? null;
  const quoteId = await recordQuote(ctx.db, { cycleId, planId, requestId, orderId, request: quoted.request, raw, receivedAtMs: ctx.now() });
  const step: QuoteStep = { request: quoted.request, quote, quoteId, requestId };
  crashPoint('quote:recorded');
  onStage('quoted', guaranteedOut(quote));

  // A quote that prices the origin's native currency nowhere (/quote/v3) gets its price from the API (cached per chain).
  const fee = priceQuote(ctx, planned, quote, await originPriceFor(ctx, planned, quote, args.chainsDoc));
  await recordFeeDecision(
    ctx.db,
    quoteId,
    fee.accepted
      ? { accepted: true, breakdown: breakdownJson(fee.breakdown) }
      : { accepted: false, reason: fee.reason, detail: fee.detail, breakdown: fee.breakdown ? breakdownJson(fee.breakdown) : undefined },
  );
  if (!fee.accepted) {
    ctx.metrics.quotesSkippedTotal.inc({ reason: fee.reason });
    log.warn({ requestId, reason: fee.reason, detail: fee.detail }, 'quote skipped by fee policy; nothing signed');
    return { planned, planId, outcome: 'skipped_fee', ...step, fee };
  }

  // The loader requires totalBps; were it missing, 0 makes the floor strictest (fail closed). A gas top-up's
  // floor is its configured minOut (two assets: the input converted is no floor).
  const caps = feeCapsFor(policy, planned);
  const minOut = guaranteedOutputFloor(planned, { slippageBps: policy.slippageBps, totalFeeBps: caps.totalBps ?? 0 });
  const passed: FeeStep = { ...step, fee, minOutRequired: minOut };
  // Our deposits (and their cancels) still in flight from this chain: a Bitcoin PSBT spending one of their inputs
  // is refused, and only their unconfirmed change may be spent where allowOwnUnconfirmedInputs is set.
  const inFlight = (await listInFlightTransfersFrom(ctx.db, planned.from.chain)).flatMap((t) =>
    [...t.txs, ...t.cancels].map((tx) => ({ txHash: tx.txHash, rawTx: tx.rawTx, request: tx.request })),
  );
  const originChain = ctx.chains.get(planned.from.chain)!; // the planner only plans configured chains
  let origin;
  try {
    origin = await originChain.originFacts(quote, planned.from.address, inFlight);
  } catch (error) {
    const message = `reading what verification needs from chains.${planned.from.chain} failed: ${shortErrorMessage(error)}`;
    log.error({ requestId, err: message }, 'quote not verified; nothing signed');
    return { planned, planId, outcome: 'quote_error', ...passed, error: message };
  }
  // Deadlines must leave time to send every item, for the deposit to reach the depth the fill waits for, and for
  // the fill (the origin chain's lead, ChainAdapter.minDeadlineLeadSec): a quote whose order expires sooner is
  // refused on `deadline` (its deposit would likely be refunded, not filled; a Bitcoin one would sit unfilled).
  const items = quote.steps.reduce((n, step) => n + step.items.length, 0);
  const leadSec = originChain.minDeadlineLeadSec(planned.amountIn, items);
  // Judged on the cached GET /chains list; a refusal the list may explain is judged once more on a fresh one.
  const { verdict: judged } = await verifyWithFreshChains(
    {
      quote,
      chains: args.chainsDoc,
      origin,
      limits: originChain.depositLimits,
      expect: expectationsFor(planned, minOut, {
        ourWallets: [...ctx.wallets.values()].map((w) => w.address),
        maxDeadlineSec: policy.maxDeadlineSec,
      }),
      nowSec: Math.floor(ctx.now() / 1000) + leadSec,
    },
    ctx.chainsCache,
    log,
    { requestId },
  );
  const verdict = withLeadNote(
    judged,
    `now includes chains.${planned.from.chain}'s minimum deadline lead of ${leadSec} s for ${items} transaction(s), the deposit's confirmations and the fill`,
  );
  await recordVerdict(ctx.db, quoteId, { ok: verdict.ok, rules: verdict.rules });
  crashPoint('quote:verified');
  if (!verdict.ok) {
    const failed = verdict.rules.filter((r) => !r.ok);
    for (const r of failed) ctx.metrics.quotesRefusedTotal.inc({ rule: r.rule });
    log.error({ requestId, orderId, failed }, 'quote refused by local verification; nothing signed');
    return { planned, planId, outcome: 'refused_verification', ...passed, verdict };
  }
  onStage('verified', guaranteedOut(quote));
  return { planned, planId, outcome: 'quoted', ...passed, verdict };
}

/**
 * The fee policy's decision on a quote for a planned transfer, as the pipeline makes it: the route's own caps where
 * `policy.routes` gives some, else the global ones (src/policy/routeFees.ts); the total counts what the origin chain
 * charges on top of the API's account (src/policy/originCost.ts) and what the order's guarantee gives up below the
 * input (src/policy/guaranteedLoss.ts). Pure given the config and the origin chain's adapter.
 *
 * @param nativePrice the origin's native currency price when the quote carries none (src/cycle/originPrice.ts)
 * @returns the decision (`accepted`, `reason`, `breakdown` with totals in micro-USD)
 */
export function priceQuote(
  ctx: Pick<CheckQuoteDeps, 'config' | 'chains'>,
  planned: PlannedTransfer,
  quote: QuoteResponse,
  nativePrice?: NativeUsdPrice,
): FeeDecision {
  const policy = ctx.config.policy;
  const caps = feeCapsFor(policy, planned);
  const originChain = ctx.chains.get(planned.from.chain)!; // the planner only plans configured chains
  const originCost = originCostOf(quote, originCostChain(originChain), planned.from.address, nativePrice);
  return evaluateFees(quote.details, caps, orderGuarantee(quote, planned, policy.slippageBps), originCost);
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

/** The order's guaranteed output (summed `minimumAmount`, destination base units), or undefined without `protocol.v2`. */
export function guaranteedOut(quote: QuoteResponse): bigint | undefined {
  const payments = quote.protocol?.v2?.orderData.output.payments;
  return payments ? sumPayments(payments, 'minimumAmount') : undefined;
}

/**
 * The fee decision's breakdown as recorded (`fee_decisions.breakdown_json`): USD decimal strings. `totalUsd`
 * includes `originCostUsd` when that is a string; `originCostUsd` null means the origin cost was unknown.
 */
function breakdownJson(b: FeeBreakdown) {
  return {
    inputUsd: b.inputUsdMicros === null ? null : formatUsdMicros(b.inputUsdMicros),
    components: Object.fromEntries(Object.entries(b.components).map(([k, v]) => [k, formatUsdMicros(v)])),
    sponsoredUsd: formatUsdMicros(b.sponsoredMicros),
    totalUsd: formatUsdMicros(b.totalMicros),
    ...(b.originCostMicros !== undefined
      ? { originCostUsd: b.originCostMicros === null ? null : formatUsdMicros(b.originCostMicros) }
      : {}),
  };
}

/** The verdict with `note` added to a failed `deadline` rule's detail (its "now" is shifted by the chain's lead). */
function withLeadNote(verdict: Verdict, note: string): Verdict {
  if (verdict.rules.every((r) => r.rule !== 'deadline' || r.ok)) return verdict;
  return { ...verdict, rules: verdict.rules.map((r) => (r.rule === 'deadline' && !r.ok ? { ...r, detail: `${r.detail}; ${note}` } : r)) };
}

/** `chains.<name>.originSwapSource` of a Solana origin chain: the single swap source tried last on an oversized route. */
function originSwapSource(ctx: Pick<CycleContext, 'config'>, chainName: string): string | undefined {
  const chain = ctx.config.chains[chainName];
  return chain?.vm === 'svm' ? chain.originSwapSource : undefined;
}
