/**
 * The fees each transfer was quoted at (`transfers.fees_usd`: the fee policy's total of the accepted quote, origin
 * cost included when known), for `ballast report` to set beside what the ledger says was paid. Reads only.
 */
import { inList, type StoreDb } from './db.ts';
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';

/** Ids per query: well under SQLite's limit on bound parameters. */
const CHUNK = 500;

/**
 * @param transferIds transfers to look up
 * @returns micro-USD quoted per transfer id (absent: no quoted fee recorded, or a value that is not a decimal)
 */
export async function quotedFeesOfTransfers(db: StoreDb, transferIds: readonly number[]): Promise<Map<number, bigint>> {
  const out = new Map<number, bigint>();
  for (let i = 0; i < transferIds.length; i += CHUNK) {
    const ids = transferIds.slice(i, i + CHUNK);
    const rows = (await db.all(`SELECT id, fees_usd FROM transfers WHERE id IN ${inList(ids)} AND fees_usd IS NOT NULL`, ...ids)) as {
      id: number;
      fees_usd: string;
    }[]; // two columns of `transfers`
    for (const r of rows) {
      try {
        out.set(Number(r.id), parseUsdMicros(r.fees_usd));
      } catch {
        // not a decimal string (a row written outside Ballast): its quoted fee is unknown, left out
      }
    }
  }
  return out;
}
