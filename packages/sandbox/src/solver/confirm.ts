/**
 * Waiting for a solver transaction that has already been broadcast. Once sent, a fill or refund may still be
 * mined, so an RPC error or a timeout while reading its receipt says nothing about its outcome: the wait is
 * retried until a receipt arrives (only a mined receipt, success or reverted, decides the request's fate) or
 * the solver stops.
 */
import type { Hex, TransactionReceipt } from 'viem';
import { sleep } from './sleep.ts';

/** The one read {@link waitMined} needs (a viem public client satisfies it). */
export interface ReceiptSource {
  waitForTransactionReceipt(args: { hash: Hex; pollingInterval?: number; timeout?: number }): Promise<TransactionReceipt>;
}

/** Options of {@link waitMined}. Times in milliseconds. */
export interface WaitMinedOptions {
  /** Aborting it ends the wait with null (solver stopping). */
  signal: AbortSignal;
  /** Longest single receipt wait before it is retried (default 10 000). */
  timeoutMs?: number;
  /** Pause after a failed attempt (default 500). */
  retryMs?: number;
  /** Receipt polling period (default 100). */
  pollingMs?: number;
  /** Called with each failed attempt's error (for logging). */
  onError?: (error: unknown, attempt: number) => void;
}

/**
 * Waits until a broadcast transaction is mined, retrying through receipt errors and timeouts.
 *
 * @param hash hash returned by the broadcast
 * @returns the mined receipt (its `status` may be `reverted`), or null when `signal` aborted first
 * @throws never: every receipt error is retried
 */
export async function waitMined(client: ReceiptSource, hash: Hex, opts: WaitMinedOptions): Promise<TransactionReceipt | null> {
  const { signal } = opts;
  const aborted = new Promise<null>((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener('abort', () => resolve(null), { once: true });
  });
  for (let attempt = 1; !signal.aborted; attempt++) {
    const wait = client.waitForTransactionReceipt({ hash, pollingInterval: opts.pollingMs ?? 100, timeout: opts.timeoutMs ?? 10_000 });
    wait.catch(() => undefined); // settled below, or abandoned when the solver stops
    try {
      const receipt = await Promise.race([wait, aborted]);
      if (receipt) return receipt;
    } catch (error) {
      if (signal.aborted) break;
      opts.onError?.(error, attempt);
      await sleep(opts.retryMs ?? 500, signal);
    }
  }
  return null;
}
