/**
 * The end of a leader term seen by work that started in it (PostgreSQL store with a leader lease, docs/ha.md):
 * the executor stops, writes nothing more, and says so with {@link TermEndedError} (or lets the fencing check's own
 * refusal of its first write-ahead through: nothing was written); the pipeline reports the attempt `handed_over`
 * (src/cycle/handOver.ts). What was written ahead stays in flight for the replica that leads
 * now, which reconciles it (sending exactly the transaction written ahead when it was never sent), so nothing is
 * lost and nothing is paid twice.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { LeaseLostError, NotLeaderError } from '../ha/errors.ts';

/**
 * The leader term the run started in ended while this transfer was executing (code `EXECUTOR_TERM_ENDED`): the
 * executor stopped where it was and wrote nothing more, in particular no `origin_failed` (whether the transfer
 * failed is for the replica that leads now to find out). Handle it by leaving the transfer to that replica; the
 * original failure, if any, is the `cause`.
 */
export class TermEndedError extends BallastError {
  readonly code = 'EXECUTOR_TERM_ENDED' as const;
  /** The transfer row this run wrote ahead, or null when it wrote none (then it sent nothing either). */
  readonly transferId: number | null;
  /** Origin transactions this run sent and recorded as sent, in order. */
  readonly originTxHashes: readonly string[];
  /** What stopped the work, in one line (the original failure, or why the executor stopped). */
  readonly detail: string;

  /**
   * @param transferId the transfer row written ahead, or null
   * @param originTxHashes the origin transactions sent and recorded so far
   * @param detail what stopped the work, in one line
   * @param options.cause the error that stopped it, when one did
   */
  constructor(transferId: number | null, originTxHashes: readonly string[], detail: string, options?: { cause?: unknown }) {
    const what =
      transferId === null
        ? 'no transfer was written ahead, so nothing was broadcast'
        : `transfer ${transferId} stays as written, in flight, for the replica that leads now to reconcile`;
    super(`the leader term this run started in has ended; ${what}: ${detail}`, options);
    this.transferId = transferId;
    this.originTxHashes = [...originTxHashes];
    this.detail = detail;
  }
}

/**
 * Whether `error` says the run's leader term is over: a {@link TermEndedError}, or the store's fencing check
 * refused a write-ahead (`STORE_LEASE_LOST`, `STORE_NOT_LEADER`).
 */
export function isTermEnd(error: unknown): boolean {
  return error instanceof TermEndedError || error instanceof LeaseLostError || error instanceof NotLeaderError;
}

/**
 * Whether work that started in a leader term must stop and leave what it did to the replica that leads now:
 * `error` says the term is over ({@link isTermEnd}), or `leading` (the run-term check, `CycleContext.leading`)
 * answers false. Without `leading` (SQLite, the run lock) only such an error counts. Reads the clock (through
 * `leading`).
 *
 * @param error what the work threw, or undefined to ask about the term alone
 */
export function termHasEnded(leading: (() => boolean) | undefined, error?: unknown): boolean {
  return isTermEnd(error) || (leading !== undefined && !leading());
}
