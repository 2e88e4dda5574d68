/**
 * Approval request transitions as events: the one place every change of an approval request's status passes
 * through (docs/approvals.md "Lifecycle"). The store (src/store/approvalRequests.ts) calls
 * {@link onApprovalEvent} inside the same transaction that writes the change, whichever process made it (a
 * cycle, or `ballast approve` / `ballast reject`), so anything attached here (a notification queued in the same
 * store) is written exactly when the change is.
 */
import type { StoreDb } from '../store/db.ts';

/** Statuses of an approval request. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'executed', 'expired', 'rejected', 'not_needed'] as const;
/** A status of an approval request: `pending` and `approved` are open, the others closed. */
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * What happened to a request: `needed` (recorded, awaiting sign-offs), `granted` (quorum reached), `expired`,
 * `rejected`, `not_needed` (the planner no longer plans its route, or the caps in force became looser), `executed`
 * (a transfer within it was written ahead of signing).
 */
export type ApprovalEventKind = 'needed' | 'granted' | 'expired' | 'rejected' | 'not_needed' | 'executed';

/** One transition of one request. */
export interface ApprovalEvent {
  kind: ApprovalEventKind;
  requestId: number;
  asset: string;
  originChain: string;
  destinationChain: string;
  /** Origin base units, as requested. */
  amountIn: bigint;
  /** One line: who approved or rejected, why it closed, the transfer id. */
  detail: string;
  atMs: number;
}

/** The status a request has after an event. */
export const STATUS_AFTER: Readonly<Record<ApprovalEventKind, ApprovalStatus>> = {
  needed: 'pending',
  granted: 'approved',
  expired: 'expired',
  rejected: 'rejected',
  not_needed: 'not_needed',
  executed: 'executed',
};

/**
 * Where a transition's side effects go: called once per transition, inside the store transaction that writes it
 * (a notification queued in `db` commits or rolls back with the change).
 */
export type ApprovalEventSink = (db: StoreDb, event: ApprovalEvent) => Promise<void>;

/**
 * Called once per transition, inside the store transaction that writes it: hands the event to `sink` (nothing
 * happens without one).
 *
 * @throws whatever the sink throws: the transition is then rolled back with it
 */
export async function onApprovalEvent(db: StoreDb, event: ApprovalEvent, sink?: ApprovalEventSink): Promise<void> {
  if (sink) await sink(db, event);
}
