import { decodeFunctionData, encodeFunctionData, toFunctionSelector, type AbiFunction } from 'viem';
import { describe, expect, it } from 'vitest';
import { DEPOSIT_ERC20_SELECTOR, DEPOSIT_NATIVE_SELECTOR, depositoryAbi } from '../../../packages/protocol/src/protocol/depositoryAbi.ts';
import { QUOTE_CASES } from '../../fixtures/quoteCase.ts';
import { itemData } from '../../fixtures/quoteTamper.ts';

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

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('depositoryAbi on the %s quote', (_name, c) => {
  it('decodes the deposit calldata as depositErc20(user, payment currency, amount, orderId)', () => {
    const f = c.facts;
    const data = itemData(c.load().quote, f.depositAt)['data'] as `0x${string}`;
    const decoded = decodeFunctionData({ abi: depositoryAbi, data });
    expect(decoded.functionName).toBe('depositErc20');
    expect(decoded.args.map((a) => (typeof a === 'string' ? a.toLowerCase() : a))).toEqual([f.user, f.originCurrency, f.amount, f.orderId]);
  });
});
