/**
 * Runs the per-VM deposit checker (docs/relay-contract.md "Local quote verification" 5–7) once its prerequisites hold, and
 * otherwise reports each deposit rule as skipped, naming the prerequisite that failed.
 */
import type { VerifyContext } from '../context.ts';
import { depositVerifierFor } from '../deposit/registry.ts';
import { DEFAULT_DEPOSIT_LIMITS, DEPOSIT_RULE_IDS, type DepositCheckResult, type DepositRuleId } from '../deposit/types.ts';
import { skipped } from '../ruleResult.ts';
import type { RuleResult, VerifyRuleId } from '../types.ts';

function allSkipped(prerequisite: VerifyRuleId): DepositCheckResult {
  const results = Object.fromEntries(DEPOSIT_RULE_IDS.map((id) => [id, skipped(id, prerequisite)]));
  // Object.fromEntries over DEPOSIT_RULE_IDS yields exactly one entry per DepositRuleId.
  return { depositItem: null, results: results as Record<DepositRuleId, RuleResult> };
}

/**
 * Deposit rules of a verification. Prerequisites: `protocol.v2` present, exactly one input payment, its
 * chain known in GET /chains with a supported `vmType` (else "chain-status"), and a depository listed there.
 */
export function checkDeposit(ctx: VerifyContext): DepositCheckResult {
  if (!ctx.v2) return allSkipped('protocol-present');
  if (!ctx.payment) return allSkipped('input-payment');
  const chain = ctx.paymentChain;
  const verifier = chain ? depositVerifierFor(chain.vmType) : undefined;
  if (!chain || !verifier) return allSkipped('chain-status');
  if (!ctx.depository) return allSkipped('depository');
  return verifier({
    quote: ctx.input.quote,
    expect: ctx.expect,
    payment: ctx.payment,
    paymentChain: chain,
    depository: ctx.depository,
    orderId: ctx.orderId?.id ?? null,
    origin: ctx.input.origin ?? {},
    limits: { ...DEFAULT_DEPOSIT_LIMITS, ...ctx.input.limits },
  });
}
