/**
 * Rules on the order's output (docs/relay-contract.md "Local quote verification" 2): who is paid, on which chain, in which
 * currency, and the guaranteed amount (`minimumAmount`, never `expectedAmount`).
 */
import { sameAddress } from '../addresses.ts';
import type { VerifyContext } from '../context.ts';
import { fail, outcome, pass, skipped } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';

/** `recipient`: every `output.payments[].recipient` equals `expect.recipient`; at least one payment exists. */
export function checkRecipient(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('recipient', 'protocol-present');
  const payments = ctx.order.output.payments;
  if (payments.length === 0) return fail('recipient', 'output.payments is empty: the order pays nobody');
  const vm = ctx.outputChain?.vmType;
  const problems = payments.flatMap((p, i) =>
    sameAddress(p.recipient, ctx.expect.recipient, vm)
      ? []
      : [`output.payments[${i}].recipient is ${p.recipient}, expected ${ctx.expect.recipient}`],
  );
  return outcome('recipient', problems, `all ${payments.length} output payment(s) go to ${ctx.expect.recipient}`);
}

/**
 * `output-chain`: the `output.chainId` slug is known in GET /chains and, when `expect.destinationChainId` is
 * given, maps to that numeric chain id.
 */
export function checkOutputChain(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('output-chain', 'protocol-present');
  const slug = ctx.order.output.chainId;
  const chain = ctx.outputChain;
  if (!chain) return fail('output-chain', `output.chainId "${slug}" is not a protocol.v2.chainId in GET /chains`);
  const expected = ctx.expect.destinationChainId;
  if (expected !== undefined && chain.id !== expected) {
    return fail('output-chain', `output.chainId "${slug}" is chain ${chain.id}, expected ${expected}`);
  }
  return pass('output-chain', `output.chainId "${slug}" is chain ${chain.id}`);
}

/** `output-currency`: every output payment currency equals `expect.destinationCurrency` when given. */
export function checkOutputCurrency(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('output-currency', 'protocol-present');
  const expected = ctx.expect.destinationCurrency;
  if (expected === undefined) return pass('output-currency', 'no destinationCurrency expectation given');
  const payments = ctx.order.output.payments;
  if (payments.length === 0) return fail('output-currency', 'output.payments is empty');
  const vm = ctx.outputChain?.vmType;
  const problems = payments.flatMap((p, i) =>
    sameAddress(p.currency, expected, vm) ? [] : [`output.payments[${i}].currency is ${p.currency}, expected ${expected}`],
  );
  return outcome('output-currency', problems, `output currency is ${expected}`);
}

/**
 * `min-output`: the guaranteed output is the sum of `output.payments[].minimumAmount` (docs/relay-contract.md "protocol.v2":
 * the floor enforced at settlement; `expectedAmount` is only an estimate and is ignored). All payments must share one
 * currency, the total must be > 0 and, when `expect.minOut` is given, ≥ it (base units).
 */
export function checkMinOutput(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('min-output', 'protocol-present');
  const payments = ctx.order.output.payments;
  const first = payments[0];
  if (!first) return fail('min-output', 'output.payments is empty: nothing is guaranteed');
  const vm = ctx.outputChain?.vmType;
  if (payments.some((p) => !sameAddress(p.currency, first.currency, vm))) {
    return fail('min-output', 'output.payments use different currencies; cannot total a guaranteed amount');
  }
  const belowFloor = payments.findIndex((p) => BigInt(p.expectedAmount) < BigInt(p.minimumAmount));
  if (belowFloor !== -1) {
    // Ballast credits the expected amount to the destination while the transfer is in flight; an estimate
    // below the guaranteed floor is incoherent and would under-count what is on its way.
    return fail('min-output', `output.payments[${belowFloor}].expectedAmount is below its minimumAmount`);
  }
  const guaranteed = payments.reduce((sum, p) => sum + BigInt(p.minimumAmount), 0n); // schema: uint strings
  const minOut = ctx.expect.minOut;
  if (guaranteed <= 0n) return fail('min-output', 'output.payments[].minimumAmount totals 0: nothing is guaranteed');
  if (minOut !== undefined && guaranteed < minOut) {
    return fail('min-output', `guaranteed output (minimumAmount) is ${guaranteed}, expected at least ${minOut}`);
  }
  const against = minOut === undefined ? '(no minOut expectation given)' : `>= minOut ${minOut}`;
  return pass('min-output', `guaranteed output (minimumAmount) ${guaranteed} ${against}`);
}

/**
 * `no-calls-or-fees` (Ballast): the order makes no destination calls (`output.calls` empty) and charges no hub
 * fees (`fees` empty). Ballast requests plain transfers without `txs` or `appFees`; anything else in the order
 * would spend value the treasury did not ask to spend.
 */
export function checkNoCallsOrFees(ctx: VerifyContext): RuleResult {
  if (!ctx.order) return skipped('no-calls-or-fees', 'protocol-present');
  const problems: string[] = [];
  if (ctx.order.output.calls.length > 0) {
    problems.push(`output.calls has ${ctx.order.output.calls.length} call(s); a plain transfer has none`);
  }
  if (ctx.order.fees.length > 0) problems.push(`fees has ${ctx.order.fees.length} hub fee(s); none were requested`);
  return outcome('no-calls-or-fees', problems, 'no destination calls, no hub fees');
}
