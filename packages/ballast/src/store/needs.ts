/**
 * Known outflows ("needs", migration 17, table `needs`; docs/needs.md): a payment known to be coming from a
 * configured holding (asset, chain, wallet), in base units of that holding, due at a time. The planner holds every
 * open need due within `policy.needsHorizonSec` on its holding, on top of `min`.
 *
 * Recorded by `ballast needs add` and `POST /v1/needs`, idempotent on the caller's key: the same key with the same
 * content is the same need; the same key with other content is refused (`NEED_CONFLICT`). A need leaves `open`
 * once: cancelled by an operator (`ballast needs cancel`, `DELETE /v1/needs/{id}`) or closed when its due time plus
 * `policy.needsGraceSec` has passed (taken as paid by the payment system). Every state change is a guarded
 * `UPDATE … WHERE status = 'open'`. These writes are not fenced by the leader lease: they move no money.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';
import type { StoreDb } from './db.ts';
import { StoreValueError } from './errors.ts';
import { rowShape } from './rowColumns.ts';
import { amountToText, checkMs, textToAmount } from './values.ts';

/** Status of a need: `open` until cancelled or closed (lapsed), never back. */
export type NeedStatus = 'open' | 'cancelled' | 'closed';

/** `closed_reason` of a need closed by {@link closeLapsedNeeds}. */
export const NEED_LAPSED_REASON = 'due time passed';
/** `closed_by` of a need closed by {@link closeLapsedNeeds}. */
export const NEED_LAPSED_BY = 'ballast';

/** A need as stored. */
export interface NeedRow {
  id: number;
  /** The caller's idempotency key (1–200 characters), unique. */
  idempotencyKey: string;
  /** Asset symbol under `assets:`. */
  asset: string;
  /** Chain name under `chains:`. */
  chain: string;
  /** Wallet name under `wallets:`. */
  wallet: string;
  /** Base units of the holding's token (positive). */
  amount: bigint;
  /** When the payment is due, ms since the epoch. */
  dueAtMs: number;
  note: string | null;
  status: NeedStatus;
  createdAtMs: number;
  /** Who recorded it: `<user>@<host>` (CLI), `api` (HTTP API). */
  createdBy: string;
  /** When it left `open`, ms; null while open. */
  closedAtMs: number | null;
  /** Why it left `open` (`cancelled by <who>`, `due time passed`); null while open. */
  closedReason: string | null;
}

/** A need to record: everything but the id, status and closing fields, with who records it. */
export interface NewNeed {
  idempotencyKey: string;
  asset: string;
  chain: string;
  wallet: string;
  /** Base units of the holding's token; must be positive. */
  amount: bigint;
  dueAtMs: number;
  note: string | null;
  createdBy: string;
}

/** Codes of {@link NeedStoreError}. */
export type NeedStoreErrorCode = 'NEED_CONFLICT' | 'NEED_NOT_FOUND' | 'NEED_NOT_OPEN';

/**
 * A need write refused by the store; nothing was changed.
 *
 * - `NEED_CONFLICT`: the idempotency key is recorded for a need with other content; `field` names the first field
 *   that differs (`asset`, `chain`, `wallet`, `amount`, `dueAt`, `note`) and `existing` is the recorded need.
 * - `NEED_NOT_FOUND`: no need has this id.
 * - `NEED_NOT_OPEN`: the need was already cancelled or closed (`existing` says how).
 */
export class NeedStoreError extends BallastError {
  constructor(
    readonly code: NeedStoreErrorCode,
    message: string,
    readonly field: string | null = null,
    readonly existing: NeedRow | null = null,
  ) {
    super(message);
  }
}

/** A `needs` row as read (`SELECT *`). */
interface NeedDbRow {
  id: number;
  idempotency_key: string;
  asset: string;
  chain: string;
  wallet: string;
  amount: string;
  due_at_ms: number;
  note: string | null;
  status: string;
  created_at_ms: number;
  created_by: string;
  closed_at_ms: number | null;
  closed_by: string | null;
  closed_reason: string | null;
}

/** Columns of {@link NeedDbRow}: every column of `needs`. */
export const NEED_ROW = rowShape<NeedDbRow>({
  name: 'NeedDbRow',
  table: 'needs',
  allColumns: true,
  columns: {
    id: 'integer',
    idempotency_key: 'text',
    asset: 'text',
    chain: 'text',
    wallet: 'text',
    amount: 'text',
    due_at_ms: 'integer',
    note: 'text?',
    status: 'text',
    created_at_ms: 'integer',
    created_by: 'text',
    closed_at_ms: 'integer?',
    closed_by: 'text?',
    closed_reason: 'text?',
  },
});

function toNeed(r: NeedDbRow): NeedRow {
  return {
    id: r.id,
    idempotencyKey: r.idempotency_key,
    asset: r.asset,
    chain: r.chain,
    wallet: r.wallet,
    amount: textToAmount(r.amount, 'needs.amount'),
    dueAtMs: r.due_at_ms,
    note: r.note,
    status: r.status as NeedStatus, // CHECK (status IN ('open', 'cancelled', 'closed'))
    createdAtMs: r.created_at_ms,
    createdBy: r.created_by,
    closedAtMs: r.closed_at_ms,
    closedReason: r.closed_reason,
  };
}

/** The first field in which a recorded need differs from a new one, or null when they are the same need. */
function differingField(existing: NeedRow, need: NewNeed): { field: string; was: string; now: string } | null {
  const pairs: [string, string, string][] = [
    ['asset', existing.asset, need.asset],
    ['chain', existing.chain, need.chain],
    ['wallet', existing.wallet, need.wallet],
    ['amount', `${existing.amount} base units`, `${need.amount} base units`],
    ['dueAt', new Date(existing.dueAtMs).toISOString(), new Date(need.dueAtMs).toISOString()],
    ['note', JSON.stringify(existing.note), JSON.stringify(need.note)],
  ];
  const hit = pairs.find(([, was, now]) => was !== now);
  return hit ? { field: hit[0], was: hit[1], now: hit[2] } : null;
}

/**
 * Records a need, idempotent on `need.idempotencyKey` (safe to retry, and safe against a concurrent call with the
 * same key: the unique key decides which insert wins).
 *
 * @param need the need; `amount` in base units of the holding (positive), `dueAtMs` ms since the epoch
 * @param nowMs the recording time, ms (`createdAtMs`)
 * @returns the need and `created: true`, or the need already recorded under that key with the same content
 *   (asset, chain, wallet, amount, due time, note; whatever its status now) and `created: false`
 * @throws NeedStoreError `NEED_CONFLICT` when the key is recorded with other content (its `field` names the first
 *   difference); StoreValueError for an amount that is not a positive bigint or a time that is not integer ms
 */
export async function addNeed(db: StoreDb, need: NewNeed, nowMs: number): Promise<{ need: NeedRow; created: boolean }> {
  checkMs(nowMs, 'nowMs');
  checkMs(need.dueAtMs, 'dueAtMs');
  const amount = amountToText(need.amount, 'amount');
  if (need.amount === 0n) throw new StoreValueError('amount', 'a need is a positive amount in base units, got 0');
  const inserted = await db.get<{ id: number }>(
    `INSERT INTO needs (idempotency_key, asset, chain, wallet, amount, due_at_ms, note, status, created_at_ms, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
    need.idempotencyKey,
    need.asset,
    need.chain,
    need.wallet,
    amount,
    need.dueAtMs,
    need.note,
    nowMs,
    need.createdBy,
  );
  if (inserted) return { need: (await getNeed(db, inserted.id))!, created: true }; // just inserted, never deleted
  const row = await db.get<NeedDbRow>('SELECT * FROM needs WHERE idempotency_key = ?', need.idempotencyKey); // NEED_ROW
  if (!row) throw new Error(`addNeed: key ${JSON.stringify(need.idempotencyKey)} neither inserted nor found`); // rows are never deleted
  const existing = toNeed(row);
  const diff = differingField(existing, need);
  if (diff) {
    throw new NeedStoreError(
      'NEED_CONFLICT',
      `idempotency key ${JSON.stringify(need.idempotencyKey)} is already recorded for need ${existing.id} with another ${diff.field} ` +
        `(recorded ${diff.was}, now ${diff.now}); use a new key for a different payment, or send the recorded content again`,
      diff.field,
      existing,
    );
  }
  return { need: existing, created: false };
}

/** One need by id, or undefined. */
export async function getNeed(db: StoreDb, id: number): Promise<NeedRow | undefined> {
  const row = await db.get<NeedDbRow>('SELECT * FROM needs WHERE id = ?', id); // columns checked by NEED_ROW
  return row ? toNeed(row) : undefined;
}

/** The need recorded under an idempotency key, or undefined. */
export async function findNeedByKey(db: StoreDb, idempotencyKey: string): Promise<NeedRow | undefined> {
  const row = await db.get<NeedDbRow>('SELECT * FROM needs WHERE idempotency_key = ?', idempotencyKey); // NEED_ROW
  return row ? toNeed(row) : undefined;
}

/**
 * Needs in due order (then id): the open ones, or every one with `all`.
 */
export async function listNeeds(db: StoreDb, opts: { all?: boolean } = {}): Promise<NeedRow[]> {
  const rows = await db.all<NeedDbRow>(
    `SELECT * FROM needs${opts.all ? '' : " WHERE status = 'open'"} ORDER BY due_at_ms, id`, // NEED_ROW
  );
  return rows.map(toNeed);
}

/** Every open need, in due order (then id): what the planner may hold. */
export async function openNeeds(db: StoreDb): Promise<NeedRow[]> {
  return listNeeds(db);
}

/**
 * Cancels an open need (an operator's decision: the payment will not happen, or not from this holding).
 *
 * @param by who cancels it, kept as `closed_by` and in `closedReason` (`cancelled by <by>`)
 * @returns the cancelled need
 * @throws NeedStoreError `NEED_NOT_FOUND` (no such id) or `NEED_NOT_OPEN` (already cancelled or closed); nothing
 *   is changed
 */
export async function cancelNeed(db: StoreDb, id: number, nowMs: number, by: string): Promise<NeedRow> {
  checkMs(nowMs, 'nowMs');
  const row = await db.get<NeedDbRow>(
    `UPDATE needs SET status = 'cancelled', closed_at_ms = ?, closed_by = ?, closed_reason = ?
     WHERE id = ? AND status = 'open' RETURNING *`, // NEED_ROW
    nowMs,
    by,
    `cancelled by ${by}`,
    id,
  );
  if (row) return toNeed(row);
  const existing = await getNeed(db, id);
  if (!existing) throw new NeedStoreError('NEED_NOT_FOUND', `no need ${id} (see ballast needs list --all)`);
  throw new NeedStoreError(
    'NEED_NOT_OPEN',
    `need ${id} is ${existing.status} already (${existing.closedReason ?? '?'} at ${new Date(existing.closedAtMs ?? 0).toISOString()}); nothing changed`,
    null,
    existing,
  );
}

/**
 * Closes every open need whose due time plus `graceMs` has passed (`dueAtMs + graceMs <= nowMs`): the payment
 * system has paid it, so it is no longer held. Reason {@link NEED_LAPSED_REASON}, by {@link NEED_LAPSED_BY}.
 *
 * @param graceMs `policy.needsGraceSec` in ms (non-negative)
 * @returns the needs closed now, in due order (then id)
 */
export async function closeLapsedNeeds(db: StoreDb, nowMs: number, graceMs: number): Promise<NeedRow[]> {
  checkMs(nowMs, 'nowMs');
  checkMs(graceMs, 'graceMs');
  const rows = await db.all<NeedDbRow>(
    `UPDATE needs SET status = 'closed', closed_at_ms = ?, closed_by = ?, closed_reason = ?
     WHERE status = 'open' AND due_at_ms <= ? RETURNING *`, // NEED_ROW
    nowMs,
    NEED_LAPSED_BY,
    NEED_LAPSED_REASON,
    nowMs - graceMs,
  );
  return rows.map(toNeed).sort((a, b) => a.dueAtMs - b.dueAtMs || a.id - b.id);
}
