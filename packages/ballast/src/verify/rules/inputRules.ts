/**
 * Rules on the order's input side and timing: the origin chain's status in GET /chains (Ballast), the input
 * payment against expectations and `paymentDetails` (docs/relay-contract.md "Local quote verification" 2), its weight
 * (Ballast) and deadlines (docs/relay-contract.md "Local quote verification" 2; their horizon: Ballast).
 */
import { sameAddress } from '../addresses.ts';
import type { VerifyContext } from '../context.ts';
import { isDepositVmSupported } from '../deposit/registry.ts';
import { fail, outcome, skipped } from '../ruleResult.ts';
import { DEFAULT_MAX_DEADLINE_SEC, type RuleResult } from '../types.ts';

/**
 * `chain-status`: the payment chain is in GET /chains with a `vmType` Ballast can verify deposits on, not
 * `disabled` (set during incidents) and `depositEnabled` not false; the output chain, when known, is not
 * `disabled` either.
 */
export function checkChainStatus(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('chain-status', 'protocol-present');
  if (!ctx.payment) return skipped('chain-status', 'input-payment');
  const chain = ctx.paymentChain;
  if (!chain) {
    return fail(
      'chain-status',
      `orderData.inputs[0].payment.chainId "${ctx.payment.chainSlug}" is not a protocol.v2.chainId in GET /chains`,
    );
  }
  const problems: string[] = [];
  if (!isDepositVmSupported(chain.vmType)) {
    problems.push(`origin chain ${chain.id} vmType ${chain.vmType} not supported yet`);
  }
  if (chain.disabled === true) problems.push(`origin chain ${chain.id} is disabled in GET /chains`);
  if (chain.depositEnabled === false) problems.push(`origin chain ${chain.id} has depositEnabled false`);
  const out = ctx.outputChain;
  if (out?.disabled === true) problems.push(`destination chain ${out.id} is disabled in GET /chains`);
  const outText = out ? `; destination chain ${out.id} enabled` : '';
  return outcome('chain-status', problems, `origin chain ${chain.id} (${chain.vmType}) accepts deposits${outText}`);
}

/**
 * `input-payment`: the order has exactly one input; its payment chain, currency and amount equal the
 * expectations that are given; `paymentDetails.{chainId,currency,amount}` equal the input payment.
 */
export function checkInputPayment(ctx: VerifyContext): RuleResult {
  if (!ctx.order || !ctx.v2) return skipped('input-payment', 'protocol-present');
  const inputs = ctx.order.inputs;
  const only = inputs[0];
  if (inputs.length !== 1 || !only) {
    return fail('input-payment', `orderData.inputs has ${inputs.length} entries, expected exactly 1`);
  }
  const p = only.payment;
  const pd = ctx.v2.paymentDetails;
  const { expect } = ctx;
  const chain = ctx.paymentChain;
  const vm = chain?.vmType;
  const amount = BigInt(p.amount); // schema checked an unsigned integer string
  const problems: string[] = [];
  if (expect.originChainId !== undefined) {
    if (!chain) problems.push(`inputs[0].payment.chainId "${p.chainId}" is not in GET /chains`);
    else if (chain.id !== expect.originChainId) {
      problems.push(`inputs[0].payment.chainId "${p.chainId}" is chain ${chain.id}, expected ${expect.originChainId}`);
    }
  }
  if (expect.originCurrency !== undefined && !sameAddress(p.currency, expect.originCurrency, vm)) {
    problems.push(`inputs[0].payment.currency is ${p.currency}, expected ${expect.originCurrency}`);
  }
  if (expect.amount !== undefined && amount !== expect.amount) {
    problems.push(`inputs[0].payment.amount is ${amount}, expected ${expect.amount}`);
  }
  if (pd.chainId !== p.chainId) {
    problems.push(`paymentDetails.chainId "${pd.chainId}" differs from inputs[0].payment.chainId "${p.chainId}"`);
  }
  if (!sameAddress(pd.currency, p.currency, vm)) {
    problems.push(`paymentDetails.currency ${pd.currency} differs from inputs[0].payment.currency ${p.currency}`);
  }
  if (BigInt(pd.amount) !== amount) {
    problems.push(`paymentDetails.amount ${pd.amount} differs from inputs[0].payment.amount ${amount}`);
  }
  return outcome('input-payment', problems, `pay ${amount} of ${p.currency} on "${p.chainId}"`);
}

/**
 * `payment-weight`: every input's `payment.weight` is "1", as real single-input orders carry it (docs/relay-contract.md
 * "protocol.v2" orderData; docs/design.md "Real orderData"). The weight shares a multi-input order's output among
 * its inputs; Ballast pays with exactly one input, so any other value is an order it did not ask for.
 */
export function checkPaymentWeight(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('payment-weight', 'protocol-present');
  const problems = ctx.order.inputs.flatMap((input, i) =>
    input.payment.weight === '1' ? [] : [`inputs[${i}].payment.weight is "${input.payment.weight}", expected "1"`],
  );
  return outcome('payment-weight', problems, 'payment weight "1"');
}

/**
 * `deadline`: `output.deadline` is after `nowSec` (docs/relay-contract.md "Local quote verification" 2), and so is every
 * refund deadline (Ballast: a refund option that already expired cannot protect the deposit). Unix seconds.
 */
export function checkDeadlines(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('deadline', 'protocol-present');
  const now = ctx.input.nowSec;
  const out = ctx.order.output.deadline;
  const problems: string[] = [];
  if (out <= now) problems.push(`output.deadline ${out} is not after now ${now} (${now - out} s late)`);
  let refunds = 0;
  ctx.order.inputs.forEach((input, i) =>
    input.refunds.forEach((refund, j) => {
      refunds++;
      if (refund.deadline <= now) {
        problems.push(`inputs[${i}].refunds[${j}].deadline ${refund.deadline} is not after now ${now}`);
      }
    }),
  );
  return outcome('deadline', problems, `output.deadline ${out} is ${out - now} s ahead; ${refunds} refund deadline(s) ahead`);
}

/**
 * `deadline-horizon`: neither `output.deadline` nor any refund deadline lies more than
 * `expect.maxDeadlineSec` (default 24 h) after `nowSec`. A deposit whose order cannot fill stays in the
 * depository until a deadline passes; a far deadline would park the treasury's funds there (up to 2106 for
 * the largest uint32). Unix seconds.
 */
export function checkDeadlineHorizon(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('deadline-horizon', 'protocol-present');
  const now = ctx.input.nowSec;
  const max = ctx.expect.maxDeadlineSec ?? DEFAULT_MAX_DEADLINE_SEC;
  const problems: string[] = [];
  const check = (at: string, deadline: number): void => {
    if (deadline - now > max) problems.push(`${at} ${deadline} is ${deadline - now} s ahead, more than the allowed ${max} s`);
  };
  check('output.deadline', ctx.order.output.deadline);
  ctx.order.inputs.forEach((input, i) => input.refunds.forEach((r, j) => check(`inputs[${i}].refunds[${j}].deadline`, r.deadline)));
  return outcome('deadline-horizon', problems, `every deadline within ${max} s of now`);
}
