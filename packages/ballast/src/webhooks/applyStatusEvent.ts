/**
 * Applies a verified `request.status.updated` event (docs/relay-contract.md "Events" → "Webhooks") to the transfer it is
 * about, through the same function as a status polled by the next cycle (src/executor/applyRequestStatus.ts):
 * - the transfer is found by its request id; an event for a request that is not ours changes nothing;
 * - ownership: an event naming origin transactions (`inTxHashes`) none of which is our deposit is not written
 *   (src/executor/statusOwnership.ts);
 * - the Relay status and fill hashes are stored (`setRelayStatus`); a terminal status that names our deposit
 *   closes a `deposited` transfer (`transitionTransfer deposited → success | failure | refund`, with the
 *   reasons). A transfer not yet `deposited` only gets the status stored: its origin transactions belong to the
 *   executor and reconciliation;
 * - a final transfer is never touched again, and a non-final event older (`data.updatedAt`) than one already
 *   applied for the request is skipped, so redeliveries and late retries cannot move a transfer back.
 */
import { isTerminalRequestStatus, type IntentStatus } from '@ballast/protocol/relay/schemas.ts';
import { applyRequestStatus } from '../executor/applyRequestStatus.ts';
import type { StoreDb } from '../store/db.ts';
import { transferByRequestId } from '../store/requestStatus.ts';
import type { TransferRow } from '../store/transfers.ts';

export { transferByRequestId } from '../store/requestStatus.ts';

/** What applying an event did; also the `result` label of `ballast_webhooks_received_total`. */
export const APPLY_RESULTS = ['closed', 'recorded', 'unchanged', 'already_final', 'out_of_order', 'foreign_deposit', 'not_ours'] as const;
/** One of {@link APPLY_RESULTS}. */
export type ApplyResult = (typeof APPLY_RESULTS)[number];

/** Outcome of {@link applyStatusEvent}. */
export interface ApplyOutcome {
  result: ApplyResult;
  /** The transfer the event is about, when it is ours. */
  transferId?: number;
  /** The transfer's status after the event. */
  transferStatus?: TransferRow['status'];
  /** The transfer as read before the event was applied. */
  row?: TransferRow;
}

/** Most request ids whose last applied `updatedAt` is remembered (oldest forgotten first). */
const MAX_REMEMBERED = 10_000;

/** Remembers, per request, the `updatedAt` (ms) of the last event applied, to skip older ones. */
export class AppliedEvents {
  readonly #updatedAt = new Map<string, number>();

  /** Whether a non-final event at `updatedAtMs` is older than one already applied for `requestId`. */
  isOlder(requestId: string, updatedAtMs: number | undefined): boolean {
    const last = this.#updatedAt.get(requestId.toLowerCase());
    return last !== undefined && updatedAtMs !== undefined && updatedAtMs < last;
  }

  /** Records an applied event. */
  note(requestId: string, updatedAtMs: number | undefined): void {
    if (updatedAtMs === undefined) return;
    const key = requestId.toLowerCase();
    this.#updatedAt.delete(key);
    this.#updatedAt.set(key, Math.max(updatedAtMs, this.#updatedAt.get(key) ?? 0));
    if (this.#updatedAt.size > MAX_REMEMBERED) this.#updatedAt.delete(this.#updatedAt.keys().next().value!);
  }

  /** Forgets a request (its transfer is final: later events are refused by its status). */
  forget(requestId: string): void {
    this.#updatedAt.delete(requestId.toLowerCase());
  }
}

/**
 * Applies one event's status to our transfer. Call it inside `db.transaction` (the receiver does), so the read
 * of the transfer and the writes it decides are one transaction.
 *
 * @param db the Ballast store
 * @param requestId `data.requestId` of the event
 * @param status the event's data as a status record (`statusFromEvent`)
 * @param nowMs the current time, ms (written with the change)
 * @param applied per-request memory of applied events
 * @returns a Promise of what was done
 * @throws store errors when the database cannot be written; nothing is half-written
 */
export async function applyStatusEvent(
  db: StoreDb,
  requestId: string,
  status: IntentStatus,
  nowMs: number,
  applied: AppliedEvents,
): Promise<ApplyOutcome> {
  const row = await transferByRequestId(db, requestId);
  if (!row) return { result: 'not_ours' };
  const at = { transferId: row.id, transferStatus: row.status, row };
  if (row.status !== 'prepared' && row.status !== 'broadcast' && row.status !== 'deposited') {
    applied.forget(requestId);
    return { result: 'already_final', ...at };
  }
  const terminal = isTerminalRequestStatus(status.status);
  if (!terminal && applied.isOlder(requestId, status.updatedAt)) return { result: 'out_of_order', ...at };
  if (!terminal && row.relayStatus === status.status && sameList(row.outTxHashes, status.txHashes)) return { result: 'unchanged', ...at };
  const done = await applyRequestStatus(db, row, status, { nowMs, closedBy: 'closed by webhook' });
  if (done === 'foreign_deposit') return { result: 'foreign_deposit', ...at };
  if (done === 'already_final') {
    applied.forget(requestId);
    return { result: 'already_final', ...at };
  }
  applied.note(requestId, status.updatedAt);
  if (done !== 'closed') return { result: 'recorded', ...at }; // stored; a terminal status naming no deposit does not close
  applied.forget(requestId);
  return { result: 'closed', transferId: row.id, transferStatus: status.status as 'success' | 'failure' | 'refund', row }; // closed: terminal
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
