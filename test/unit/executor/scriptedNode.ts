/**
 * An in-memory EVM node scripted for executor tests, and the executor's inputs for the offline quote, so the
 * real executor runs against a real SQLite store without a chain.
 */
import type { Hex, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { pino } from 'pino';
import type { ExecuteTransferArgs, ExecuteTransferDeps } from '../../../packages/ballast/src/executor/executeTransfer.ts';
import { createEvmAdapter } from '../../../packages/ballast/src/chains/evm/adapter.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { OFFLINE_CASE, OFFLINE_NOW_SEC } from '../../fixtures/offlineQuote.ts';

// anvil's public dev key 0: the offline quote's user (it holds nothing here; nothing leaves this process).
const ACCOUNT = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

/**
 * A node that takes every transaction and answers each receipt wait with `receiptFor(n, hash)` (n = 1 for the
 * first transaction sent). Allowances read 0, so the quote's approval is sent.
 */
export function scriptedNode(
  receiptFor: (n: number, hash: Hex) => { transactionHash: Hex; status: 'success' | 'reverted'; blockNumber: bigint },
) {
  const sent: Hex[] = [];
  const node = {
    getChainId: async () => OFFLINE_CASE.facts.originChainId,
    getTransactionCount: async () => 7,
    estimateGas: async () => 60_000n,
    estimateFeesPerGas: async () => ({ maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
    readContract: async () => 0n,
    sendRawTransaction: async () => {
      sent.push(`0x${String(sent.length).padStart(64, '0')}`);
      return sent.at(-1)!;
    },
    getTransaction: async () => ({}),
    waitForTransactionReceipt: async ({ hash }: { hash: Hex }) => receiptFor(sent.length, hash),
  };
  // executeTransfer calls only the methods above on its PublicClient.
  return { client: node as unknown as PublicClient, sent };
}

/**
 * Executor dependencies and arguments for the offline quote (a Promise: the cycle is recorded first); the clock
 * advances 100 ms per reading.
 */
export async function offlineExecution(
  db: StoreDb,
  client: PublicClient,
  signal?: AbortSignal,
): Promise<{ deps: ExecuteTransferDeps; args: ExecuteTransferArgs }> {
  const { quote } = OFFLINE_CASE.load();
  const f = OFFLINE_CASE.facts;
  let clockMs = OFFLINE_NOW_SEC * 1000;
  const cycleId = await startCycle(db, { mode: 'once', startedAtMs: clockMs });
  return {
    deps: {
      db,
      chain: createEvmAdapter({
        name: 'offline',
        chainId: OFFLINE_CASE.facts.originChainId,
        client,
        accounts: new Map([['treasury', ACCOUNT]]),
        confirmations: 1,
      }),
      wallet: 'treasury',
      relay: { getStatus: async () => Promise.reject(new Error('status unavailable')), indexTransaction: async () => ({}) },
      logger: pino({ level: 'silent' }),
      now: () => (clockMs += 100),
      sleep: async (ms) => void (clockMs += ms),
      tracking: { pollMs: 10, timeoutMs: 30 },
      ...(signal ? { signal } : {}),
    },
    args: {
      cycleId,
      quoteId: null,
      asset: 'USDC',
      originChain: 'alpha',
      originChainId: f.originChainId,
      originCurrency: f.originCurrency,
      destinationChain: 'beta',
      destinationChainId: f.destinationChainId,
      destinationCurrency: f.destinationCurrency,
      user: f.user,
      recipient: f.recipient,
      amountIn: f.amount,
      expectedOut: f.minOut,
      minOut: f.minOut,
      requestId: quote.requestId!,
      orderId: f.orderId,
      feesUsd: '0',
      quote,
    },
  };
}
