import { describe, expect, it } from 'vitest';
import type { BalancesRead, ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import { gasMeterOf, nativeBalanceReaderOf, withdrawalSignerOf } from '../../../packages/ballast/src/chains/capabilities.ts';
import { countRpcErrors } from '../../../packages/ballast/src/chains/rpcErrorCounting.ts';

/** An adapter whose node calls answer as told (only the members this test calls). */
function adapter(read: BalancesRead, fail: boolean) {
  return {
    name: 'base',
    chainId: 8453,
    vm: 'evm',
    confirmations: 12,
    nativeCurrency: '0x0000000000000000000000000000000000000000',
    async readBalances() {
      return read;
    },
    async head() {
      if (fail) throw new Error('ECONNREFUSED');
      return 7n;
    },
    async broadcast() {
      if (fail) throw new Error('nonce too low');
    },
    async sign() {
      throw new Error('not our wallet');
    },
    capabilities: {
      nativeBalanceReader: {
        async readNativeBalance() {
          if (fail) throw new Error('ETIMEDOUT');
          return 5n;
        },
      },
      gasMeter: {
        async gasPaid() {
          if (fail) throw new Error('ECONNRESET');
          return 21_000n;
        },
      },
      withdrawalSigner: {
        async signWithdrawalDigest() {
          throw new Error('digest is not 64 hex digits');
        },
      },
    },
  } as unknown as ChainAdapter & { confirmations: number };
}

describe('countRpcErrors', () => {
  it('counts failed node calls per chain and rethrows them unchanged', async () => {
    const counted: string[] = [];
    const a = countRpcErrors(adapter({ ok: false, error: 'down' }, true), (c) => counted.push(c));
    await expect(a.head()).rejects.toThrow('ECONNREFUSED');
    await expect(a.broadcast('0x00')).rejects.toThrow('nonce too low');
    expect(await a.readBalances([])).toEqual({ ok: false, error: 'down' });
    await expect(a.sign('w', { stepId: 's', itemIndex: 0, data: {} })).rejects.toThrow('not our wallet'); // local: not counted
    expect(counted).toEqual(['base', 'base', 'base']);
    expect(a.confirmations).toBe(12); // VM-specific members pass through
    expect('confirmations' in a).toBe(true);
  });

  it('counts failed node calls of the capabilities, not their local signing, and passes answers through', async () => {
    const counted: string[] = [];
    const a = countRpcErrors(adapter({ ok: true, atBlock: 1n, amounts: [] }, true), (c) => counted.push(c));
    await expect(nativeBalanceReaderOf(a)!.readNativeBalance('0x1')).rejects.toThrow('ETIMEDOUT');
    await expect(gasMeterOf(a)!.gasPaid('0x2')).rejects.toThrow('ECONNRESET');
    await expect(withdrawalSignerOf(a)!.signWithdrawalDigest('w', 'ab')).rejects.toThrow('64 hex digits'); // local: not counted
    expect(counted).toEqual(['base', 'base']);
    const fine = countRpcErrors(adapter({ ok: true, atBlock: 1n, amounts: [] }, false), (c) => counted.push(c));
    expect(await nativeBalanceReaderOf(fine)!.readNativeBalance('0x1')).toBe(5n);
    expect(await gasMeterOf(fine)!.gasPaid('0x2')).toBe(21_000n);
    expect(gasMeterOf(fine)).toBe(gasMeterOf(fine)); // wrapped once
    expect(counted).toEqual(['base', 'base']);
  });

  it('counts a read with an unread holding once, and nothing when all answered', async () => {
    const counted: string[] = [];
    const partial = countRpcErrors(
      adapter(
        { ok: true, atBlock: 1n, amounts: [{ amount: 1n }, { amount: null, error: 'revert' }, { amount: null, error: 'revert' }] },
        false,
      ),
      (c) => counted.push(c),
    );
    await partial.readBalances([]);
    expect(counted).toEqual(['base']);
    const fine = countRpcErrors(adapter({ ok: true, atBlock: 1n, amounts: [{ amount: 1n }] }, false), (c) => counted.push(c));
    await fine.readBalances([]);
    expect(await fine.head()).toBe(7n);
    expect(counted).toEqual(['base']);
  });
});
