/**
 * In-memory cache of GET /currencies/token/price answers (src/relay/tokenPrice.ts), keyed by chain id and token
 * address, so a cycle that checks several quotes from one origin chain asks for its native currency's price once
 * (docs/design.md "Rate limits": non-quote calls share 200 a minute).
 *
 * An answer, price or failure, is served for `ttlMs`, then fetched again on first use. A failure is kept as long as
 * a price so that a broken endpoint costs one request (and one `onError` call, for one log line) per chain per TTL,
 * not one per quote; callers treat it as "price unknown" and fail closed. Concurrent callers share one request.
 */

/** Options of {@link createTokenPriceCache}. */
export interface TokenPriceCacheOptions {
  /** Fetches one price, micro-USD per whole token (e.g. `(q) => relay.getTokenPrice(q)` mapped to its `priceUsdMicros`). */
  fetch: (q: { chainId: number; address: string }) => Promise<bigint>;
  /** How long an answer is served, ms (e.g. 60_000); 0 fetches on every {@link TokenPriceCache.get}. */
  ttlMs: number;
  /** Called once per failed request with what `fetch` threw (e.g. to log it). Exceptions it throws are ignored. */
  onError?: (q: { chainId: number; address: string }, error: unknown) => void;
  /** Clock, unix ms (default `Date.now`). */
  now?: () => number;
}

/** A cached price lookup. */
export interface TokenPriceCache {
  /**
   * The token's price, micro-USD per whole token: the cached answer while younger than the TTL, else a fresh one.
   *
   * @throws what `fetch` threw, for as long as that failure is cached
   */
  get(q: { chainId: number; address: string }): Promise<bigint>;
  /** Number of requests made through this cache (successful or not). */
  readonly fetches: number;
}

/**
 * Creates a token price cache.
 *
 * @throws RangeError when `ttlMs` is negative or not finite
 * @example
 * const prices = createTokenPriceCache({ fetch: async (q) => (await relay.getTokenPrice(q)).priceUsdMicros, ttlMs: 60_000 });
 * await prices.get({ chainId: 8453, address: zeroAddress }); // 3_000_000_000n (3000 USD per ETH); one request a minute
 */
export function createTokenPriceCache(opts: TokenPriceCacheOptions): TokenPriceCache {
  if (!Number.isFinite(opts.ttlMs) || opts.ttlMs < 0) throw new RangeError(`ttlMs must be a non-negative number of ms, got ${opts.ttlMs}`);
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { atMs: number; answer: Promise<bigint> }>();
  let fetches = 0;
  return {
    get(q) {
      // EVM addresses compare case-insensitively; other VMs' addresses (base58, symbols) are case-sensitive.
      const key = `${q.chainId}:${q.address.startsWith('0x') ? q.address.toLowerCase() : q.address}`;
      const hit = entries.get(key);
      if (hit && opts.ttlMs > 0 && now() - hit.atMs < opts.ttlMs) return hit.answer;
      fetches += 1;
      const answer = opts.fetch(q);
      answer.catch((error: unknown) => {
        try {
          opts.onError?.(q, error);
        } catch {
          // a failing log sink must not turn a price failure into an unhandled rejection
        }
      });
      entries.set(key, { atMs: now(), answer });
      return answer;
    },
    get fetches() {
      return fetches;
    },
  };
}
