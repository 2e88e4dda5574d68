/**
 * Reads the quote's steps as EVM transactions (docs/relay-contract.md "Step", "Step item": EVM `data` holds from, to, data,
 * value, chainId, ...), keeping each item's position so rules can name it (`steps[1].items[0]`).
 */
import { decodeFunctionData, encodeFunctionData, erc20Abi, toFunctionSelector, type Hex } from 'viem';
import { depositoryAbi } from '@ballast/protocol/protocol/depositoryAbi.ts';
import { EvmTxDataSchema, type EvmTxData, type QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import type { StepItemRef } from '../types.ts';
import { collectStepItems } from './stepItems.ts';

/** One item of a `transaction` step: its parsed EVM payload, or why it does not parse. */
export interface EvmItem {
  ref: StepItemRef;
  /** `steps[i].items[j]`, for details. */
  path: string;
  /** `data.to` as written in the quote, if it is a string (lets a malformed item still be matched by target). */
  rawTo: string | undefined;
  tx: EvmTxData | null;
  /** Why `tx` is null. */
  parseError?: string;
}

/** The quote's steps split into parsed transaction items and step-level problems. */
export interface EvmSteps {
  items: EvmItem[];
  /** Steps Ballast never executes: `signature` steps and deposit-address steps, as human details. */
  stepProblems: string[];
}

/**
 * Collects every item of every `transaction` step ({@link collectStepItems}), parsing `data` with {@link EvmTxDataSchema}.
 * `signature` steps and steps with a non-empty `depositAddress` (not locally verifiable,
 * docs/relay-contract.md "Local quote verification") are reported in `stepProblems` instead, as are items whose status is
 * not `incomplete` (docs/relay-contract.md "Step item": the value on a fresh quote) and steps whose `requestId` differs from
 * the quote's.
 */
export function collectEvmSteps(quote: QuoteResponse): EvmSteps {
  return collectStepItems<EvmItem>(quote, { expected: 'only transactions are expected', requireIncomplete: true }, (item, ref, path) => {
    const rawTo = typeof item.data['to'] === 'string' ? item.data['to'] : undefined;
    const parsed = EvmTxDataSchema.safeParse(item.data);
    return parsed.success
      ? { ref, path, rawTo, tx: parsed.data }
      : {
          ref,
          path,
          rawTo,
          tx: null,
          parseError: parsed.error.issues.map((i) => `${i.path.join('.') || 'data'}: ${i.message}`).join(', '),
        };
  });
}

/** Decoded depository call (relay-depository ABI). Addresses as returned by viem (checksummed). */
export type DepositCall =
  | { functionName: 'depositNative'; depositor: Hex; id: Hex }
  | { functionName: 'depositErc20'; depositor: Hex; token: Hex; amount: bigint; id: Hex };

/**
 * Decodes calldata as `depositNative(address,bytes32)` or `depositErc20(address,address,uint256,bytes32)`
 * (viem `decodeFunctionData` with {@link depositoryAbi}). Calldata must be canonical: re-encoding the decoded
 * arguments must give the same bytes, so nothing can hide in padding or trailing data.
 *
 * @returns the call, or a string saying why it does not decode
 */
export function decodeDepositCall(data: Hex): DepositCall | string {
  try {
    const decoded = decodeFunctionData({ abi: depositoryAbi, data });
    const reencoded =
      decoded.functionName === 'depositNative'
        ? encodeFunctionData({ abi: depositoryAbi, functionName: 'depositNative', args: decoded.args })
        : encodeFunctionData({ abi: depositoryAbi, functionName: 'depositErc20', args: decoded.args });
    if (reencoded.toLowerCase() !== data.toLowerCase()) {
      return `calldata is not the canonical encoding of ${decoded.functionName}`;
    }
    if (decoded.functionName === 'depositNative') {
      const [depositor, id] = decoded.args;
      return { functionName: 'depositNative', depositor, id };
    }
    const [depositor, token, amount, id] = decoded.args;
    return { functionName: 'depositErc20', depositor, token, amount, id };
  } catch {
    return `calldata (selector ${data.slice(0, 10)}) is neither depositNative nor depositErc20`;
  }
}

/** Selector of ERC-20 `approve(address,uint256)`: 0x095ea7b3. */
export const APPROVE_SELECTOR: Hex = toFunctionSelector('function approve(address spender, uint256 amount)');

/** Decoded ERC-20 approval. */
export interface ApproveCall {
  spender: Hex;
  amount: bigint;
}

/**
 * Decodes ERC-20 `approve(spender, amount)` calldata (viem `erc20Abi`), canonical encoding required.
 *
 * @returns the call, or a string saying why it does not decode
 */
export function decodeApproveCall(data: Hex): ApproveCall | string {
  try {
    const decoded = decodeFunctionData({ abi: erc20Abi, data });
    if (decoded.functionName !== 'approve') return `calldata is ${decoded.functionName}, not approve`;
    const reencoded = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: decoded.args });
    if (reencoded.toLowerCase() !== data.toLowerCase()) {
      return 'calldata is not the canonical encoding of approve';
    }
    const [spender, amount] = decoded.args;
    return { spender, amount };
  } catch {
    return 'calldata does not decode as approve(address,uint256)';
  }
}

/** True when calldata starts with the ERC-20 `approve` selector. */
export function isApproveSelector(data: Hex): boolean {
  return data.slice(0, 10).toLowerCase() === APPROVE_SELECTOR;
}
