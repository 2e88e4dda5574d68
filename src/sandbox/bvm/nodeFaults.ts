/**
 * Fault knobs of the sandbox's Bitcoin node, consumed one request at a time: broadcasts that are answered
 * but lost, and HTTP 503 bursts on paths with a given prefix. Pure state: no I/O.
 */

/** Mutable counters of the node's faults. */
export class EsploraFaults {
  #dropBroadcasts = 0;
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
