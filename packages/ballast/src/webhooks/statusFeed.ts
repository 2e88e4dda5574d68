/**
 * In-process feed of request statuses pushed by webhooks (docs/relay-contract.md "Events" → "Webhooks"): the receiver
 * publishes each accepted status under its request id, and a tracker following that request in the current cycle
 * (src/executor/trackRequest.ts) awaits the feed instead of sleeping its whole poll interval, so the pushed
 * status is handled at once. Polling stays the fallback: a tracker that hears nothing polls on schedule.
 *
 * One feed per wired instance (`createBallast`): the receiver publishes to it and the cycle context hands it to
 * the executor (`CycleContext.statusFeed`).
 */
import type { IntentStatus } from '@ballast/protocol/relay/schemas.ts';

/** Most statuses a subscription keeps while its tracker is busy (the oldest are dropped beyond it). */
const MAX_QUEUED = 16;

/** A tracker's subscription to one request. */
export interface StatusSubscription {
  /**
   * Waits up to `waitMs` (real milliseconds) for a pushed status; a status pushed before the call is returned
   * at once, oldest first.
   *
   * @returns the status, or null when the time passed, `signal` aborted or the subscription was closed
   */
  next(waitMs: number, signal?: AbortSignal): Promise<IntentStatus | null>;
  /** Ends the subscription; a pending `next` resolves null. Idempotent. */
  close(): void;
}

interface Subscriber {
  queue: IntentStatus[];
  wake: (() => void) | null;
}

/** Subscriptions by request id (case-insensitive: request ids are hex). */
export class StatusFeed {
  readonly #subscribers = new Map<string, Set<Subscriber>>();

  /** Subscribes to the statuses pushed for `requestId`. */
  subscribe(requestId: string): StatusSubscription {
    const key = requestId.toLowerCase();
    const sub: Subscriber = { queue: [], wake: null };
    let set = this.#subscribers.get(key);
    if (!set) this.#subscribers.set(key, (set = new Set()));
    set.add(sub);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      set.delete(sub);
      if (set.size === 0 && this.#subscribers.get(key) === set) this.#subscribers.delete(key);
      sub.wake?.();
    };
    return {
      close,
      next: (waitMs, signal) => {
        const queued = sub.queue.shift();
        if (queued) return Promise.resolve(queued);
        if (closed || signal?.aborted) return Promise.resolve(null);
        return new Promise<IntentStatus | null>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            sub.wake = null;
            resolve(sub.queue.shift() ?? null);
          };
          const timer = setTimeout(done, Math.max(0, waitMs));
          signal?.addEventListener('abort', done, { once: true });
          sub.wake = done;
        });
      },
    };
  }

  /**
   * Hands `status` to every subscription of `requestId` and wakes them.
   *
   * @returns how many subscriptions received it (0: no tracker follows the request in this process now)
   */
  publish(requestId: string, status: IntentStatus): number {
    const set = this.#subscribers.get(requestId.toLowerCase());
    if (!set) return 0;
    for (const sub of set) {
      sub.queue.push(status);
      if (sub.queue.length > MAX_QUEUED) sub.queue.shift();
      sub.wake?.();
    }
    return set.size;
  }

  /** Whether a tracker follows `requestId` now. */
  hasSubscriber(requestId: string): boolean {
    return this.#subscribers.has(requestId.toLowerCase());
  }
}
