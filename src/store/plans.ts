/**
 * `planned_transfers` and `plan_decisions`: what the planner decided in a cycle and why, stored before any
 * quote is requested so the reasoning survives a crash.
 */
import type Database from 'better-sqlite3';
import { amountToText } from './values.ts';

/** A planned transfer. `amountIn` in origin base units. */
export interface PlannedTransferRecord {
  asset: string;
  originChain: string;
  destinationChain: string;
  amountIn: bigint;
  reason: string;
}

/** A planner decision (kinds come from the planner, e.g. `deficit`, `chain_unreadable`). */
export interface PlanDecisionRecord {
  asset: string;
  chain?: string;
  kind: string;
  detail: string;
}

/**
 * Records the planned transfers of a cycle in one transaction.
 *
 * @returns the new row ids, in input order (pass them to `recordQuote` as `planId`)
 * @throws StoreValueError on a negative amount; SqliteError when the cycle does not exist
 */
export function recordPlannedTransfers(
  db: Database.Database,
  cycleId: number,
  rows: readonly PlannedTransferRecord[],
): number[] {
  const insert = db.prepare(
    `INSERT INTO planned_transfers (cycle_id, asset, origin_chain, destination_chain, amount_in, reason)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  return db.transaction(() =>
    rows.map((r, i) =>
      Number(
        insert.run(cycleId, r.asset, r.originChain, r.destinationChain, amountToText(r.amountIn, `plans[${i}].amountIn`), r.reason)
          .lastInsertRowid,
      ),
    ),
  )();
}

/**
 * Records the planner's decisions of a cycle in one transaction.
 *
 * @throws SqliteError when the cycle does not exist
 */
export function recordPlanDecisions(db: Database.Database, cycleId: number, rows: readonly PlanDecisionRecord[]): void {
  const insert = db.prepare('INSERT INTO plan_decisions (cycle_id, asset, chain, kind, detail) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const r of rows) insert.run(cycleId, r.asset, r.chain ?? null, r.kind, r.detail);
  })();
}
