/**
 * Order id: the EIP-712 struct hash (keccak256, no domain) of a protocol.v2 `orderData`, with every address
 * and currency encoded as bytes by the VM type of the chain it belongs to (docs/relay-contract.md "Local quote verification"
 * 3; settlement SDK `getOrderId`; EIP-712 `hashStruct`).
 */
import { hashStruct, type Hex } from 'viem';
import type { OrderData } from '../relay/schemas.ts';
import { encodeAddressBytes } from './addressBytes.ts';
import type { ProtocolVmType, SlugVmTypes } from './vmTypes.ts';
import { BallastError } from '../core/errors.ts';

/** EIP-712 types of the settlement order (settlement SDK `ORDER_EIP712_TYPES`). */
export const ORDER_EIP712_TYPES = {
  Order: [
    { name: 'version', type: 'string' },
    { name: 'solverChainId', type: 'string' },
    { name: 'solver', type: 'address' },
    { name: 'salt', type: 'uint256' },
    { name: 'inputs', type: 'Input[]' },
    { name: 'output', type: 'Output' },
    { name: 'fees', type: 'Fee[]' },
  ],
  Input: [
    { name: 'payment', type: 'InputPayment' },
    { name: 'refunds', type: 'InputRefund[]' },
  ],
  InputPayment: [
    { name: 'chainId', type: 'string' },
    { name: 'currency', type: 'bytes' },
    { name: 'amount', type: 'uint256' },
    { name: 'weight', type: 'uint256' },
  ],
  InputRefund: [
    { name: 'chainId', type: 'string' },
    { name: 'recipient', type: 'bytes' },
    { name: 'currency', type: 'bytes' },
    { name: 'minimumAmount', type: 'uint256' },
    { name: 'deadline', type: 'uint32' },
    { name: 'extraData', type: 'bytes' },
  ],
  Output: [
    { name: 'chainId', type: 'string' },
    { name: 'payments', type: 'OutputPayment[]' },
    { name: 'deadline', type: 'uint32' },
    { name: 'calls', type: 'bytes[]' },
    { name: 'extraData', type: 'bytes' },
  ],
  OutputPayment: [
    { name: 'recipient', type: 'bytes' },
    { name: 'currency', type: 'bytes' },
    { name: 'minimumAmount', type: 'uint256' },
    { name: 'expectedAmount', type: 'uint256' },
  ],
  Fee: [
    { name: 'recipientChainId', type: 'string' },
    { name: 'recipient', type: 'bytes' },
    { name: 'currencyChainId', type: 'string' },
    { name: 'currency', type: 'bytes' },
    { name: 'amount', type: 'uint256' },
  ],
} as const;

/** Raised when an order cannot be hashed (unknown chain slug, malformed address). `code` is stable. */
export class OrderIdError extends BallastError {
  readonly code = 'ORDER_ID_FAILED';
}

function vmOf(slug: string, vmTypes: SlugVmTypes, path: string): ProtocolVmType {
  const vm = vmTypes[slug];
  if (!vm) {
    throw new OrderIdError(
      `${path}: chain slug "${slug}" is not in GET /chains (no chains[].protocol.v2.chainId with that value); ` +
        'refresh the chains document or check the order',
    );
  }
  return vm;
}

function enc(address: string, slug: string, vmTypes: SlugVmTypes, path: string): Hex {
  try {
    return encodeAddressBytes(address, vmOf(slug, vmTypes, path));
  } catch (error) {
    if (error instanceof OrderIdError) throw error;
    throw new OrderIdError(`${path}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Computes the order id of an `orderData`.
 *
 * @param order parsed `protocol.v2.orderData`
 * @param vmTypes protocol chain slug → VM type, built from GET /chains ({@link slugVmTypesFromChains})
 * @returns the 32-byte order id as lower-case 0x hex
 * @throws OrderIdError naming the order path when a slug is unknown or an address cannot be encoded
 */
export function computeOrderId(order: OrderData, vmTypes: SlugVmTypes): Hex {
  const outSlug = order.output.chainId;
  const message = {
    version: order.version,
    solverChainId: order.solverChainId,
    solver: order.solver as Hex, // schema checked it is a 20-byte hex address
    salt: BigInt(order.salt),
    inputs: order.inputs.map((input, i) => ({
      payment: {
        chainId: input.payment.chainId,
        currency: enc(input.payment.currency, input.payment.chainId, vmTypes, `inputs[${i}].payment.currency`),
        amount: BigInt(input.payment.amount),
        weight: BigInt(input.payment.weight),
      },
      refunds: input.refunds.map((refund, j) => ({
        chainId: refund.chainId,
        recipient: enc(refund.recipient, refund.chainId, vmTypes, `inputs[${i}].refunds[${j}].recipient`),
        currency: enc(refund.currency, refund.chainId, vmTypes, `inputs[${i}].refunds[${j}].currency`),
        minimumAmount: BigInt(refund.minimumAmount),
        deadline: refund.deadline,
        extraData: refund.extraData as Hex, // schema checked hex
      })),
    })),
    output: {
      chainId: outSlug,
      payments: order.output.payments.map((payment, k) => ({
        recipient: enc(payment.recipient, outSlug, vmTypes, `output.payments[${k}].recipient`),
        currency: enc(payment.currency, outSlug, vmTypes, `output.payments[${k}].currency`),
        minimumAmount: BigInt(payment.minimumAmount),
        expectedAmount: BigInt(payment.expectedAmount),
      })),
      deadline: order.output.deadline,
      calls: order.output.calls as Hex[], // schema checked hex
      extraData: order.output.extraData as Hex, // schema checked hex
    },
    fees: order.fees.map((fee, f) => ({
      recipientChainId: fee.recipientChainId,
      recipient: enc(fee.recipient, fee.recipientChainId, vmTypes, `fees[${f}].recipient`),
      currencyChainId: fee.currencyChainId,
      currency: enc(fee.currency, fee.currencyChainId, vmTypes, `fees[${f}].currency`),
      amount: BigInt(fee.amount),
    })),
  };
  return hashStruct({ types: ORDER_EIP712_TYPES, primaryType: 'Order', data: message });
}
