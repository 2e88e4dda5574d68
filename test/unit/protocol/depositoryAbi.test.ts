import { decodeFunctionData, encodeFunctionData, toFunctionSelector, type AbiFunction } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  DEPOSIT_ERC20_SELECTOR,
  DEPOSIT_NATIVE_SELECTOR,
  depositoryAbi,
} from '../../../src/protocol/depositoryAbi.ts';
import { loadQuoteFixture } from '../../fixtures/relay.ts';

function fn(name: string): AbiFunction {
  const item = depositoryAbi.find((x) => x.type === 'function' && x.name === name);
  if (!item || item.type !== 'function') throw new Error(`${name} missing from depositoryAbi`);
  return item;
}

describe('depositoryAbi', () => {
  it('has the published selectors 0x49290c1c (depositNative) and 0xe8017952 (depositErc20)', () => {
    expect(toFunctionSelector(fn('depositNative'))).toBe('0x49290c1c');
    expect(toFunctionSelector(fn('depositErc20'))).toBe('0xe8017952');
    expect(DEPOSIT_NATIVE_SELECTOR).toBe(toFunctionSelector(fn('depositNative')));
    expect(DEPOSIT_ERC20_SELECTOR).toBe(toFunctionSelector(fn('depositErc20')));
  });

  it('decodes the genuine fixture deposit calldata as depositErc20(user, USDC, 100 USDC, orderId)', () => {
    const deposit = loadQuoteFixture().steps[1]!.items[0]!.data as { data: `0x${string}` };
    const decoded = decodeFunctionData({ abi: depositoryAbi, data: deposit.data });
    expect(decoded.functionName).toBe('depositErc20');
    expect(decoded.args.map((a) => (typeof a === 'string' ? a.toLowerCase() : a))).toEqual([
      '0x03508bb71268bba25ecacc8f620e01866650532c',
      '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      100000000n,
      '0x4c625ab9733d2d5702beed88f4156575e25d599d5145551d5bf2bfc358db234b',
    ]);
  });

  it('round-trips depositNative calldata starting with its selector', () => {
    const id = `0x${'ab'.repeat(32)}` as const;
    const depositor = '0x03508bb71268bba25ecacc8f620e01866650532c';
    const data = encodeFunctionData({ abi: depositoryAbi, functionName: 'depositNative', args: [depositor, id] });
    expect(data.slice(0, 10)).toBe('0x49290c1c');
    const decoded = decodeFunctionData({ abi: depositoryAbi, data });
    expect(decoded.functionName).toBe('depositNative');
    expect(decoded.args[1]).toBe(id);
  });
});
