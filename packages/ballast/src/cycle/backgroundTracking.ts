/**
 * Fills a daemon awaits after its cycle has ended (issue "one slow fill holds up the whole cycle"): a cycle's
 * transfer whose deposit is confirmed is tracked to its fill here, in the background, so the next cycle starts on
 * time. The next cycle's in-flight refresh leaves these transfers' status to their tracker (it still re-checks their
 * deposits for reorgs), and the planner counts them in flight like any `deposited` transfer. A tracker that ends
 * before the fill (tracking timeout, shutdown, the leader term ended) leaves the transfer `deposited`, and the next
 * cycles poll it as before. `run --once` has none: it waits for its own transfers, as cron users expect.
 */

/** The transfers tracked past the end of the cycle that started them, by transfer id. */
export class BackgroundTracking {
  private readonly runs = new Map<number, Promise<void>>();

  /** Whether a tracker of an earlier cycle still awaits this transfer's fill. */
  has(transferId: number): boolean {
    return this.runs.has(transferId);
  }

  /** Transfers tracked now. */
  get size(): number {
    return this.runs.size;
  }

  /**
   * Adds the tracker of one transfer: `run` settles when its tracking ends (it must not reject: the caller logs
   * its failures); the transfer is forgotten then.
   */
  add(transferId: number, run: Promise<void>): void {
    const tracked = run.finally(() => {
      if (this.runs.get(transferId) === tracked) this.runs.delete(transferId);
    });
    this.runs.set(transferId, tracked);
  }

  /** Waits until every tracker has ended (shutdown: after the signal they watch was aborted). */
  async settle(): Promise<void> {
    while (this.runs.size > 0) await Promise.all(this.runs.values());
  }
}
