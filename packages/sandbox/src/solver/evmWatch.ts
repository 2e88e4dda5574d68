/**
 * Watches an EVM chain's depository for deposit events (eth_getLogs from a start block, when the node announces a
 * new head or, without announcements, on every poll) and re-scans single transactions for POST /transactions/index.
 * Each deposit gets its block's timestamp (one block read per distinct block), which judges order expiry.
 */
import type { Logger } from 'pino';
import type { Hex } from 'viem';
import type { DepositEvent, ObservedDeposit } from '../api/requestStore.ts';
import { decodeDepositLogs } from './depositLogs.ts';
import type { HeadFollower } from './evmHeads.ts';
import type { SolverChain } from './solver.ts';
import { sleep } from './sleep.ts';

/** Adds each event's block timestamp (unix seconds). */
export async function withTimestamps(c: SolverChain, events: DepositEvent[]): Promise<ObservedDeposit[]> {
  const times = new Map<bigint, number>();
  const out: ObservedDeposit[] = [];
  for (const e of events) {
    let ts = times.get(e.blockNumber);
    if (ts === undefined) {
      ts = Number((await c.publicClient.getBlock({ blockNumber: e.blockNumber })).timestamp);
      times.set(e.blockNumber, ts);
    }
    out.push({ ...e, blockTimestamp: ts });
  }
  return out;
}

/** Options of {@link watchEvm}. */
export interface WatchEvmOptions {
  chain: SolverChain;
  /** First block to scan. */
  startBlock: bigint;
  signal: AbortSignal;
  pollMs: number;
  /** Called before each poll (re-handles deposits whose handling threw). */
  beforePoll: () => void;
  /**
   * The node's announced heads (evmHeads.ts): the head and logs are then read only when a head at or past the next
   * block to scan was announced, and at least every {@link HEAD_POLL_FALLBACK_MS} in case an announcement was lost
   * (or came before the subscription). Absent, or once the subscription failed: read on every poll.
   */
  heads?: HeadFollower;
  onDeposit: (deposit: ObservedDeposit) => void;
  log: Logger;
}

/** Longest time between two reads of the head while announced heads say nothing new, ms. */
export const HEAD_POLL_FALLBACK_MS = 1_000;

/** Polls until `signal` aborts. Never rejects: a failed poll is logged and retried. */
export async function watchEvm(o: WatchEvmOptions): Promise<void> {
  const c = o.chain;
  let next = o.startBlock;
  let lastReadMs = -Infinity;
  while (!o.signal.aborted) {
    o.beforePoll();
    const announced = o.heads?.latest();
    const now = Date.now();
    if (announced !== undefined && announced < next && now - lastReadMs < HEAD_POLL_FALLBACK_MS) {
      await sleep(o.pollMs, o.signal);
      continue;
    }
    lastReadMs = now;
    try {
      const head = await c.publicClient.getBlockNumber({ cacheTime: 0 });
      if (head >= next) {
        const logs = await c.publicClient.getLogs({ address: c.depository, fromBlock: next, toBlock: head });
        const deposits = await withTimestamps(c, decodeDepositLogs(c.chainId, c.depository, logs));
        for (const d of deposits) o.onDeposit(d);
        next = head + 1n;
      }
    } catch (error) {
      if (!o.signal.aborted) o.log.warn({ err: error, chainId: c.chainId }, 'deposit poll failed; retrying');
    }
    await sleep(o.pollMs, o.signal);
  }
}

/**
 * Reads one transaction's depository deposits.
 *
 * @returns the deposits, or null when the chain has no receipt for it
 */
export async function evmTransactionDeposits(c: SolverChain, txHash: Hex): Promise<ObservedDeposit[] | null> {
  let receipt;
  try {
    receipt = await c.publicClient.getTransactionReceipt({ hash: txHash });
  } catch (error) {
    if ((error as { name?: string }).name === 'TransactionReceiptNotFoundError') return null; // viem error class name
    throw error;
  }
  return withTimestamps(c, decodeDepositLogs(c.chainId, c.depository, receipt.logs));
}
