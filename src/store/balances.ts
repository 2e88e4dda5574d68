/**
 * The `balances` table: every balance read of a cycle, including failed reads (amount null + error), so the
 * history shows why a chain was left alone (DESIGN.md "Fail closed").
 */
import type Database from 'better-sqlite3';
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
 * @throws StoreValueError on a negative amount or bad timestamp; SqliteError when a row has neither amount nor
 *   error, or the cycle does not exist (nothing is written then)
 */
export function recordBalances(db: Database.Database, cycleId: number, rows: readonly BalanceRecord[]): void {
  const insert = db.prepare(
    `INSERT INTO balances (cycle_id, chain, chain_id, asset, wallet, address, currency, amount, error, read_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    rows.forEach((r, i) => {
      insert.run(
        cycleId,
        r.chain,
        r.chainId,
        r.asset,
        r.wallet,
        r.address,
        r.currency,
        r.amount === null ? null : amountToText(r.amount, `balances[${i}].amount`),
        r.error ?? null,
        checkMs(r.readAtMs, `balances[${i}].readAtMs`),
      );
    });
  })();
}
