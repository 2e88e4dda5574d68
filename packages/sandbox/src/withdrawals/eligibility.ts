/**
 * Whether a deposit can be withdrawn by its depositor (docs/relay-contract.md "Request record" `protocol.isWithdrawable`,
 * "Withdrawal endpoints" eligibility check; "What the service does" 5): the request ended `failure` with the
 * deposit still in the depository, or the deposit was never filled and either its order's output deadline has
 * passed or the sandbox fault `unfilledWithdrawableAfterMs` has elapsed since it was seen. Never once it was
 * attested for withdrawal (it is hub balance then), filled, refunded, or while the solver is acting on it.
 * Pure: the clock is passed in.
 */
import type { RequestRecord } from '../api/requestStore.ts';

/** The verdict, with the reason a deposit is not withdrawable (for 400 answers of attest-deposit). */
export type Withdrawability = { withdrawable: true } | { withdrawable: false; reason: string };

const no = (reason: string): Withdrawability => ({ withdrawable: false, reason });

/**
 * Judges one request record's deposit.
 *
 * @param nowMs current time, unix ms; null judges without a clock (only a `failure` makes it withdrawable)
 * @param unfilledAfterMs the `unfilledWithdrawableAfterMs` fault (null: off)
 */
export function depositWithdrawability(r: RequestRecord, nowMs: number | null, unfilledAfterMs: number | null): Withdrawability {
  if (r.deposit === null) return no('no deposit was observed for this request');
  if (r.depositClaim === 'withdrawal') return no('the deposit was already attested for withdrawal (it is hub balance)');
  if (r.status === 'failure') return { withdrawable: true };
  if (r.status === 'success') return no('the deposit was filled');
  if (r.status === 'refund') return no('the deposit was refunded');
  if (r.status === 'submitted' || r.depositClaim === 'solver' || r.outTxs.length > 0)
    return no('the solver is filling or refunding the deposit');
  if (nowMs === null) return no('the deposit is waiting for its fill');
  if (r.order !== null && nowMs > r.order.deadlineSec * 1000) return { withdrawable: true };
  if (unfilledAfterMs !== null && r.depositSeenAtMs !== null && nowMs - r.depositSeenAtMs >= unfilledAfterMs) return { withdrawable: true };
  return no('the deposit is waiting for its fill; it becomes withdrawable once its order deadline has passed unfilled');
}
