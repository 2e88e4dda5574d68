/**
 * Which transfers a withdrawal pass looks at (docs/withdrawals.md). Pure.
 *
 * - a transfer whose withdrawal is under way (not `executed` or `failed`): resumed, whatever else holds;
 * - a `failure` not yet resolved (its deposit sits in the depository and its route is paused): checked at once;
 * - a `deposited` transfer unfilled for at least `withdrawals.unfilledAfterSec` since its deposit: checked.
 *
 * A transfer whose withdrawal ended (`executed`, or `failed` until an operator reopens it) is not looked at again.
 * The service decides whether a deposit is withdrawable (`protocol.isWithdrawable`); this only bounds who asks.
 */
import type { TransferRow } from '../store/transferRows.ts';
import type { WithdrawalRow } from '../store/withdrawals.ts';

/** A transfer to look at and why. */
export interface Candidate {
  transfer: TransferRow;
  withdrawal: WithdrawalRow | undefined;
  why: 'resume' | 'failure' | 'unfilled';
}

/** When a `deposited` transfer's deposit was recorded (its last move into `deposited`), else its creation. */
export function depositedSinceMs(row: TransferRow): number {
  const entered = [...row.events].reverse().find((e) => e.toStatus === 'deposited' && e.fromStatus !== 'deposited');
  return entered ? entered.atMs : row.createdAtMs;
}

/**
 * Picks the transfers of one pass, each once, in transfer id order.
 *
 * @param transfers transfers in flight and unresolved failures (others are ignored)
 * @param withdrawals withdrawal rows by transfer id
 * @param nowMs current time, unix ms
 * @param unfilledAfterSec `withdrawals.unfilledAfterSec`
 */
export function selectCandidates(
  transfers: readonly TransferRow[],
  withdrawals: ReadonlyMap<number, WithdrawalRow>,
  nowMs: number,
  unfilledAfterSec: number,
): Candidate[] {
  const out = new Map<number, Candidate>();
  for (const t of transfers) {
    const w = withdrawals.get(t.id);
    if (w && w.state !== 'executed' && w.state !== 'failed') {
      out.set(t.id, { transfer: t, withdrawal: w, why: 'resume' });
      continue;
    }
    if (w) continue;
    if (t.status === 'failure' && t.resolvedAtMs === null && t.requestId !== null) {
      out.set(t.id, { transfer: t, withdrawal: undefined, why: 'failure' });
    } else if (t.status === 'deposited' && t.requestId !== null && nowMs - depositedSinceMs(t) >= unfilledAfterSec * 1000) {
      out.set(t.id, { transfer: t, withdrawal: undefined, why: 'unfilled' });
    }
  }
  return [...out.values()].sort((a, b) => a.transfer.id - b.transfer.id);
}
