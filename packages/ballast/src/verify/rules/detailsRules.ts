/**
 * `details-consistency` (Ballast): the quote's `details` (docs/relay-contract.md "details (quote response)") are the API's
 * own account of value and fees, and the fee policy reads its caps from them. They must agree with what the
 * signed order actually says (`protocol.v2.orderData`), or a quote could understate its fees and pass every
 * cap: amounts exactly, USD figures within a small tolerance.
 */
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { COMPONENT_KEYS, FEE_COMPONENTS } from '../../policy/feeBreakdown.ts';
import type { CurrencyAmount } from '@ballast/protocol/relay/schemas.ts';
import { sameAddress } from '../addresses.ts';
import type { VerifyContext } from '../context.ts';
import { outcome, skipped } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';

/** Absolute USD tolerance of the USD cross-checks: 0.01 USD, in micro-USD. */
export const DETAILS_USD_TOLERANCE_MICROS = 10_000n;
/** Relative USD tolerance of the USD cross-checks, in bps of the input's USD value. */
export const DETAILS_USD_TOLERANCE_BPS = 1n;

function usdTolerance(inputUsdMicros: bigint | null): bigint {
  const relative = inputUsdMicros !== null && inputUsdMicros > 0n ? (inputUsdMicros * DETAILS_USD_TOLERANCE_BPS) / 10_000n : 0n;
  return relative > DETAILS_USD_TOLERANCE_MICROS ? relative : DETAILS_USD_TOLERANCE_MICROS;
}

function abs(x: bigint): bigint {
  return x < 0n ? -x : x;
}

function checkLeg(
  problems: string[],
  field: string,
  leg: CurrencyAmount,
  want: { chainId: number | undefined; currency: string | undefined; vmType: string | undefined },
): void {
  if (want.chainId !== undefined && leg.currency.chainId !== want.chainId) {
    problems.push(`${field}.currency.chainId is ${leg.currency.chainId}, but the order's chain is ${want.chainId}`);
  }
  if (want.currency !== undefined && !sameAddress(leg.currency.address, want.currency, want.vmType)) {
    problems.push(`${field}.currency.address is ${leg.currency.address}, but the order's currency is ${want.currency}`);
  }
}

/**
 * `details-consistency`: `details.currencyIn` is the order's payment (chain, currency, `amount` exactly);
 * `details.currencyOut` is its output (chain, currency; `amount` = the sum of `expectedAmount`,
 * `minimumAmount` when given = the sum of `minimumAmount`); `totalImpact.usd` equals `currencyOut.amountUsd −
 * currencyIn.amountUsd`, and equals the sum of the cost components of `expandedPriceImpact` (execution, swap,
 * platform, app; `sponsored` excluded), each within max(0.01 USD, 1 bp of the input's USD value). USD
 * checks run only on the figures the quote gives; the fee policy fails closed on missing ones.
 */
export function checkDetailsConsistency(ctx: VerifyContext): RuleResult {
  const order = ctx.order;
  if (!order) return skipped('details-consistency', 'protocol-present');
  if (!ctx.payment) return skipped('details-consistency', 'input-payment');
  const details = ctx.input.quote.details;
  const problems: string[] = [];
  const payments = order.output.payments;
  const expectedSum = payments.reduce((sum, p) => sum + BigInt(p.expectedAmount), 0n); // schema: uint strings
  const minimumSum = payments.reduce((sum, p) => sum + BigInt(p.minimumAmount), 0n);

  checkLeg(problems, 'details.currencyIn', details.currencyIn, {
    chainId: ctx.paymentChain?.id,
    currency: ctx.payment.currency,
    vmType: ctx.paymentChain?.vmType,
  });
  if (BigInt(details.currencyIn.amount) !== ctx.payment.amount) {
    problems.push(`details.currencyIn.amount is ${details.currencyIn.amount}, but the order pays ${ctx.payment.amount}`);
  }
  checkLeg(problems, 'details.currencyOut', details.currencyOut, {
    chainId: ctx.outputChain?.id,
    currency: payments[0]?.currency,
    vmType: ctx.outputChain?.vmType,
  });
  if (BigInt(details.currencyOut.amount) !== expectedSum) {
    problems.push(`details.currencyOut.amount is ${details.currencyOut.amount}, but the order expects ${expectedSum}`);
  }
  const outMin = details.currencyOut.minimumAmount;
  if (outMin !== undefined && BigInt(outMin) !== minimumSum) {
    problems.push(`details.currencyOut.minimumAmount is ${outMin}, but the order guarantees ${minimumSum}`);
  }

  const inUsd = details.currencyIn.amountUsd !== undefined ? parseUsdMicros(details.currencyIn.amountUsd) : null;
  const outUsd = details.currencyOut.amountUsd !== undefined ? parseUsdMicros(details.currencyOut.amountUsd) : null;
  const total = details.totalImpact?.usd !== undefined ? parseUsdMicros(details.totalImpact.usd) : null;
  const tolerance = usdTolerance(inUsd);
  if (inUsd !== null && outUsd !== null && total !== null && abs(outUsd - inUsd - total) > tolerance) {
    problems.push(
      `details.totalImpact.usd ${details.totalImpact?.usd} differs from currencyOut.amountUsd − currencyIn.amountUsd (${details.currencyOut.amountUsd} − ${details.currencyIn.amountUsd}) by more than ${tolerance} micro-USD`,
    );
  }
  const expanded = details.expandedPriceImpact;
  if (expanded !== undefined && total !== null) {
    let sum = 0n;
    let complete = true;
    for (const component of FEE_COMPONENTS) {
      const key = COMPONENT_KEYS[component].find((k) => Object.hasOwn(expanded, k));
      const entry = key !== undefined ? expanded[key] : undefined;
      if (entry) sum += parseUsdMicros(entry.usd);
      else complete = false;
    }
    if (complete && abs(sum - total) > tolerance) {
      problems.push(
        `expandedPriceImpact components sum to ${sum} micro-USD, but totalImpact.usd is ${details.totalImpact?.usd}: the breakdown understates or overstates the cost`,
      );
    }
  }
  return outcome('details-consistency', problems, 'details agree with orderData (amounts exact, USD within tolerance)');
}
