/**
 * Read-only store queries behind the operator metrics: the latest quote's input amount per asset (for USD
 * prices) and the withdrawals per state. Small single-statement reads run once per cycle.
 */
import type Database from 'better-sqlite3';
import { WITHDRAWAL_STATES, type WithdrawalState } from './withdrawals.ts';

/**
 * The raw `details.currencyIn` of the latest stored quote of each asset (quotes joined to their planned
 * transfer for the asset), newest by quote id.
 *
 * @returns asset → the parsed `currencyIn` object as stored (unvalidated; the caller checks its fields)
 */
export function latestQuoteCurrencyIn(db: Database.Database): Map<string, unknown> {
  const rows = db
    .prepare(
      `SELECT p.asset AS asset, json_extract(q.raw_json, '$.details.currencyIn') AS currency_in
         FROM quotes q JOIN planned_transfers p ON p.id = q.plan_id
        WHERE q.id IN (SELECT MAX(q2.id) FROM quotes q2 JOIN planned_transfers p2 ON p2.id = q2.plan_id GROUP BY p2.asset)`,
    )
    .all() as { asset: string; currency_in: string | null }[]; // the two selected columns
  const out = new Map<string, unknown>();
  for (const r of rows) {
    if (r.currency_in === null) continue;
    try {
      out.set(r.asset, JSON.parse(r.currency_in));
    } catch {
      // not an object: no price from this quote
    }
  }
  return out;
}

/** Number of withdrawals in each state (every state present, 0 when none). */
export function withdrawalCountsByState(db: Database.Database): Map<WithdrawalState, number> {
  const counts = new Map<WithdrawalState, number>(WITHDRAWAL_STATES.map((s) => [s, 0]));
  const rows = db.prepare('SELECT state, COUNT(*) AS n FROM withdrawals GROUP BY state').all() as { state: WithdrawalState; n: number }[]; // state is CHECKed
  for (const r of rows) counts.set(r.state, r.n);
  return counts;
}
