/**
 * Reading approval requests and their sign-offs (migration 15, `approval_requests`, `approval_signoffs`;
 * docs/approvals.md): the shapes, the row types tied to the schema, and the queries of the CLI, the gate and the
 * metrics. The writes are in src/store/approvalRequests.ts.
 */
import type { ApprovalHolding } from '../approvals/canonical.ts';
import type { ApprovalStatus } from '../approvals/events.ts';
import type { FeeCaps } from '../policy/feePolicy.ts';
import { inList, type StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { textToAmount } from './values.ts';

const OPEN = "status IN ('pending', 'approved')";

/** The route an approval request is for: asset, origin and destination holdings. */
export interface ApprovalRoute {
  asset: string;
  origin: ApprovalHolding;
  destination: ApprovalHolding;
}

/** One sign-off as stored. */
export interface StoredSignOff {
  approver: string;
  signature: string;
  recordedAtMs: number;
}

/** An approval request as read, with its sign-offs in the order recorded. */
export interface ApprovalRequest extends ApprovalRoute {
  id: number;
  cycleId: number;
  planId: number;
  quoteId: number | null;
  amountIn: bigint;
  amountUsd: string | null;
  maxFees: FeeCaps;
  reason: string;
  /** The canonical JSON approvers sign (src/approvals/canonical.ts). */
  message: string;
  required: number;
  status: ApprovalStatus;
  createdAtMs: number;
  expiresAtMs: number;
  closedAtMs: number | null;
  closedBy: string | null;
  closeDetail: string | null;
  transferId: number | null;
  signOffs: StoredSignOff[];
}

/**
 * An `approval_requests` row as read (`SELECT *`). Query results are cast to it unchecked; {@link APPROVAL_REQUEST_ROW}
 * ties it to the migrated schema of both engines (test/unit/store/rowTypes.test.ts).
 */
interface ApprovalRequestDbRow {
  id: number;
  cycle_id: number;
  plan_id: number;
  quote_id: number | null;
  asset: string;
  origin_chain: string;
  origin_wallet: string;
  origin_currency: string;
  destination_chain: string;
  destination_wallet: string;
  destination_currency: string;
  amount_in: string;
  amount_usd: string | null;
  max_fees_json: string;
  reason: string;
  message: string;
  required: number;
  status: string;
  created_at_ms: number;
  expires_at_ms: number;
  closed_at_ms: number | null;
  closed_by: string | null;
  close_detail: string | null;
  transfer_id: number | null;
}

/** Columns of {@link ApprovalRequestDbRow}: every column of `approval_requests`. */
export const APPROVAL_REQUEST_ROW = rowShape<ApprovalRequestDbRow>({
  name: 'ApprovalRequestDbRow',
  table: 'approval_requests',
  allColumns: true,
  columns: {
    id: 'integer',
    cycle_id: 'integer',
    plan_id: 'integer',
    quote_id: 'integer?',
    asset: 'text',
    origin_chain: 'text',
    origin_wallet: 'text',
    origin_currency: 'text',
    destination_chain: 'text',
    destination_wallet: 'text',
    destination_currency: 'text',
    amount_in: 'text',
    amount_usd: 'text?',
    max_fees_json: 'text',
    reason: 'text',
    message: 'text',
    required: 'integer',
    status: 'text',
    created_at_ms: 'integer',
    expires_at_ms: 'integer',
    closed_at_ms: 'integer?',
    closed_by: 'text?',
    close_detail: 'text?',
    transfer_id: 'integer?',
  },
});

/** An `approval_signoffs` row as read (`SELECT *`). */
interface SignOffDbRow {
  id: number;
  request_id: number;
  approver: string;
  signature: string;
  recorded_at_ms: number;
}

/** Columns of {@link SignOffDbRow}: every column of `approval_signoffs`. */
export const APPROVAL_SIGNOFF_ROW = rowShape<SignOffDbRow>({
  name: 'SignOffDbRow',
  table: 'approval_signoffs',
  allColumns: true,
  columns: { id: 'integer', request_id: 'integer', approver: 'text', signature: 'text', recorded_at_ms: 'integer' },
});

/** The request with id `id` and its sign-offs, or undefined. */
export async function getApprovalRequest(db: StoreDb, id: number): Promise<ApprovalRequest | undefined> {
  const row = await db.get<ApprovalRequestDbRow>('SELECT * FROM approval_requests WHERE id = ?', id); // columns checked by APPROVAL_REQUEST_ROW
  if (!row) return undefined;
  return toRequest(row, await signOffsOf(db, [id]));
}

/**
 * Requests, newest first: only the open ones (`pending`, `approved`) unless `all`, at most `limit`.
 */
export async function listApprovalRequests(db: StoreDb, opts: { all?: boolean; limit?: number } = {}): Promise<ApprovalRequest[]> {
  const rows = await db.all<ApprovalRequestDbRow>(
    `SELECT * FROM approval_requests${opts.all ? '' : ` WHERE ${OPEN}`} ORDER BY id DESC LIMIT ?`,
    opts.limit ?? 1000,
  );
  return await withSignOffs(db, rows);
}

/** Requests created at or after `sinceMs`, oldest first, with their sign-offs (for `ballast report`). */
export async function listApprovalRequestsSince(db: StoreDb, sinceMs: number): Promise<ApprovalRequest[]> {
  const rows = await db.all<ApprovalRequestDbRow>('SELECT * FROM approval_requests WHERE created_at_ms >= ? ORDER BY id', sinceMs);
  return await withSignOffs(db, rows);
}

/** The executed request of each transfer that has one, by transfer id (for `ballast history`). */
export async function approvalsOfTransfers(db: StoreDb, transferIds: readonly number[]): Promise<Map<number, ApprovalRequest>> {
  if (transferIds.length === 0) return new Map();
  const rows = await db.all<ApprovalRequestDbRow>(
    `SELECT * FROM approval_requests WHERE transfer_id IN ${inList(transferIds)}`,
    ...transferIds,
  );
  const requests = await withSignOffs(db, rows);
  return new Map(requests.map((r) => [r.transferId!, r])); // selected by transfer_id
}

/** The open request for an asset and route, or undefined. */
export async function openRequestFor(db: StoreDb, route: ApprovalRoute): Promise<ApprovalRequest | undefined> {
  const row = await db.get<ApprovalRequestDbRow>(
    `SELECT * FROM approval_requests WHERE ${OPEN} AND asset = ? AND origin_chain = ? AND origin_wallet = ? AND origin_currency = ?
       AND destination_chain = ? AND destination_wallet = ? AND destination_currency = ?`,
    route.asset,
    route.origin.chain,
    route.origin.wallet,
    route.origin.currency,
    route.destination.chain,
    route.destination.wallet,
    route.destination.currency,
  );
  return row ? toRequest(row, await signOffsOf(db, [row.id])) : undefined;
}

/** Requests per status (for `ballast_approval_requests{status}`). */
export async function countApprovalRequests(db: StoreDb): Promise<Map<ApprovalStatus, number>> {
  const rows = await db.all<{ status: ApprovalStatus; n: number }>('SELECT status, COUNT(*) AS n FROM approval_requests GROUP BY status');
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/** The sign-off rows of the requests `ids` (not empty), in the order recorded. */
/** Request rows as requests, with their sign-offs read in one query (none for no rows). */
async function withSignOffs(db: StoreDb, rows: readonly ApprovalRequestDbRow[]): Promise<ApprovalRequest[]> {
  if (rows.length === 0) return [];
  const signOffs = await signOffsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toRequest(r, signOffs));
}

async function signOffsOf(db: StoreDb, ids: number[]): Promise<SignOffDbRow[]> {
  return db.all<SignOffDbRow>(`SELECT * FROM approval_signoffs WHERE request_id IN ${inList(ids)} ORDER BY id`, ...ids); // columns checked by APPROVAL_SIGNOFF_ROW
}

/** A request row and its sign-offs (from {@link signOffsOf}) as read. */
function toRequest(r: ApprovalRequestDbRow, signOffs: readonly SignOffDbRow[]): ApprovalRequest {
  return {
    id: r.id,
    cycleId: r.cycle_id,
    planId: r.plan_id,
    quoteId: r.quote_id,
    asset: r.asset,
    origin: { chain: r.origin_chain, wallet: r.origin_wallet, currency: r.origin_currency },
    destination: { chain: r.destination_chain, wallet: r.destination_wallet, currency: r.destination_currency },
    amountIn: textToAmount(r.amount_in, 'amount_in'),
    amountUsd: r.amount_usd,
    maxFees: JSON.parse(r.max_fees_json) as FeeCaps, // written by createApprovalRequest
    reason: r.reason,
    message: r.message,
    required: r.required,
    status: r.status as ApprovalStatus, // CHECK constraint
    createdAtMs: r.created_at_ms,
    expiresAtMs: r.expires_at_ms,
    closedAtMs: r.closed_at_ms,
    closedBy: r.closed_by,
    closeDetail: r.close_detail,
    transferId: r.transfer_id,
    signOffs: signOffs
      .filter((s) => s.request_id === r.id)
      .map((s) => ({ approver: s.approver, signature: s.signature, recordedAtMs: s.recorded_at_ms })),
  };
}
