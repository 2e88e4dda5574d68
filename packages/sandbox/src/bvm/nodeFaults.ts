/**
 * Fault knobs of the sandbox's Bitcoin node, consumed one request at a time: broadcasts that are answered
 * but lost, broadcasts accepted then evicted from the mempool, transaction reads answered by a backend that
 * has not seen a mempool transaction (404), and HTTP 503 bursts on paths with a given prefix. Pure state:
 * no I/O.
 */

function count(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name}: n must be a non-negative integer, got ${n}`);
  return n;
}

/** Mutable counters of the node's faults. */
export class EsploraFaults {
  #dropBroadcasts = 0;
  #evictBroadcasts = 0;
  #forgetMempoolReads = 0;
  #failures: { prefix: string; remaining: number }[] = [];

  /**
   * The next `n` HTTP broadcasts (POST /tx) are answered with their txid but not kept (a lost broadcast).
   * Replaces any count still pending.
   *
   * @throws RangeError when `n` is not a non-negative integer
   */
  dropNextBroadcasts(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`dropNextBroadcasts: n must be a non-negative integer, got ${n}`);
    this.#dropBroadcasts = n;
  }

  /** Consumes one lost-broadcast fault. @returns whether this broadcast must be dropped */
  takeDrop(): boolean {
    if (this.#dropBroadcasts <= 0) return false;
    this.#dropBroadcasts -= 1;
    return true;
  }

  /**
   * The next `n` HTTP broadcasts (POST /tx) that the node accepts into its mempool are evicted right after
   * (answered with their txid, then gone, as after an expiry or a fee spike). Rejected broadcasts do not
   * count. Replaces any count still pending.
   *
   * @throws RangeError when `n` is not a non-negative integer
   */
  evictNextBroadcasts(n: number): void {
    this.#evictBroadcasts = count('evictNextBroadcasts', n);
  }

  /** Consumes one evict-after-accept fault (call only for an accepted new transaction). @returns whether to evict it */
  takeEvict(): boolean {
    if (this.#evictBroadcasts <= 0) return false;
    this.#evictBroadcasts -= 1;
    return true;
  }

  /**
   * The next `n` GET /tx/:txid… reads of a transaction that is in the mempool answer 404 `Transaction not
   * found`, as a load-balanced backend that has not seen it yet would. Reads of mined or unknown
   * transactions do not count. Replaces any count still pending.
   *
   * @throws RangeError when `n` is not a non-negative integer
   */
  forgetMempoolReads(n: number): void {
    this.#forgetMempoolReads = count('forgetMempoolReads', n);
  }

  /** Consumes one forgotten read (call only for a read of a mempool transaction). @returns whether to answer 404 */
  takeForgetRead(): boolean {
    if (this.#forgetMempoolReads <= 0) return false;
    this.#forgetMempoolReads -= 1;
    return true;
  }

  /** Counts still pending: lost broadcasts, evict-after-accept broadcasts, forgotten mempool reads. */
  pending(): { dropNextBroadcasts: number; evictNextBroadcasts: number; forgetMempoolReads: number } {
    return {
      dropNextBroadcasts: this.#dropBroadcasts,
      evictNextBroadcasts: this.#evictBroadcasts,
      forgetMempoolReads: this.#forgetMempoolReads,
    };
  }

  /**
   * The next `n` requests whose path (without an `/api` prefix) starts with `pathPrefix` answer 503.
   * Several prefixes can be armed at once; arming the same prefix again replaces its count.
   *
   * @throws RangeError when `n` is not a non-negative integer or the prefix does not start with `/`
   */
  failNextRequests(pathPrefix: string, n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`failNextRequests: n must be a non-negative integer, got ${n}`);
    if (!pathPrefix.startsWith('/')) throw new RangeError(`failNextRequests: the path prefix must start with "/", got ${pathPrefix}`);
    this.#failures = [...this.#failures.filter((f) => f.prefix !== pathPrefix), { prefix: pathPrefix, remaining: n }];
  }

  /** Consumes one 503 fault matching `path`. @returns whether this request must fail */
  takeFailure(path: string): boolean {
    const fault = this.#failures.find((f) => f.remaining > 0 && path.startsWith(f.prefix));
    if (fault === undefined) return false;
    fault.remaining -= 1;
    return true;
  }
}
