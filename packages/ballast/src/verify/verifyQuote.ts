/**
 * Local verification of a Relay quote before anything is signed (docs/relay-contract.md "Local quote verification" 1–8, plus
 * Ballast's extra rules: chain status, details vs order, payment weight, refunds, deadline horizon, extraData,
 * solver, approvals and unexpected steps). Pure: no clock
 * (takes `nowSec`), no network, no database.
 *
 * Verification confirms what the quote encodes; it does not guarantee the order will fill (docs/relay-contract.md "Local
 * quote verification" 8).
 */
import { buildContext, type VerifyContext } from './context.ts';
import { VerifyInputError } from './errors.ts';
import { DEPOSIT_RULE_IDS, type DepositRuleId } from './deposit/types.ts';
import { checkDeposit } from './rules/depositRules.ts';
import { checkDetailsConsistency } from './rules/detailsRules.ts';
import { checkChainStatus, checkDeadlineHorizon, checkDeadlines, checkInputPayment, checkPaymentWeight } from './rules/inputRules.ts';
import { checkMinOutput, checkNoCallsOrFees, checkOutputChain, checkOutputCurrency, checkRecipient } from './rules/outputRules.ts';
import { checkDepository, checkOrderId, checkOrderSignature, checkProtocolPresent, checkSolver } from './rules/protocolRules.ts';
import { checkExtraData, checkRefundRecipients, checkRefundTerms } from './rules/refundRules.ts';
import { VERIFY_RULE_IDS, type RuleResult, type Verdict, type VerifyQuoteInput, type VerifyRuleId } from './types.ts';

export type { QuoteExpectations, RuleResult, StepItemRef, Verdict, VerifyQuoteInput, VerifyRuleId } from './types.ts';
export { DEFAULT_MAX_DEADLINE_SEC, VERIFY_RULE_IDS } from './types.ts';

type SimpleRule = (ctx: VerifyContext) => RuleResult | Promise<RuleResult>;

/** Rules that do not depend on the VM of the payment chain (the type makes the table complete). */
const ORDER_RULES: Record<Exclude<VerifyRuleId, DepositRuleId>, SimpleRule> = {
  'protocol-present': checkProtocolPresent,
  'chain-status': checkChainStatus,
  recipient: checkRecipient,
  'output-chain': checkOutputChain,
  'output-currency': checkOutputCurrency,
  'min-output': checkMinOutput,
  'no-calls-or-fees': checkNoCallsOrFees,
  'details-consistency': checkDetailsConsistency,
  'input-payment': checkInputPayment,
  'payment-weight': checkPaymentWeight,
  'refund-recipient': checkRefundRecipients,
  'refund-terms': checkRefundTerms,
  deadline: checkDeadlines,
  'deadline-horizon': checkDeadlineHorizon,
  'extra-data': checkExtraData,
  'order-id': checkOrderId,
  depository: checkDepository,
  solver: checkSolver,
  'order-signature': checkOrderSignature,
};

const DEPOSIT_RULES: ReadonlySet<VerifyRuleId> = new Set(DEPOSIT_RULE_IDS);
function isDepositRule(id: VerifyRuleId): id is DepositRuleId {
  return DEPOSIT_RULES.has(id);
}

function assertInput(input: VerifyQuoteInput): void {
  const { expect, nowSec } = input;
  if (!Number.isSafeInteger(nowSec) || nowSec < 0) {
    throw new VerifyInputError(`nowSec must be a non-negative integer of unix seconds, got ${nowSec}`);
  }
  if (!expect.user) throw new VerifyInputError('expect.user is empty; pass our depositing wallet address');
  if (!expect.recipient) throw new VerifyInputError('expect.recipient is empty; pass our destination wallet address');
  for (const key of ['amount', 'minOut'] as const) {
    const value = expect[key];
    if (value !== undefined && value < 0n) throw new VerifyInputError(`expect.${key} must be >= 0 base units, got ${value}`);
  }
  if (expect.maxDeadlineSec !== undefined && (!Number.isSafeInteger(expect.maxDeadlineSec) || expect.maxDeadlineSec <= 0)) {
    throw new VerifyInputError(`expect.maxDeadlineSec must be a positive integer of seconds, got ${expect.maxDeadlineSec}`);
  }
  for (const key of ['originChainId', 'destinationChainId'] as const) {
    const value = expect[key];
    if (value !== undefined && !Number.isSafeInteger(value)) {
      throw new VerifyInputError(`expect.${key} must be an integer chain id, got ${value}`);
    }
  }
}

/**
 * Verifies a quote against the caller's own expectations and GET /chains.
 *
 * Every rule of {@link VERIFY_RULE_IDS} yields exactly one result, in that order; a rule whose prerequisite
 * failed reports `ok: false` with detail "skipped: <prerequisite> failed". A bad quote never throws.
 *
 * @param input quote and chains already parsed by their zod schemas; expectations from our own state;
 *   `nowSec` = current unix seconds
 * @returns the verdict; `ok` only when every rule passed
 * @throws VerifyInputError when `input` itself is malformed (programmer error)
 * @example
 * const verdict = await verifyQuote({ quote, chains, expect: { user, recipient, amount, minOut }, nowSec });
 * if (!verdict.ok) log.warn({ failed: verdict.rules.filter((r) => !r.ok) }, 'quote refused');
 */
export async function verifyQuote(input: VerifyQuoteInput): Promise<Verdict> {
  assertInput(input);
  const ctx = buildContext(input);
  const deposit = checkDeposit(ctx);
  const rules: RuleResult[] = [];
  for (const id of VERIFY_RULE_IDS) {
    rules.push(isDepositRule(id) ? deposit.results[id] : await ORDER_RULES[id](ctx));
  }
  return {
    ok: rules.every((r) => r.ok),
    orderId: ctx.orderId?.id ?? null,
    depositItem: deposit.depositItem,
    rules,
  };
}
