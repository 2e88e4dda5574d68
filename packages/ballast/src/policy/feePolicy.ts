/**
 * Fee caps: accept or skip a quote by its fee breakdown (docs/relay-contract.md "Full fee breakdown", "Fee components").
 * Pure: no clock, no I/O. USD compared as micro-USD bigints; basis points compared exactly by
 * cross-multiplication (`cost * 10000 > capBps * inputUsd`), never by floating point.
 */
import { formatUsdMicros, parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { QuoteDetails } from '@ballast/protocol/relay/schemas.ts';
import { extractFees, FEE_COMPONENTS, type FeeBreakdown, type FeeComponent } from './feeBreakdown.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { checkGuaranteedLoss, type OrderGuarantee } from './guaranteedLoss.ts';
import type { OriginCost } from './originCost.ts';

export type { FeeBreakdown, FeeComponent } from './feeBreakdown.ts';
export type { OrderGuarantee } from './guaranteedLoss.ts';
export type { OriginCost } from './originCost.ts';

/** A cap on one cost: `usd` a non-negative USD decimal string, `bps` integer basis points of the input USD. */
export interface FeeCap {
  usd?: string;
  bps?: number;
}

/** Caps on the total cost and on each component. Unset caps are not checked. */
export interface FeeCaps {
  totalBps?: number;
  totalUsd?: string;
  components?: Partial<Record<FeeComponent, FeeCap>>;
}

/**
 * Why a quote is skipped: the cap exceeded, or the data a configured cap needs is missing (fail closed).
 * These are the `reason` label values of `ballast_quotes_skipped_total` (docs/errors.md).
 */
export const FEE_SKIP_REASONS = [
  'total_bps',
  'total_usd',
  'execution_usd',
  'execution_bps',
  'swap_usd',
  'swap_bps',
  'platform_usd',
  'platform_bps',
  'app_usd',
  'app_bps',
  'guaranteed_loss_bps',
  'guaranteed_loss_usd',
  'fee_data_missing',
  'origin_cost_unknown',
  'input_usd_missing',
] as const;
/** One of {@link FEE_SKIP_REASONS}. */
export type FeeSkipReason = (typeof FEE_SKIP_REASONS)[number];

/**
 * Outcome of {@link evaluateFees}. On skip, `exceeded` lists every exceeded cap in the fixed order (total_usd,
 * total_bps, then execution, swap, platform, app with usd before bps), `reason` is its first entry (or the
 * missing-data reason), `detail` describes each. `breakdown` is null when the fee data is missing.
 */
export type FeeDecision =
  | { accepted: true; breakdown: FeeBreakdown }
  | { accepted: false; reason: FeeSkipReason; detail: string; exceeded: FeeSkipReason[]; breakdown: FeeBreakdown | null };

/** Raised when configured caps are malformed (a configuration error, not a bad quote). */
export class FeePolicyConfigError extends BallastError {
  readonly code = 'FEE_POLICY_INVALID_CAP';
}

const USD_CAP_RE = /^[0-9]+(\.[0-9]+)?$/;
const BPS_DENOMINATOR = 10_000n;

function usdCapMicros(value: string | undefined, field: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (!USD_CAP_RE.test(value)) {
    throw new FeePolicyConfigError(`${field} must be a non-negative USD decimal string such as "0.5", got ${JSON.stringify(value)}`);
  }
  return parseUsdMicros(value);
}

function bpsCap(value: number | undefined, field: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new FeePolicyConfigError(`${field} must be a non-negative integer number of basis points, got ${value}`);
  }
  return BigInt(value);
}

/** Basis points of `cost` over `input` with two decimals, trailing zeros dropped ("26", "4.91"). */
function formatBps(costMicros: bigint, inputMicros: bigint): string {
  const hundredths = (costMicros * BPS_DENOMINATOR * 100n) / inputMicros;
  const whole = hundredths / 100n;
  const frac = (hundredths % 100n).toString().padStart(2, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** A configured cap: absolute micro-USD or basis points of the input USD. */
type Cap = { kind: 'usd'; micros: bigint } | { kind: 'bps'; bps: bigint };

/** One configured cap on the total or on one component. */
interface CapCheck {
  subject: FeeComponent | 'total';
  reason: FeeSkipReason;
  cap: Cap;
}

function isExceeded(cap: Cap, costMicros: bigint, inputMicros: bigint): boolean {
  return cap.kind === 'usd' ? costMicros > cap.micros : costMicros * BPS_DENOMINATOR > cap.bps * inputMicros;
}

function describeExceeded(check: CapCheck, costMicros: bigint, inputMicros: bigint | null, originMicros: bigint | null): string {
  const ratio =
    inputMicros !== null && inputMicros > 0n ? ` (${formatBps(costMicros, inputMicros)} bps of ${formatUsdMicros(inputMicros)} USD)` : '';
  const origin = check.subject === 'total' && originMicros !== null ? `, origin cost ${formatUsdMicros(originMicros)} USD included` : '';
  const cap = check.cap.kind === 'usd' ? `${formatUsdMicros(check.cap.micros)} USD` : `${check.cap.bps} bps`;
  return `${check.subject} fee ${formatUsdMicros(costMicros)} USD${ratio}${origin} exceeds cap ${cap}`;
}

function configuredChecks(caps: FeeCaps): CapCheck[] {
  const checks: CapCheck[] = [];
  const add = (subject: CapCheck['subject'], cap: FeeCap | undefined, usdField: string, bpsField: string): void => {
    const usd = usdCapMicros(cap?.usd, usdField);
    const bps = bpsCap(cap?.bps, bpsField);
    if (usd !== undefined) checks.push({ subject, reason: `${subject}_usd`, cap: { kind: 'usd', micros: usd } });
    if (bps !== undefined) checks.push({ subject, reason: `${subject}_bps`, cap: { kind: 'bps', bps } });
  };
  add('total', { usd: caps.totalUsd, bps: caps.totalBps }, 'totalUsd', 'totalBps');
  for (const c of FEE_COMPONENTS) add(c, caps.components?.[c], `components.${c}.usd`, `components.${c}.bps`);
  return checks;
}

/**
 * Decides whether a quote's fees are within the configured caps.
 *
 * Fail-closed rules: a component cap with no `expandedPriceImpact` (or no entry for that component), or a
 * total cap with neither `totalImpact` nor a complete breakdown, skips with `fee_data_missing`; any bps cap
 * with a missing or zero `currencyIn.amountUsd` skips with `input_usd_missing`. With no caps configured every
 * quote is accepted.
 *
 * `details` are the API's own account and could understate the fees, so when `guarantee` is given the loss the
 * signed order guarantees at worst (payment − `minimumAmount`) is also bounded by `totalBps` + slippage and
 * `totalUsd` + slippage (`guaranteed_loss_bps`, `guaranteed_loss_usd`; see guaranteedLoss.ts).
 *
 * The total cost of the transfer is the API's total plus `originCost` (src/policy/originCost.ts: miner fee,
 * Solana signature and priority fees, EVM gas; priced by the quote, else by GET /currencies/token/price), counted once: `details.totalImpact` (docs/relay-contract.md "details") is
 * the "difference between input and output value including fees" (docs/relay-contract.md "details (quote response)"), and
 * origin gas is not in it — docs/relay-contract.md "Fee components": `execution` holds the origin gas estimate "only for
 * gasless transactions; in regular transactions the user pays origin gas directly to the network", and Ballast signs
 * and pays its own regular transactions; the deprecated `fees.gas` member (docs/relay-contract.md "Deprecated fee set") is
 * that same origin gas stated apart, not a part of `totalImpact`. A Bitcoin miner fee is paid from our outputs beyond
 * the payment (`currencyIn`), so it is outside the input/output difference too. With a total cap
 * (`totalUsd`, `totalBps`) configured, an unknown origin cost (`usdMicros` null) skips with
 * `origin_cost_unknown` (fail closed); without one, it is recorded as unknown and not counted.
 *
 * @param details parsed quote `details`
 * @param caps configured caps (USD strings, integer bps)
 * @param guarantee what the quote's order guarantees (base units), for a transfer within one asset
 * @param originCost the quote's origin cost; absent: the total is the API's alone and `breakdown` has no
 *   `originCostMicros`
 * @returns accept with the breakdown, or skip with the reason(s)
 * @throws FeePolicyConfigError when a cap is malformed (negative, fractional bps, non-decimal USD)
 * @example
 * const decision = evaluateFees(quote.details, { totalBps: 50, components: { swap: { bps: 20 } } });
 * if (!decision.accepted) log.info({ reason: decision.reason }, decision.detail);
 */
export function evaluateFees(details: QuoteDetails, caps: FeeCaps, guarantee?: OrderGuarantee, originCost?: OriginCost): FeeDecision {
  const checks = configuredChecks(caps);
  const extracted = extractFees(details);
  const { missingComponents, hasTotal } = extracted;
  const originMicros = originCost?.usdMicros ?? null;
  const breakdown: FeeBreakdown = originCost
    ? { ...extracted.breakdown, originCostMicros: originMicros, totalMicros: extracted.breakdown.totalMicros + (originMicros ?? 0n) }
    : extracted.breakdown;
  if (checks.length === 0) return { accepted: true, breakdown };

  const lacking = new Set<string>();
  for (const { subject } of checks) {
    if (subject === 'total' ? !hasTotal : missingComponents.includes(subject)) lacking.add(subject);
  }
  if (lacking.size > 0) {
    const what = [...lacking].map((c) => (c === 'total' ? 'totalImpact' : `expandedPriceImpact ${c}`)).join(', ');
    return {
      accepted: false,
      reason: 'fee_data_missing',
      detail: `quote details lack ${what}, needed by the configured fee caps`,
      exceeded: [],
      breakdown: null,
    };
  }
  if (originCost && originMicros === null && checks.some((c) => c.subject === 'total')) {
    return {
      accepted: false,
      reason: 'origin_cost_unknown',
      detail: `the origin cost of this quote is unknown (${originCost.detail}); maxFees.totalUsd / totalBps count it, so the quote is skipped`,
      exceeded: [],
      breakdown,
    };
  }
  const input = breakdown.inputUsdMicros;
  const needsInput = checks.some((c) => c.cap.kind === 'bps');
  if (needsInput && (input === null || input <= 0n)) {
    return {
      accepted: false,
      reason: 'input_usd_missing',
      detail: `details.currencyIn.amountUsd is ${input === null ? 'missing' : formatUsdMicros(input)}; bps caps need a positive input value`,
      exceeded: [],
      breakdown,
    };
  }
  const exceeded: string[] = [];
  const reasons: FeeSkipReason[] = [];
  for (const check of checks) {
    const costMicros = check.subject === 'total' ? breakdown.totalMicros : breakdown.components[check.subject];
    // A bps cap only reaches here with input > 0; a usd cap ignores the input.
    if (isExceeded(check.cap, costMicros, input ?? 0n)) {
      reasons.push(check.reason);
      exceeded.push(describeExceeded(check, costMicros, input, originMicros));
    }
  }
  if (guarantee) {
    const totalBps = bpsCap(caps.totalBps, 'totalBps');
    const totalUsdMicros = usdCapMicros(caps.totalUsd, 'totalUsd');
    for (const breach of checkGuaranteedLoss(guarantee, { totalBps, totalUsdMicros }, input)) {
      reasons.push(breach.reason);
      exceeded.push(breach.detail);
    }
  }
  const reason = reasons[0];
  if (reason === undefined) return { accepted: true, breakdown };
  return { accepted: false, reason, detail: exceeded.join('; '), exceeded: reasons, breakdown };
}
