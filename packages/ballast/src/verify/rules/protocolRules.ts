/**
 * Rules on the protocol block itself: its presence (docs/relay-contract.md "Local quote verification" 1), the recomputed
 * order id (docs/relay-contract.md "Local quote verification" 3), the canonical depository from GET /chains
 * (docs/relay-contract.md "Local quote verification" 4), the order's solver (Ballast) and the optional solver signature
 * (docs/relay-contract.md "Onchain alternative", EIP-191 over the 32 raw order-id bytes).
 */
import type { Hex } from 'viem';
import { recoverOrderSigner } from '@ballast/protocol/protocol/orderSignature.ts';
import { sameAddress } from '../addresses.ts';
import type { VerifyContext } from '../context.ts';
import { fail, pass, skipped } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';

/** `protocol-present`: `protocol.v2` exists (the quote was requested with `includeProtocolData`). */
export function checkProtocolPresent(ctx: VerifyContext): RuleResult {
  return ctx.v2
    ? pass('protocol-present', 'protocol.v2 is present')
    : fail('protocol-present', 'protocol.v2 is missing; request the quote with includeProtocolData: true');
}

/** `order-id`: the order id recomputed from `orderData` and GET /chains equals `protocol.v2.orderId`. */
export function checkOrderId(ctx: VerifyContext): RuleResult {
  if (!ctx.v2 || !ctx.orderId) return skipped('order-id', 'protocol-present');
  if (ctx.orderId.error !== undefined) {
    return fail('order-id', `cannot recompute the order id from orderData: ${ctx.orderId.error}`);
  }
  const quoted = ctx.v2.orderId;
  if (quoted.toLowerCase() !== ctx.orderId.id) {
    return fail('order-id', `protocol.v2.orderId is ${quoted}, but orderData hashes to ${ctx.orderId.id}`);
  }
  return pass('order-id', `orderData hashes to protocol.v2.orderId ${ctx.orderId.id}`);
}

/**
 * `depository`: the payment chain's `protocol.v2.depository` from GET /chains exists and equals
 * `paymentDetails.depository`. The quote alone is never trusted for this address.
 */
export function checkDepository(ctx: VerifyContext): RuleResult {
  if (!ctx.v2) return skipped('depository', 'protocol-present');
  if (!ctx.payment) return skipped('depository', 'input-payment');
  const chain = ctx.paymentChain;
  if (!chain) return skipped('depository', 'chain-status');
  const quoted = ctx.v2.paymentDetails.depository;
  if (!ctx.depository) {
    return fail('depository', `GET /chains lists no protocol.v2.depository for chain ${chain.id}; cannot check ${quoted}`);
  }
  if (!sameAddress(quoted, ctx.depository, chain.vmType)) {
    return fail('depository', `paymentDetails.depository is ${quoted}, GET /chains says ${ctx.depository} for chain ${chain.id}`);
  }
  return pass('depository', `depository ${ctx.depository} matches GET /chains for chain ${chain.id}`);
}

/**
 * `solver`: `orderData.solverChainId` is a protocol slug GET /chains knows, and `orderData.solver` is one of
 * the `solverAddresses` GET /chains lists for that chain. The solver is who the order pays at settlement; an
 * order naming anyone else is not an order the service's solver committed to.
 */
export function checkSolver(ctx: VerifyContext): RuleResult {
  const order = ctx.order;
  if (!order) return skipped('solver', 'protocol-present');
  const chain = ctx.chains.bySlug(order.solverChainId);
  if (!chain) return fail('solver', `orderData.solverChainId "${order.solverChainId}" is not a protocol.v2.chainId in GET /chains`);
  const solvers = chain.solverAddresses ?? [];
  if (!solvers.some((s) => sameAddress(s, order.solver, chain.vmType))) {
    return fail(
      'solver',
      `orderData.solver ${order.solver} is not in solverAddresses [${solvers.join(', ')}] of chain ${chain.id} ("${order.solverChainId}")`,
    );
  }
  return pass('solver', `solver ${order.solver} is listed for "${order.solverChainId}"`);
}

/**
 * `order-signature`: when `protocol.v2.orderSignature` is present, the EIP-191 signer of the recomputed order
 * id must be `orderData.solver` and one of the payment chain's `solverAddresses`; when absent the rule passes
 * ("absent (optional)").
 */
export async function checkOrderSignature(ctx: VerifyContext): Promise<RuleResult> {
  if (!ctx.v2) return skipped('order-signature', 'protocol-present');
  const signature = ctx.v2.orderSignature;
  if (signature === undefined) return pass('order-signature', 'absent (optional)');
  if (!ctx.orderId || ctx.orderId.id === undefined) return skipped('order-signature', 'order-id');
  if (!ctx.payment) return skipped('order-signature', 'input-payment');
  const chain = ctx.paymentChain;
  if (!chain) return skipped('order-signature', 'chain-status');
  const solvers = chain.solverAddresses ?? [];
  if (solvers.length === 0) {
    return fail('order-signature', `GET /chains lists no solverAddresses for chain ${chain.id}; cannot check orderSignature`);
  }
  let signer: Hex;
  try {
    signer = await recoverOrderSigner(ctx.orderId.id, signature as Hex); // schema checked 0x hex
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return fail('order-signature', `protocol.v2.orderSignature does not recover a signer: ${reason}`);
  }
  if (!solvers.some((s) => sameAddress(s, signer, 'evm'))) {
    return fail(
      'order-signature',
      `orderSignature signer ${signer} is not in solverAddresses [${solvers.join(', ')}] of chain ${chain.id}`,
    );
  }
  const named = ctx.order?.solver;
  if (named !== undefined && !sameAddress(named, signer, 'evm')) {
    return fail('order-signature', `orderSignature signer ${signer} is not orderData.solver ${named}`);
  }
  return pass('order-signature', `signed by solver ${signer}`);
}
