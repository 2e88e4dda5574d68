/**
 * The "notes" of `ballast history`: why a transfer is stalled, failed, refunded, withdrawn or being withdrawn,
 * and the cancels of a Bitcoin deposit, from its row, its events and its withdrawal (src/store/withdrawals.ts). Pure.
 */
import { formatUnits } from 'viem';
import type { TransferRow } from '../store/transferRows.ts';
import { openRemainder } from '../store/withdrawalAmounts.ts';
import type { WithdrawalRow } from '../store/withdrawals.ts';

/** How a stall event's detail starts (src/store/transfers.ts `markTransferStalled`). */
const STALLED_PREFIX = 'stalled: ';

/** The detail of the event that moved the transfer into its current status, when there is one. */
function enteredDetail(row: TransferRow): string | null {
  const e = [...row.events].reverse().find((x) => x.toStatus === row.status && x.fromStatus !== row.status);
  return e?.detail ?? null;
}

/** What the refund follow-up (src/cycle/followRefund.ts) recorded of a `refund`. */
function refundNotes(row: TransferRow, inUnits: (amount: bigint) => string): string[] {
  const r = row.refund;
  if (!r) return ['refund not followed up yet (amount unknown)'];
  if (r.failReason !== null) {
    return [
      `refund NOT paid (refundFailReason ${r.failReason}): the deposit awaits manual recovery`,
      row.resolvedAtMs === null ? 'route paused until resolved (`ballast resume`)' : `resolved: ${row.resolution ?? ''}`,
    ];
  }
  const amount = r.amount === null ? 'amount unknown' : inUnits(r.amount);
  return [`refunded to ${row.user} on ${row.originChain}: ${amount}${r.txHash ? ` in ${r.txHash}` : ''}`];
}

/**
 * One line per fact worth an operator's attention, e.g. `stalled since 2025-01-01T00:00:00.000Z`,
 * `failed: solver failed; route paused until resolved`, `withdrawn: job 7, transaction 0x…`.
 *
 * @param row the transfer with its events
 * @param withdrawal its withdrawal, if one was started or refused
 * @param decimalsIn decimals of its input currency, to show a refund and a withdrawal in whole units with the asset
 *   symbol (`99.5 USDC`); null or absent: base units, said as such (`99500000 base units of 0x…`)
 */
export function transferNotes(row: TransferRow, withdrawal: WithdrawalRow | undefined, decimalsIn: number | null = null): string[] {
  const inUnits = (amount: bigint): string =>
    decimalsIn === null ? `${amount} base units of ${row.originCurrency}` : `${formatUnits(amount, decimalsIn)} ${row.asset}`;
  const notes: string[] = [];
  if (row.stalledAtMs !== null) {
    // The latest reason it was flagged (a Bitcoin cancel at its cap adds one to an older time-based flag).
    const why = [...row.events]
      .reverse()
      .find((e) => e.detail?.startsWith(STALLED_PREFIX))
      ?.detail?.slice(STALLED_PREFIX.length);
    notes.push(`stalled since ${new Date(row.stalledAtMs).toISOString()}${why ? `: ${why}` : ''}`);
  }
  const cancel = row.cancels.at(-1);
  if (cancel) notes.push(`deposit cancelled: ${row.cancels.length} cancel(s) signed, the last ${cancel.txHash} (${cancel.status})`);
  const entered = enteredDetail(row);
  switch (row.status) {
    case 'failure':
      notes.push(`failed: ${entered ?? row.relayStatus ?? 'the request ended in failure'}`);
      if (row.refund?.failReason) notes.push(`not refunded automatically (refundFailReason ${row.refund.failReason})`);
      notes.push(
        row.resolvedAtMs === null ? 'deposit still in the depository; route paused until resolved' : `resolved: ${row.resolution ?? ''}`,
      );
      break;
    case 'refund':
      notes.push(`refunded: ${entered ?? 'the service refunded the deposit'}`);
      notes.push(...refundNotes(row, inUnits));
      break;
    case 'origin_failed':
      notes.push(`origin failed: ${row.error ?? entered ?? ''}`);
      break;
    case 'withdrawn':
      notes.push(row.resolution ?? `withdrawn: ${entered ?? ''}`);
      break;
    default:
      break;
  }
  if (withdrawal && withdrawal.state !== 'executed') {
    const job = withdrawal.jobId !== null ? ` (job ${withdrawal.jobId}${withdrawal.jobStatus ? ` ${withdrawal.jobStatus}` : ''})` : '';
    notes.push(`withdrawal ${withdrawal.state}${job}${withdrawal.reason ? `: ${withdrawal.reason}` : ''}`);
    const open = withdrawal.receivedAmount > 0n ? openRemainder(withdrawal) : 0n;
    if (open > 0n) {
      const [back, of, left] = [withdrawal.receivedAmount, withdrawal.amount, open].map(decimalsIn === null ? String : inUnits);
      notes.push(`withdrawal came back short: ${back} of ${of} back, ${left} still open in the hub`);
    }
  }
  return notes;
}
