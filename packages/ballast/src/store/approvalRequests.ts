/**
 * Writing approval requests and their sign-offs (migration 15, `approval_requests` and `approval_signoffs`;
 * docs/approvals.md; the reads are in src/store/approvalReads.ts, re-exported here). At most one request per
 * asset and route is open (`pending` or `approved`) at a time (a partial unique index). Every status change goes through one function here, which calls
 * src/approvals/events.ts `onApprovalEvent` in the same transaction.
 */
import type { BoundEnds } from '../approvals/bound.ts';
import { APPROVAL_REQUEST_KIND, approvalMessage, type ApprovalHolding, type ApprovalRequestBody } from '../approvals/canonical.ts';
import { onApprovalEvent, STATUS_AFTER, type ApprovalEventKind, type ApprovalEventSink, type ApprovalStatus } from '../approvals/events.ts';
import type { FeeCaps } from '../policy/feePolicy.ts';
import { getApprovalRequest, type ApprovalRequest, type ApprovalRoute } from './approvalReads.ts';
import type { StoreDb } from './db.ts';
import { amountToText, checkMs } from './values.ts';

export {
  APPROVAL_REQUEST_ROW,
  APPROVAL_SIGNOFF_ROW,
  approvalsOfTransfers,
  countApprovalRequests,
  getApprovalRequest,
  listApprovalRequests,
  listApprovalRequestsSince,
  openRequestFor,
  type ApprovalRequest,
  type ApprovalRoute,
  type StoredSignOff,
} from './approvalReads.ts';

/** What a cycle records when a transfer above the threshold has no usable approval. `amountIn` origin base units. */
export interface NewApprovalRequest extends ApprovalRoute {
  /** The chain ids and addresses both ends resolve to: signed with the request (src/approvals/bound.ts). */
  bound: BoundEnds;
  cycleId: number;
  planId: number;
  quoteId?: number;
  amountIn: bigint;
  /** USD decimal string, or null when the quote gave none. */
  amountUsd: string | null;
  maxFees: FeeCaps;
  reason: string;
  /** Quorum in force when it was recorded (shown; the gate applies the quorum configured when it runs). */
  required: number;
  createdAtMs: number;
  expiresAtMs: number;
}

const OPEN = "status IN ('pending', 'approved')";

/**
 * Records a request (`pending`) and its canonical message, which names the new id; emits `needed`. Written
 * through `writeAhead`: on PostgreSQL only the leader lease's holder records one.
 *
 * @returns the request as stored
 * @throws NotLeaderError / LeaseLostError (PostgreSQL) when this process does not hold the lease: nothing is
 *   written; the engine's unique-constraint error when a request for the same asset and route is already open;
 *   StoreValueError on a negative amount or bad times
 */
export async function createApprovalRequest(db: StoreDb, r: NewApprovalRequest, sink?: ApprovalEventSink): Promise<ApprovalRequest> {
  checkMs(r.createdAtMs, 'createdAtMs');
  checkMs(r.expiresAtMs, 'expiresAtMs');
  const amountIn = amountToText(r.amountIn, 'amountIn');
  // Fenced like a write-ahead (docs/ha.md): a replica that lost the leader lease records no request.
  return db.writeAhead(async () => {
    const row = await db.get<{ id: number }>(
      `INSERT INTO approval_requests (cycle_id, plan_id, quote_id, asset, origin_chain, origin_wallet, origin_currency,
         destination_chain, destination_wallet, destination_currency, amount_in, amount_usd, max_fees_json, reason,
         message, required, status, created_at_ms, expires_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, 'pending', ?, ?) RETURNING id`,
      r.cycleId,
      r.planId,
      r.quoteId ?? null,
      r.asset,
      r.origin.chain,
      r.origin.wallet,
      r.origin.currency,
      r.destination.chain,
      r.destination.wallet,
      r.destination.currency,
      amountIn,
      r.amountUsd,
      JSON.stringify(r.maxFees),
      r.reason,
      r.required,
      r.createdAtMs,
      r.expiresAtMs,
    );
    const id = (row as { id: number }).id; // RETURNING always yields the inserted row
    const body: ApprovalRequestBody = {
      kind: APPROVAL_REQUEST_KIND,
      id,
      asset: r.asset,
      origin: { ...r.origin, ...r.bound.origin },
      destination: { ...r.destination, ...r.bound.destination },
      amountIn,
      amountUsd: r.amountUsd,
      maxFees: r.maxFees,
      reason: r.reason,
      createdAtMs: r.createdAtMs,
      expiresAtMs: r.expiresAtMs,
    };
    await db.run('UPDATE approval_requests SET message = ? WHERE id = ?', approvalMessage(body), id);
    const stored = (await getApprovalRequest(db, id))!; // just written
    await emit(
      db,
      stored,
      'needed',
      `${r.required} sign-off(s) needed until ${new Date(r.expiresAtMs).toISOString()}`,
      r.createdAtMs,
      sink,
    );
    return stored;
  });
}

/** Why a sign-off or a rejection was not recorded. */
export type ApprovalRefusalReason = 'missing' | 'not_pending' | 'expired' | 'already_signed';

/** The result of {@link recordSignOff}: recorded (and whether the quorum is now reached), or refused. */
export type SignOffResult =
  { ok: true; approvers: string[]; required: number; granted: boolean } | { ok: false; reason: ApprovalRefusalReason; detail: string };

/**
 * Records a sign-off whose signature the caller has verified against the approver's configured key. Refused
 * unless the request is `pending`, not expired at `nowMs`, and not yet signed by this approver. When the
 * distinct approvers reach `required`, the request becomes `approved` (event `granted`).
 */
export async function recordSignOff(
  db: StoreDb,
  s: { requestId: number; approver: string; signature: string; required: number; nowMs: number },
  sink?: ApprovalEventSink,
): Promise<SignOffResult> {
  checkMs(s.nowMs, 'nowMs');
  return db.transaction(async () => {
    const refusal = await refusalFor(db, s.requestId, s.nowMs);
    if (refusal) return refusal;
    const request = (await getApprovalRequest(db, s.requestId))!; // refusalFor found it
    if (request.signOffs.some((o) => o.approver === s.approver)) {
      return { ok: false, reason: 'already_signed', detail: `${s.approver} has already signed request ${s.requestId}` };
    }
    await db.run(
      'INSERT INTO approval_signoffs (request_id, approver, signature, recorded_at_ms) VALUES (?, ?, ?, ?)',
      s.requestId,
      s.approver,
      s.signature,
      s.nowMs,
    );
    const approvers = [...new Set([...request.signOffs.map((o) => o.approver), s.approver])].sort();
    const granted = approvers.length >= s.required;
    if (granted) await transition(db, request, 'granted', { detail: `approved by ${approvers.join(', ')}`, nowMs: s.nowMs }, sink);
    return { ok: true, approvers, required: s.required, granted };
  });
}

/**
 * Rejects an open request (`rejected`): needs no signature, since it can only stop a transfer.
 *
 * @returns ok, or why not (missing, already closed)
 */
export async function rejectRequest(
  db: StoreDb,
  r: { requestId: number; reason: string; by?: string; nowMs: number },
  sink?: ApprovalEventSink,
): Promise<{ ok: true } | { ok: false; reason: ApprovalRefusalReason; detail: string }> {
  checkMs(r.nowMs, 'nowMs');
  return db.transaction(async () => {
    const request = await getApprovalRequest(db, r.requestId);
    if (!request) return { ok: false, reason: 'missing', detail: `no approval request ${r.requestId}` };
    if (request.status !== 'pending' && request.status !== 'approved') {
      return { ok: false, reason: 'not_pending', detail: `approval request ${r.requestId} is already ${request.status}` };
    }
    await transition(db, request, 'rejected', { detail: r.reason, nowMs: r.nowMs, ...(r.by ? { by: r.by } : {}) }, sink);
    return { ok: true };
  });
}

/**
 * Closes an open request as `expired` or `not_needed` with its reason; a request closed meanwhile is left alone.
 * Written through `writeAhead`: on PostgreSQL only the leader lease's holder closes one (a human's `reject` and
 * sign-offs are not fenced: they come from the CLI, and a rejection can only stop a transfer).
 *
 * @returns whether it was closed by this call
 * @throws NotLeaderError / LeaseLostError (PostgreSQL) when this process does not hold the lease: nothing changes
 */
export async function closeRequest(
  db: StoreDb,
  requestId: number,
  kind: 'expired' | 'not_needed',
  detail: string,
  nowMs: number,
  sink?: ApprovalEventSink,
): Promise<boolean> {
  checkMs(nowMs, 'nowMs');
  // Fenced like a write-ahead (docs/ha.md): a replica that lost the leader lease closes no request.
  return db.writeAhead(async () => {
    const request = await getApprovalRequest(db, requestId);
    if (!request || (request.status !== 'pending' && request.status !== 'approved')) return false;
    await transition(db, request, kind, { detail, nowMs }, sink);
    return true;
  });
}

/**
 * Closes a request `executed` with the transfer written ahead for it. Called inside the write-ahead transaction
 * that records the transfer (src/store/transfers.ts `createTransfer`), so the transfer row and the close commit
 * together or not at all: one approval is good for one transfer.
 *
 * @throws Error when the request is no longer open or has expired at `nowMs`: the write-ahead is then rolled
 *   back and nothing is signed for it
 */
export async function executeRequest(
  db: StoreDb,
  requestId: number,
  transferId: number,
  nowMs: number,
  sink?: ApprovalEventSink,
): Promise<void> {
  checkMs(nowMs, 'nowMs');
  const request = await getApprovalRequest(db, requestId);
  const refusal = await refusalFor(db, requestId, nowMs, true);
  if (!request || refusal) throw new Error(`approval request ${requestId} cannot be used: ${refusal?.detail ?? 'missing'}`);
  await transition(db, request, 'executed', { detail: `transfer ${transferId}`, nowMs, transferId }, sink);
}

/** Why a request cannot take a sign-off (or be executed) now, or undefined when it can. */
async function refusalFor(
  db: StoreDb,
  requestId: number,
  nowMs: number,
  forExecution = false,
): Promise<{ ok: false; reason: ApprovalRefusalReason; detail: string } | undefined> {
  const row = await db.get<{ status: string; expires_at_ms: number }>(
    `SELECT status, expires_at_ms FROM approval_requests WHERE id = ?${db.forUpdate}`,
    requestId,
  );
  if (!row) return { ok: false, reason: 'missing', detail: `no approval request ${requestId}` };
  // A sign-off needs a pending request; execution an open one (the gate has just verified its quorum).
  const wanted = forExecution ? ['pending', 'approved'] : ['pending'];
  if (!wanted.includes(row.status)) {
    return { ok: false, reason: 'not_pending', detail: `approval request ${requestId} is ${row.status}, not pending` };
  }
  if (nowMs >= Number(row.expires_at_ms)) {
    return {
      ok: false,
      reason: 'expired',
      detail: `approval request ${requestId} expired at ${new Date(Number(row.expires_at_ms)).toISOString()}`,
    };
  }
  return undefined;
}

/** The one place a request's status changes: writes it and emits the event, in the caller's transaction. */
async function transition(
  db: StoreDb,
  request: ApprovalRequest,
  kind: Exclude<ApprovalEventKind, 'needed'>,
  at: { detail: string; nowMs: number; by?: string; transferId?: number },
  sink?: ApprovalEventSink,
): Promise<void> {
  const status = STATUS_AFTER[kind];
  const closes = status !== 'approved';
  const changed = await db.run(
    `UPDATE approval_requests SET status = ?, closed_at_ms = ?, closed_by = ?, close_detail = ?, transfer_id = ?
      WHERE id = ? AND ${OPEN}`,
    status,
    closes ? at.nowMs : null,
    at.by ?? null,
    at.detail,
    at.transferId ?? null,
    request.id,
  );
  if (changed.changes !== 1) throw new Error(`approval request ${request.id} is no longer open`);
  await emit(db, request, kind, at.detail, at.nowMs, sink);
}

async function emit(
  db: StoreDb,
  request: ApprovalRequest,
  kind: ApprovalEventKind,
  detail: string,
  atMs: number,
  sink: ApprovalEventSink | undefined,
): Promise<void> {
  await onApprovalEvent(
    db,
    {
      kind,
      requestId: request.id,
      asset: request.asset,
      originChain: request.origin.chain,
      destinationChain: request.destination.chain,
      amountIn: request.amountIn,
      detail,
      atMs,
    },
    sink,
  );
}
