/**
 * The `balances` table: every balance read of a cycle, including failed reads (amount null + error), so the
 * history shows why a chain was left alone (docs/design.md "Fail closed").
 */
import type { StoreDb } from './db.ts';
import { amountToText, checkMs } from './values.ts';

/** One balance read. `amount` in base units; null when the read failed (then `error` says why). */
export interface BalanceRecord {
  chain: string;
  chainId: number;
  asset: string;
  wallet: string;
  address: string;
  currency: string;
  amount: bigint | null;
  error?: string;
  readAtMs: number;
}

/**
 * Records the balance reads of a cycle in one transaction.
 *
 * @throws StoreValueError on a negative amount or bad timestamp; the engine's CHECK error when a row has neither amount nor
 *   error, or the cycle does not exist (nothing is written then)
 */
export async function recordBalances(db: StoreDb, cycleId: number, rows: readonly BalanceRecord[]): Promise<void> {
  const sql = `INSERT INTO balances (cycle_id, chain, chain_id, asset, wallet, address, currency, amount, error, read_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
  const values = rows.map(
    (r, i) =>
      [r.amount === null ? null : amountToText(r.amount, `balances[${i}].amount`), checkMs(r.readAtMs, `balances[${i}].readAtMs`)] as const,
  );
  await db.transaction(async () => {
    for (const [i, r] of rows.entries()) {
      const [amount, readAtMs] = values[i]!; // one entry per row
      await db.run(sql, cycleId, r.chain, r.chainId, r.asset, r.wallet, r.address, r.currency, amount, r.error ?? null, readAtMs);
    }
  });
}
