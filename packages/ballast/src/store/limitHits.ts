/**
 * Records of transfers refused by a spending limit (migration 4, `limit_hits`): which planned transfer, which
 * limit (src/policy/spendingLimits.ts `SPENDING_LIMIT_REASONS`) and the detail naming the config field.
 */
import type { StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { amountToText, checkMs, textToAmount } from './values.ts';

/** One refusal. `amountIn` in origin base units; `quoteId` when the refusal came after quoting. */
export interface LimitHit {
  cycleId: number;
  planId: number;
  quoteId?: number;
  asset: string;
  originChain: string;
  destinationChain: string;
  amountIn: bigint;
  reason: string;
  detail: string;
  decidedAtMs: number;
}

/**
 * Stores one refusal.
 *
 * @throws StoreValueError on a negative amount or a bad time; the engine's constraint error when the cycle, plan or quote is unknown
 */
export async function recordLimitHit(db: StoreDb, hit: LimitHit): Promise<number> {
  checkMs(hit.decidedAtMs, 'decidedAtMs');
  const row = await db.get<{ id: number }>(
    `INSERT INTO limit_hits (cycle_id, plan_id, quote_id, asset, origin_chain, destination_chain, amount_in, reason, detail, decided_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    hit.cycleId,
    hit.planId,
    hit.quoteId ?? null,
    hit.asset,
    hit.originChain,
    hit.destinationChain,
    amountToText(hit.amountIn, 'amountIn'),
    hit.reason,
    hit.detail,
    hit.decidedAtMs,
  );
  return (row as { id: number }).id; // RETURNING always yields the inserted row
}

/**
 * A `limit_hits` row as read (`SELECT *`): amounts TEXT base units, times integer ms. Query results are cast to
 * it unchecked; {@link LIMIT_HIT_ROW} ties it to the migrated schema of both engines
 * (test/unit/store/rowTypes.test.ts).
 */
interface LimitHitDbRow {
  id: number;
  cycle_id: number;
  plan_id: number;
  quote_id: number | null;
  asset: string;
  origin_chain: string;
  destination_chain: string;
  amount_in: string;
  reason: string;
  detail: string;
  decided_at_ms: number;
}

/** Columns of {@link LimitHitDbRow}: every column of `limit_hits`. */
export const LIMIT_HIT_ROW = rowShape<LimitHitDbRow>({
  name: 'LimitHitDbRow',
  table: 'limit_hits',
  allColumns: true,
  columns: {
    id: 'integer',
    cycle_id: 'integer',
    plan_id: 'integer',
    quote_id: 'integer?',
    asset: 'text',
    origin_chain: 'text',
    destination_chain: 'text',
    amount_in: 'text',
    reason: 'text',
    detail: 'text',
    decided_at_ms: 'integer',
  },
});

/** The most recent refusals, newest first (at most `limit`). */
export async function listLimitHits(db: StoreDb, limit: number): Promise<Array<LimitHit & { id: number }>> {
  const rows = (await db.all('SELECT * FROM limit_hits ORDER BY id DESC LIMIT ?', limit)) as LimitHitDbRow[]; // columns checked by LIMIT_HIT_ROW
  return rows.map((r) => ({
    id: r.id,
    cycleId: r.cycle_id,
    planId: r.plan_id,
    ...(r.quote_id === null ? {} : { quoteId: r.quote_id }),
    asset: r.asset,
    originChain: r.origin_chain,
    destinationChain: r.destination_chain,
    amountIn: textToAmount(r.amount_in, 'amount_in'),
    reason: r.reason,
    detail: r.detail,
    decidedAtMs: r.decided_at_ms,
  }));
}
