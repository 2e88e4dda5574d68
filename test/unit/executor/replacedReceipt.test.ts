/**
 * A receipt for another hash than ours means our transaction was replaced (same sender and nonce): it is not
 * recorded as confirmed and the transfer stays in flight for reconciliation to prove what the replacement did.
 * The executor runs against a real SQLite store and a scripted in-memory node.
 */
import type { Hex, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTransfer } from '../../../src/executor/executeTransfer.ts';
import { startCycle } from '../../../src/store/cycles.ts';
import { getTransfer } from '../../../src/store/transfers.ts';
import { OFFLINE_CASE, OFFLINE_NOW_SEC } from '../../fixtures/offlineQuote.ts';
import { tempDb, type TempDb } from '../store/helpers.ts';

// anvil's public dev key 0: the offline quote's user (it holds nothing here; nothing leaves this process).
const ACCOUNT = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const REPLACEMENT: Hex = `0x${'ab'.repeat(32)}`;

let t: TempDb;
beforeEach(() => {
  t = tempDb();
});
afterEach(() => t.cleanup());

/** A node that takes every transaction, mines the approve, and answers the deposit's wait with another hash. */
function scriptedNode() {
  const sent: Hex[] = [];
  const node = {
    getChainId: async () => OFFLINE_CASE.facts.originChainId,
    getTransactionCount: async () => 7,
    estimateGas: async () => 60_000n,
    estimateFeesPerGas: async () => ({ maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
    readContract: async () => 0n, // allowance 0: the approve is sent
    sendRawTransaction: async () => {
      sent.push(`0x${String(sent.length).padStart(64, '0')}`);
      return sent.at(-1)!;
    },
    getTransaction: async () => ({}),
    waitForTransactionReceipt: async ({ hash }: { hash: Hex }) =>
      sent.length === 1
        ? { transactionHash: hash, status: 'success', blockNumber: 1n }
        : { transactionHash: REPLACEMENT, status: 'success', blockNumber: 2n },
  };
  // executeTransfer calls only the methods above on its PublicClient.
  return { client: node as unknown as PublicClient, sent };
}

describe('executeTransfer: a replaced transaction', () => {
  it('does not take the replacement receipt for ours: the deposit stays unconfirmed and the transfer in flight', async () => {
    const db = t.open();
    const { quote } = OFFLINE_CASE.load();
    const f = OFFLINE_CASE.facts;
    const cycleId = startCycle(db, { mode: 'once', startedAtMs: OFFLINE_NOW_SEC * 1000 });
    const { client, sent } = scriptedNode();
    let clockMs = OFFLINE_NOW_SEC * 1000; // advances 100 ms per reading, and by every sleep
    const result = await executeTransfer(
      {
        db,
        publicClient: client,
        account: ACCOUNT,
        relay: { getStatus: async () => Promise.reject(new Error('not reached')), indexTransaction: async () => ({}) },
        logger: pino({ level: 'silent' }),
        now: () => (clockMs += 100),
        sleep: async (ms) => void (clockMs += ms),
        tracking: { pollMs: 10, timeoutMs: 30 },
      },
      {
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
    );
    expect(sent).toHaveLength(2);
    expect(result.status).toBe('broadcast');
    expect(result.error).toContain(`was replaced by ${REPLACEMENT}`);
    const transfer = getTransfer(db, result.transferId)!;
    expect(transfer.status).toBe('broadcast');
    expect(transfer.txs.map((x) => [x.stepId, x.status])).toEqual([
      ['approve', 'confirmed'],
      ['deposit', 'sent'],
    ]);
  });
});
