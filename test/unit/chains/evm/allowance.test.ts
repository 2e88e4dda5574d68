/**
 * Before an approval is signed, the current allowance decides what is sent: nothing when it already covers the
 * amount, the approval when it is zero, and a reset to zero first when it is non-zero but short (USDT-style
 * tokens revert a non-zero → non-zero approve).
 */
import { decodeFunctionData, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { planAllowance, readApproval, resetApprovalItem } from '../../../../packages/ballast/src/chains/evm/allowance.ts';
import type { EvmTxData } from '../../../../packages/protocol/src/relay/schemas.ts';

const DEPOSITORY: Hex = '0x4cd00e387622c35bddb9b4c962c136462338bc31';
const TOKEN: Hex = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const USER: Hex = '0x03508bb71268bba25ecacc8f620e01866650532c';

function approveItem(amount: bigint): EvmTxData {
  return {
    from: USER,
    to: TOKEN,
    chainId: 8453,
    value: '0',
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [DEPOSITORY, amount] }),
  };
}

describe('planAllowance', () => {
  it.each([
    [0n, 100n, 'approve'],
    [1n, 100n, 'reset-then-approve'],
    [99n, 100n, 'reset-then-approve'],
    [100n, 100n, 'sufficient'],
    [2n ** 256n - 1n, 100n, 'sufficient'],
    [0n, 0n, 'sufficient'],
  ] as const)('allowance %s for %s → %s', (current, amount, action) => {
    expect(planAllowance(current, amount)).toBe(action);
  });
});

describe('readApproval and resetApprovalItem', () => {
  it('reads token, spender and amount of an approval item; null for the deposit', () => {
    expect(readApproval(approveItem(5n))).toEqual({ token: TOKEN, spender: expect.stringMatching(/^0x4[cC][dD]00/), amount: 5n });
    expect(readApproval({ ...approveItem(5n), to: DEPOSITORY, data: '0xe8017952' })).toBeNull();
  });

  it('builds approve(spender, 0) on the same token, chain and sender', () => {
    const item = approveItem(5n);
    const reset = resetApprovalItem(item, readApproval(item)!);
    expect({ from: reset.from, to: reset.to, chainId: reset.chainId, value: reset.value }).toEqual({
      from: USER,
      to: TOKEN,
      chainId: 8453,
      value: '0',
    });
    const call = decodeFunctionData({ abi: erc20Abi, data: reset.data as Hex });
    expect(call.functionName).toBe('approve');
    expect((call.args as readonly [Hex, bigint])[1]).toBe(0n);
    expect((call.args as readonly [Hex, bigint])[0].toLowerCase()).toBe(DEPOSITORY);
  });
});
