/**
 * Fault knobs of the sandbox Solana node, for tests: drop the next N `sendTransaction`s (answer with the
 * signature, never land them) and fail the next N calls of a named JSON-RPC method (internal error).
 */

/** Pending faults; each call that a fault hits uses it up. */
export class NodeFaults {
  #dropSends = 0;
  readonly #failRpc = new Map<string, number>();

  /** The next `n` sendTransaction calls answer with the signature but never land. */
  dropNextSends(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`dropNextSends(n) needs a non-negative integer, got ${n}`);
    this.#dropSends = n;
  }

  /** The next `n` calls of `method` (HTTP or websocket) answer -32603 Internal error. */
  failNextRpc(method: string, n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`failNextRpc(method, n) needs a non-negative integer, got ${n}`);
    if (n === 0) this.#failRpc.delete(method);
    else this.#failRpc.set(method, n);
  }

  /** Uses up one drop; true when this send must be dropped. */
  takeDrop(): boolean {
    if (this.#dropSends === 0) return false;
    this.#dropSends -= 1;
    return true;
  }

  /** Uses up one failure of `method`; true when this call must fail. */
  takeRpcFailure(method: string): boolean {
    const left = this.#failRpc.get(method) ?? 0;
    if (left === 0) return false;
    if (left === 1) this.#failRpc.delete(method);
    else this.#failRpc.set(method, left - 1);
    return true;
  }
}
