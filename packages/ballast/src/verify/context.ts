/**
 * Facts derived once from a verification input and shared by every rule: the protocol block, the single
 * input payment, the origin/destination chains from GET /chains, the canonical depository and the locally
 * recomputed order id. Deriving never throws; what cannot be derived is null, and the rules that need it
 * report "skipped: <prerequisite> failed".
 */
import type { Hex } from 'viem';
import { computeOrderId } from '@ballast/protocol/protocol/orderId.ts';
import type { Chain, OrderData, ProtocolV2 } from '@ballast/protocol/relay/schemas.ts';
import { depositoryOf, indexChains, type ChainsIndex } from './chainsIndex.ts';
import type { QuoteExpectations, VerifyQuoteInput } from './types.ts';

/** The order's only input payment with its amount as a bigint (base units). */
export interface PaymentFacts {
  chainSlug: string;
  currency: string;
  amount: bigint;
}

/** Order-id recomputation outcome: the id, or why it could not be computed. */
export type RecomputedOrderId = { id: Hex; error?: undefined } | { id?: undefined; error: string };

/** Everything rules read. Null fields mean "not derivable"; see each rule for the prerequisite it names. */
export interface VerifyContext {
  readonly input: VerifyQuoteInput;
  readonly expect: QuoteExpectations;
  readonly chains: ChainsIndex;
  /** `quote.protocol.v2`, null when absent (prerequisite `protocol-present`). */
  readonly v2: ProtocolV2 | null;
  /** `v2.orderData`, null when v2 is absent. */
  readonly order: OrderData | null;
  /** The single input payment, null when the order has not exactly one input (prerequisite `input-payment`). */
  readonly payment: PaymentFacts | null;
  /** The payment chain from GET /chains, null when unknown (prerequisite `chain-status`). */
  readonly paymentChain: Chain | null;
  /** The output chain from GET /chains, null when unknown (prerequisite `output-chain`). */
  readonly outputChain: Chain | null;
  /** The payment chain's depository from GET /chains, null when unknown (prerequisite `depository`). */
  readonly depository: string | null;
  /** Recomputed order id, null when v2 is absent. */
  readonly orderId: RecomputedOrderId | null;
}

function recompute(order: OrderData, chains: ChainsIndex): RecomputedOrderId {
  try {
    return { id: computeOrderId(order, chains.slugVmTypes) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Derives the shared facts of one verification.
 *
 * @param input the verification input (quote and chains already schema-parsed)
 */
export function buildContext(input: VerifyQuoteInput): VerifyContext {
  const chains = indexChains(input.chains);
  const v2 = input.quote.protocol?.v2 ?? null;
  const order = v2?.orderData ?? null;
  const onlyInput = order && order.inputs.length === 1 ? order.inputs[0] : undefined;
  const payment: PaymentFacts | null = onlyInput
    ? {
        chainSlug: onlyInput.payment.chainId,
        currency: onlyInput.payment.currency,
        amount: BigInt(onlyInput.payment.amount), // schema checked an unsigned integer string
      }
    : null;
  const paymentChain = payment ? (chains.bySlug(payment.chainSlug) ?? null) : null;
  const outputChain = order ? (chains.bySlug(order.output.chainId) ?? null) : null;
  return {
    input,
    expect: input.expect,
    chains,
    v2,
    order,
    payment,
    paymentChain,
    outputChain,
    depository: paymentChain ? (depositoryOf(paymentChain) ?? null) : null,
    orderId: order ? recompute(order, chains) : null,
  };
}
