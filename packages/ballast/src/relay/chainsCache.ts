/**
 * In-memory cache of GET /chains for the life of the process (docs/relay-contract.md "GET /chains"; docs/design.md "Rate
 * limits": the client spends at most 200 non-quote calls a minute, and a list fetched every cycle would use them up).
 *
 * The list is kept for `ttlMs` and fetched again on first use after that. A quote that names a chain, depository
 * or contract the cached list does not know is judged once more against a list fetched on the spot
 * ({@link ChainsCache.refresh}); the fresh list then replaces the cached one, whatever it says.
 */
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';

/** Options of {@link createChainsCache}. */
export interface ChainsCacheOptions {
  /** Fetches and parses GET /chains (e.g. `async () => (await relay.getChains()).chains`). */
  fetch: () => Promise<ChainsResponse>;
  /** How long a fetched list is served, ms; 0 fetches on every {@link ChainsCache.get}. */
  ttlMs: number;
  /** Clock, unix ms (default `Date.now`). */
  now?: () => number;
}

/** A cached GET /chains list. Every method throws what `fetch` throws (the cache is then left as it was). */
export interface ChainsCache {
  /** The cached list while younger than the TTL, else a freshly fetched one. */
  get(): Promise<ChainsResponse>;
  /**
   * Fetches the list again unless it was already fetched again since `seen` was served (then that newer list is
   * returned without a request), so callers that all saw the same stale list cause one request between them.
   *
   * @param seen the list the caller judged with
   */
  refresh(seen: ChainsResponse): Promise<ChainsResponse>;
  /** The cached list without fetching, or null before the first fetch. */
  current(): ChainsResponse | null;
  /** Number of GET /chains requests made through this cache (successful or not). */
  readonly fetches: number;
}

/**
 * Creates a GET /chains cache. Concurrent callers share one request in flight.
 *
 * @throws RangeError when `ttlMs` is negative or not finite
 * @example
 * const chains = createChainsCache({ fetch: async () => (await relay.getChains()).chains, ttlMs: 300_000 });
 * const doc = await chains.get(); // one request; the next 5 minutes are served from memory
 */
export function createChainsCache(opts: ChainsCacheOptions): ChainsCache {
  if (!Number.isFinite(opts.ttlMs) || opts.ttlMs < 0) throw new RangeError(`ttlMs must be a non-negative number of ms, got ${opts.ttlMs}`);
  const now = opts.now ?? Date.now;
  let doc: ChainsResponse | null = null;
  let fetchedAtMs = 0;
  let pending: Promise<ChainsResponse> | null = null;
  let fetches = 0;

  const fetchNow = (): Promise<ChainsResponse> => {
    if (pending) return pending;
    fetches += 1;
    const started = now();
    pending = opts
      .fetch()
      .then((fresh) => {
        doc = fresh;
        fetchedAtMs = started;
        return fresh;
      })
      .finally(() => {
        pending = null;
      });
    return pending;
  };

  return {
    async get() {
      if (doc !== null && opts.ttlMs > 0 && now() - fetchedAtMs < opts.ttlMs) return doc;
      return fetchNow();
    },
    async refresh(seen) {
      if (pending) return pending;
      if (doc !== null && doc !== seen) return doc;
      return fetchNow();
    },
    current: () => doc,
    get fetches() {
      return fetches;
    },
  };
}
