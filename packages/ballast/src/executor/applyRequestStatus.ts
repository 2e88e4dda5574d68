/**
 * Applies one request status (polled by the next cycle, or pushed by a webhook) to our in-flight transfer, with
 * the ownership check every status gets (src/executor/statusOwnership.ts): a status naming other origin
 * transactions is never written, and a terminal status closes a `deposited` transfer only when it names our
 * deposit. Status and transition are written in one transaction; a transfer already final (closed meanwhile by
 * another path) is left untouched rather than raising a transition conflict. A fill blocked by address screening
 * (`failReason` `BLOCKED_WALLET`) also pauses the transfer's wallets in the same transaction (screeningBlock.ts).
 */
import type { StoreDb } from '../store/db.ts';
import { isTerminalRequestStatus, type IntentStatus } from '@ballast/protocol/relay/schemas.ts';
import { depositTxOf } from '../store/transferRows.ts';
import { IN_FLIGHT_STATUSES } from '../store/transferStatus.ts';
import { lockTransferStatus } from '../store/requestStatus.ts';
import { setRelayStatus, transitionTransfer, type TransferRow } from '../store/transfers.ts';
import { statusIsForeign, statusNamesDeposit, statusReasons } from './statusOwnership.ts';
import { recordFillScreeningBlock } from './screeningBlock.ts';

/** What {@link applyRequestStatus} did. */
export type ApplyStatusResult =
  | 'closed' // terminal, names our deposit: the transfer moved deposited → success | failure | refund
  | 'recorded' // the Relay status and fill hashes were stored; the transfer stays in flight
  | 'foreign_deposit' // names other origin transactions: nothing written
  | 'terminal_not_ours' // terminal but does not name our deposit: status stored, transfer not closed
  | 'already_final'; // the transfer is no longer in flight: nothing written

/**
 * @param row the transfer as read (its deposit: `depositTxOf`, src/store/transferRows.ts)
 * @param opts.closedBy text put first in the transition's detail, e.g. `closed by webhook`
 * @returns a Promise of what was done
 * @throws store errors when the database cannot be written; nothing is half-written
 */
export async function applyRequestStatus(
  db: StoreDb,
  row: TransferRow,
  status: IntentStatus,
  opts: { nowMs: number; closedBy: string },
): Promise<ApplyStatusResult> {
  const deposit = depositTxOf(row)?.txHash;
  if (deposit && statusIsForeign(status, deposit)) return 'foreign_deposit';
  return await db.transaction(async (): Promise<ApplyStatusResult> => {
    // Locked (PostgreSQL) until the end of the transaction: a concurrent close waits, then finds it final.
    const current = await lockTransferStatus(db, row.id);
    if (!current || !IN_FLIGHT_STATUSES.includes(current)) return 'already_final';
    await setRelayStatus(db, row.id, status.status, { nowMs: opts.nowMs, outTxHashes: status.txHashes });
    if (!isTerminalRequestStatus(status.status)) return 'recorded';
    if (!deposit || !statusNamesDeposit(status, deposit)) return 'terminal_not_ours';
    if (current !== 'deposited') return 'recorded'; // origin transactions still belong to the executor and reconciliation
    await transitionTransfer(db, row.id, 'deposited', status.status, {
      nowMs: opts.nowMs,
      relayStatus: status.status,
      detail: [opts.closedBy, status.txHashes.join(','), statusReasons(status)].filter(Boolean).join('; '),
    });
    await recordFillScreeningBlock(db, row, status, opts.nowMs);
    return 'closed';
  });
}
