/**
 * Read-only store queries behind the operator metrics: the latest quote's input amount per asset (for USD
 * prices) and the withdrawals per state. Small single-statement reads run once per cycle.
 */
import type { StoreDb } from './db.ts';
import { WITHDRAWAL_STATES, type WithdrawalState } from './withdrawals.ts';

/**
 * The raw `details.currencyIn` of the latest stored quote of each asset (quotes joined to their planned
 * transfer for the asset), newest by quote id.
 *
 * @returns asset → the parsed `currencyIn` object as stored (unvalidated; the caller checks its fields)
 */
export async function latestQuoteCurrencyIn(db: StoreDb): Promise<Map<string, unknown>> {
  const rows = await db.all<{ asset: string; raw_json: string }>(
    `SELECT p.asset AS asset, q.raw_json AS raw_json
       FROM quotes q JOIN planned_transfers p ON p.id = q.plan_id
      WHERE q.id IN (SELECT MAX(q2.id) FROM quotes q2 JOIN planned_transfers p2 ON p2.id = q2.plan_id GROUP BY p2.asset)`,
  ); // the two selected columns
  const out = new Map<string, unknown>();
  for (const r of rows) {
    let raw: unknown;
    try {
      raw = JSON.parse(r.raw_json);
    } catch {
      continue; // not JSON: no price from this quote
    }
    const currencyIn = (raw as { details?: { currencyIn?: unknown } } | null)?.details?.currencyIn; // checked by the caller
    if (currencyIn !== undefined && currencyIn !== null) out.set(r.asset, currencyIn);
  }
  return out;
}

/** Number of withdrawals in each state (every state present, 0 when none). */
export async function withdrawalCountsByState(db: StoreDb): Promise<Map<WithdrawalState, number>> {
  const counts = new Map<WithdrawalState, number>(WITHDRAWAL_STATES.map((s) => [s, 0]));
  const rows = (await db.all('SELECT state, COUNT(*) AS n FROM withdrawals GROUP BY state')) as { state: WithdrawalState; n: number }[]; // state is CHECKed
  for (const r of rows) counts.set(r.state, r.n);
  return counts;
}
