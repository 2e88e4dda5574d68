import type { Hex, TransactionReceipt } from 'viem';
import { describe, expect, it } from 'vitest';
import { waitMined, type ReceiptSource } from '../../../../packages/sandbox/src/solver/confirm.ts';

const HASH: Hex = `0x${'ab'.repeat(32)}`;

describe('waitMined', () => {
  it('retries through RPC errors and timeouts and returns the mined receipt', async () => {
    const outcomes: (Error | 'reverted')[] = [new Error('fetch failed'), new Error('WaitForTransactionReceiptTimeoutError'), 'reverted'];
    const errors: number[] = [];
    const client: ReceiptSource = {
      waitForTransactionReceipt: async () => {
        const next = outcomes.shift();
        if (next instanceof Error) throw next;
        return { status: next, transactionHash: HASH } as unknown as TransactionReceipt; // only status is read
      },
    };
    const receipt = await waitMined(client, HASH, { signal: new AbortController().signal, retryMs: 1, onError: (_e, n) => errors.push(n) });
    expect(receipt?.status).toBe('reverted');
    expect(errors).toEqual([1, 2]);
  });

  it('returns null when aborted while a receipt never comes', async () => {
    const abort = new AbortController();
    const client: ReceiptSource = { waitForTransactionReceipt: () => new Promise<TransactionReceipt>(() => undefined) };
    const pending = waitMined(client, HASH, { signal: abort.signal });
    abort.abort();
    expect(await pending).toBeNull();
  });
});
