/**
 * Client-side sliding-window rate limiter (docs/design.md "Rate limits": /quote 50/min per key, other endpoints
 * 200/min). Keeps Ballast under the service's limits so it rarely meets a 429 at all.
 */

/** A limiter: `acquire()` resolves when a call may be made. */
export interface RateLimiter {
  acquire(): Promise<void>;
  /** Calls that could start now without waiting (0 while callers are queued for later slots). */
  free(): number;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Calls allowed per window. */
  limit: number;
  /** Window length, milliseconds (60_000 for "per minute"). */
  windowMs: number;
  /** Current time, unix milliseconds. */
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Creates a limiter that lets at most `limit` calls start within any `windowMs`. Slots are reserved
 * synchronously, so concurrent callers get distinct slots; a caller over the limit sleeps until its slot.
 *
 * @throws RangeError when `limit` < 1 or `windowMs` < 0
 */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new RangeError(`rate limit must be an integer >= 1, got ${opts.limit}`);
  if (!(opts.windowMs >= 0)) throw new RangeError(`rate window must be >= 0 ms, got ${opts.windowMs}`);
  /** Start times of the last `limit` slots, ascending (some may be in the future). */
  const slots: number[] = [];
  return {
    async acquire(): Promise<void> {
      const now = opts.now();
      let at = now;
      const last = slots[slots.length - 1];
      if (last !== undefined && last > at) at = last;
      if (slots.length >= opts.limit) {
        const edge = slots[slots.length - opts.limit]! + opts.windowMs; // index in range: length >= limit
        if (edge > at) at = edge;
      }
      slots.push(at);
      if (slots.length > opts.limit) slots.splice(0, slots.length - opts.limit);
      if (at > now) await opts.sleep(at - now);
    },
    free(): number {
      const now = opts.now();
      const last = slots[slots.length - 1];
      if (last !== undefined && last > now) return 0;
      return opts.limit - slots.filter((at) => at > now - opts.windowMs).length;
    },
  };
}
