/**
 * An attempt the end of the run's leader term interrupted (PostgreSQL store with a leader lease, docs/ha.md): the
 * replica that leads now carries the transfer on. Not a failure: the attempt is `handed_over` (an `ok` outcome
 * class), logged once at warn, and no row says otherwise (the executor writes no `origin_failed` once the term has
 * ended, src/executor/termEnded.ts).
 */
import type { Logger } from 'pino';
import { handedOverAttempt, type HandedOverAttempt, type QuotedAttempt } from './transferAttempt.ts';

/** What the interrupted execution left: the transfer row written ahead, if any, and what stopped it. */
export interface HandOver {
  /** The transfer row written ahead in the ended term, or null when none was (then nothing was sent). */
  transferId: number | null;
  /** Origin transactions sent and recorded as sent, in order. */
  originTxHashes: readonly string[];
  /** What stopped the work, in one line (kept in the log line and the attempt's `error`). */
  detail: string;
}

/**
 * Reports an attempt as handed over to the replica that leads now: one warn line
 * ("term ended; transfer N is left to the replica that leads now (nothing lost)") and the attempt.
 *
 * @param attempt the attempt that passed every check and went to execution (or was about to)
 * @param left what the execution left (see {@link HandOver})
 * @param log the pipeline's logger for this transfer
 */
export function handOver(attempt: QuotedAttempt, left: HandOver, log: Logger): HandedOverAttempt {
  const line =
    left.transferId === null
      ? 'term ended before a transfer was written ahead; nothing was signed or broadcast, and the replica that leads now plans it afresh (nothing lost)'
      : `term ended; transfer ${left.transferId} is left to the replica that leads now (nothing lost)`;
  log.warn({ requestId: attempt.requestId, transferId: left.transferId, detail: left.detail }, line);
  return handedOverAttempt(attempt, {
    ...(left.transferId === null ? {} : { transferId: left.transferId }),
    originTxHashes: left.originTxHashes,
    error: `${line}: ${left.detail}`,
  });
}
