/**
 * Records of transfers refused by a spending limit (migration 4, `limit_hits`): which planned transfer, which
 * limit (src/policy/spendingLimits.ts `SPENDING_LIMIT_REASONS`) and the detail naming the config field.
 */
import type Database from 'better-sqlite3';
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
 * @throws StoreValueError on a negative amount or a bad time; SqliteError when the cycle, plan or quote is unknown
 */
export function recordLimitHit(db: Database.Database, hit: LimitHit): number {
  checkMs(hit.decidedAtMs, 'decidedAtMs');
  const info = db
    .prepare(
      `INSERT INTO limit_hits (cycle_id, plan_id, quote_id, asset, origin_chain, destination_chain, amount_in, reason, detail, decided_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(hit.cycleId, hit.planId, hit.quoteId ?? null, hit.asset, hit.originChain, hit.destinationChain, amountToText(hit.amountIn, 'amountIn'), hit.reason, hit.detail, hit.decidedAtMs);
  return Number(info.lastInsertRowid);
}

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

/** The most recent refusals, newest first (at most `limit`). */
export function listLimitHits(db: Database.Database, limit: number): Array<LimitHit & { id: number }> {
  const rows = db.prepare('SELECT * FROM limit_hits ORDER BY id DESC LIMIT ?').all(limit) as LimitHitDbRow[]; // columns of migration 4
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
