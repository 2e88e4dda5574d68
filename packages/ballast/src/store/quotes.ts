/**
 * Quotes and what Ballast made of them: the raw /quote/v2 response (docs/relay-contract.md "POST /quote/v2") as received,
 * the fee-policy decision, the local verification verdict (docs/relay-contract.md "Local quote verification"), and quote
 * errors (docs/relay-contract.md "Errors": `errorCode`, `message`, `requestId` kept).
 *
 * The raw response is stored before it is acted on, so every signed transfer can be traced to the exact
 * quote it came from.
 */
import { inList, type StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { checkMs, fromJsonText, toJsonText } from './values.ts';

/** A received quote. `request` is the body sent; `raw` the unparsed JSON response. */
export interface QuoteRecord {
  cycleId: number;
  planId: number | null;
  requestId: string | null;
  orderId: string | null;
  request: object;
  raw: unknown;
  receivedAtMs: number;
}

/** The fee policy's decision for a quote (`reason` is the policy's skip reason when not accepted). */
export interface FeeDecisionRecord {
  accepted: boolean;
  reason?: string;
  detail?: string;
  /** Fee breakdown; bigints are stored as decimal strings. */
  breakdown?: object;
}

/** The verifier's verdict: one entry per rule. */
export interface VerdictRecord {
  ok: boolean;
  rules: readonly { rule: string; ok: boolean; detail: string }[];
}

/** A failed quote request. */
export interface QuoteErrorRecord {
  cycleId: number;
  planId: number | null;
  code: string;
  message: string;
  /** Relay's `requestId` from the error body, when given. */
  relayRequestId?: string;
  atMs?: number;
}

/**
 * Stores a quote as received.
 *
 * @returns the quote id
 * @throws StoreValueError when `request`/`raw` cannot be serialised or the time is invalid
 */
export async function recordQuote(db: StoreDb, q: QuoteRecord): Promise<number> {
  const r = await db.get<{ id: number }>(
    `INSERT INTO quotes (cycle_id, plan_id, request_id, order_id, request_json, raw_json, received_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    q.cycleId,
    q.planId,
    q.requestId,
    q.orderId,
    toJsonText(q.request, 'request'),
    toJsonText(q.raw, 'raw'),
    checkMs(q.receivedAtMs, 'receivedAtMs'),
  );
  return (r as { id: number }).id; // RETURNING always yields the inserted row
}

/**
 * Stores the fee decision of a quote (once per quote).
 *
 * @throws the engine's constraint error when the quote is unknown, already has a decision, or is refused without a reason
 */
export async function recordFeeDecision(db: StoreDb, quoteId: number, d: FeeDecisionRecord): Promise<void> {
  await db.run(
    'INSERT INTO fee_decisions (quote_id, accepted, reason, detail, breakdown_json) VALUES (?, ?, ?, ?, ?)',
    quoteId,
    d.accepted ? 1 : 0,
    d.reason ?? null,
    d.detail ?? null,
    d.breakdown === undefined ? null : toJsonText(d.breakdown, 'breakdown'),
  );
}

/**
 * Stores the verification verdict of a quote (once per quote).
 *
 * @throws the engine's constraint error when the quote is unknown or already has a verdict
 */
export async function recordVerdict(db: StoreDb, quoteId: number, v: VerdictRecord): Promise<void> {
  await db.run('INSERT INTO verdicts (quote_id, ok, rules_json) VALUES (?, ?, ?)', quoteId, v.ok ? 1 : 0, toJsonText(v.rules, 'rules'));
}

/**
 * Stores a failed quote request.
 *
 * @returns the row id
 */
export async function recordQuoteError(db: StoreDb, e: QuoteErrorRecord): Promise<number> {
  const r = await db.get<{ id: number }>(
    `INSERT INTO quote_errors (cycle_id, plan_id, code, message, relay_request_id, at_ms)
       VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
    e.cycleId,
    e.planId,
    e.code,
    e.message,
    e.relayRequestId ?? null,
    e.atMs === undefined ? null : checkMs(e.atMs, 'atMs'),
  );
  return (r as { id: number }).id; // RETURNING always yields the inserted row
}

/** A stored quote with its decision and verdict, for history and audits. */
export interface QuoteRow {
  id: number;
  cycleId: number;
  planId: number | null;
  requestId: string | null;
  orderId: string | null;
  request: unknown;
  raw: unknown;
  receivedAtMs: number;
  fee: { accepted: boolean; reason: string | null; detail: string | null; breakdown: unknown } | null;
  verdict: { ok: boolean; rules: unknown } | null;
}

/**
 * A `quotes` row (`q.*`) with its fee decision and verdict (`LEFT JOIN fee_decisions`, `LEFT JOIN verdicts`:
 * their columns are null when there is none), as read by {@link getQuote}. Query results are cast to it
 * unchecked; {@link QUOTE_ROW} ties it to the migrated schema of both engines (test/unit/store/rowTypes.test.ts).
 */
interface QuoteDbRow {
  id: number;
  cycle_id: number;
  plan_id: number | null;
  request_id: string | null;
  order_id: string | null;
  request_json: string;
  raw_json: string;
  received_at_ms: number;
  accepted: number | null;
  reason: string | null;
  detail: string | null;
  breakdown_json: string | null;
  ok: number | null;
  rules_json: string | null;
}

/** Columns of {@link QuoteDbRow}: every column of `quotes`, and the joined ones of `fee_decisions` and `verdicts`. */
export const QUOTE_ROW = rowShape<QuoteDbRow>({
  name: 'QuoteDbRow',
  table: 'quotes',
  allColumns: true,
  columns: {
    id: 'integer',
    cycle_id: 'integer',
    plan_id: 'integer?',
    request_id: 'text?',
    order_id: 'text?',
    request_json: 'text',
    raw_json: 'text',
    received_at_ms: 'integer',
    accepted: 'integer?',
    reason: 'text?',
    detail: 'text?',
    breakdown_json: 'text?',
    ok: 'integer?',
    rules_json: 'text?',
  },
  from: {
    accepted: 'fee_decisions.accepted',
    reason: 'fee_decisions.reason',
    detail: 'fee_decisions.detail',
    breakdown_json: 'fee_decisions.breakdown_json',
    ok: 'verdicts.ok',
    rules_json: 'verdicts.rules_json',
  },
});

/**
 * Reads one quote with its fee decision and verdict.
 *
 * @returns the quote, or undefined when there is none with that id
 */
export async function getQuote(db: StoreDb, id: number): Promise<QuoteRow | undefined> {
  const row = (await db.get(
    `SELECT q.*, f.accepted, f.reason, f.detail, f.breakdown_json, v.ok, v.rules_json
       FROM quotes q LEFT JOIN fee_decisions f ON f.quote_id = q.id LEFT JOIN verdicts v ON v.quote_id = q.id
       WHERE q.id = ?`,
    id,
  )) as QuoteDbRow | undefined; // columns checked by QUOTE_ROW
  if (!row) return undefined;
  return {
    id: row.id,
    cycleId: row.cycle_id,
    planId: row.plan_id,
    requestId: row.request_id,
    orderId: row.order_id,
    request: fromJsonText(row.request_json),
    raw: fromJsonText(row.raw_json),
    receivedAtMs: row.received_at_ms,
    fee:
      row.accepted === null
        ? null
        : { accepted: row.accepted === 1, reason: row.reason, detail: row.detail, breakdown: fromJsonText(row.breakdown_json) },
    verdict: row.ok === null ? null : { ok: row.ok === 1, rules: fromJsonText(row.rules_json) },
  };
}

/**
 * The stored responses (`raw_json`, parsed JSON, still unknown in shape) of the given quotes, by quote id.
 *
 * @throws SyntaxError when a stored response is not JSON (only possible if written outside Ballast)
 */
export async function rawQuotesOf(db: StoreDb, quoteIds: readonly number[]): Promise<Map<number, unknown>> {
  if (quoteIds.length === 0) return new Map();
  const rows = await db.all<{ id: number; raw_json: string }>(
    `SELECT id, raw_json FROM quotes WHERE id IN ${inList(quoteIds)}`,
    ...quoteIds,
  ); // two columns of QUOTE_ROW
  return new Map(rows.map((r) => [r.id, fromJsonText(r.raw_json)]));
}
