/**
 * What to do about an ERC-20 approval step before signing it (Ballast; docs/design.md "Approvals"). The quote's
 * approval names the depository (verification rule `approve-spender`); the token's current allowance decides
 * whether it is sent at all, and whether the allowance must first go to zero: tokens such as USDT revert an
 * `approve` that changes one non-zero allowance to another. Pure.
 */
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import type { EvmTxData } from '@ballast/protocol/relay/schemas.ts';
import { decodeApproveCall, isApproveSelector } from '../../verify/deposit/evmItems.ts';

/**
 * - `sufficient`: the current allowance already covers the amount: skip the approval.
 * - `approve`: the allowance is zero: send the approval as quoted.
 * - `reset-then-approve`: the allowance is non-zero but short: send `approve(spender, 0)` first.
 */
export type AllowanceAction = 'sufficient' | 'approve' | 'reset-then-approve';

/**
 * Decides what to send for an approval of `amount` base units when the allowance is `current` base units.
 *
 * @param current the owner's allowance to the spender now, base units
 * @param amount the approval the quote asks for, base units (at most the payment amount: rule `approve`)
 */
export function planAllowance(current: bigint, amount: bigint): AllowanceAction {
  if (current >= amount) return 'sufficient';
  return current === 0n ? 'approve' : 'reset-then-approve';
}

/** An approval step item read back: token (the item's `to`), spender and amount (base units). */
export interface ApprovalIntent {
  token: Hex;
  spender: Hex;
  amount: bigint;
}

/**
 * Reads a step item as an ERC-20 `approve(spender, amount)`, or null when it is not one (the deposit).
 * Verification already refused any approval that does not decode canonically.
 */
export function readApproval(data: EvmTxData): ApprovalIntent | null {
  const calldata = data.data as Hex; // schema checked hex
  if (!isApproveSelector(calldata)) return null;
  const call = decodeApproveCall(calldata);
  if (typeof call === 'string') return null;
  return { token: data.to as Hex, spender: call.spender, amount: call.amount }; // schema checked a 20-byte address
}

/** The step item that sets the allowance of `approval.spender` back to zero: same token, chain and sender. */
export function resetApprovalItem(data: EvmTxData, approval: ApprovalIntent): EvmTxData {
  return {
    from: data.from,
    to: data.to,
    chainId: data.chainId,
    value: '0',
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [approval.spender, 0n] }),
  };
}
