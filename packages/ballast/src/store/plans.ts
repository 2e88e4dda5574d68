/**
 * `planned_transfers` and `plan_decisions`: what the planner decided in a cycle and why, stored before any
 * quote is requested so the reasoning survives a crash.
 */
import type { StoreDb } from './db.ts';
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
 * @throws StoreValueError on a negative amount; the engine's constraint error when the cycle does not exist
 */
export async function recordPlannedTransfers(db: StoreDb, cycleId: number, rows: readonly PlannedTransferRecord[]): Promise<number[]> {
  const amounts = rows.map((r, i) => amountToText(r.amountIn, `plans[${i}].amountIn`));
  return db.transaction(async () => {
    const ids: number[] = [];
    for (const [i, r] of rows.entries()) {
      const row = await db.get<{ id: number }>(
        `INSERT INTO planned_transfers (cycle_id, asset, origin_chain, destination_chain, amount_in, reason)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
        cycleId,
        r.asset,
        r.originChain,
        r.destinationChain,
        amounts[i] as string,
        r.reason,
      );
      ids.push((row as { id: number }).id); // RETURNING always yields the inserted row
    }
    return ids;
  });
}

/**
 * Records the planner's decisions of a cycle in one transaction.
 *
 * @throws the engine's constraint error when the cycle does not exist
 */
export async function recordPlanDecisions(db: StoreDb, cycleId: number, rows: readonly PlanDecisionRecord[]): Promise<void> {
  await db.transaction(async () => {
    for (const r of rows)
      await db.run(
        'INSERT INTO plan_decisions (cycle_id, asset, chain, kind, detail) VALUES (?, ?, ?, ?, ?)',
        cycleId,
        r.asset,
        r.chain ?? null,
        r.kind,
        r.detail,
      );
  });
}
