/**
 * Decimals of stored transfers' input and output currencies, for showing amounts in whole units: the ledger row's
 * (migration 6), else the stored quote's `details.currencyIn/currencyOut.currency.decimals` (spec "Currency").
 */
import type { StoreDb } from './db.ts';
import { z } from 'zod';

/** Decimals of a transfer's input and output currencies; null where the store does not know them. */
export interface TransferDecimals {
  decimalsIn: number | null;
  decimalsOut: number | null;
}

const Decimals = z.number().int().min(0).max(255);
const QuoteCurrencies = z.looseObject({
  details: z.looseObject({
    currencyIn: z.looseObject({ currency: z.looseObject({ decimals: Decimals }) }).optional(),
    currencyOut: z.looseObject({ currency: z.looseObject({ decimals: Decimals }) }).optional(),
  }),
});

/**
 * @param transferIds transfers to look up
 * @returns decimals per transfer id (every id present; unknown values null)
 */
export async function decimalsOfTransfers(db: StoreDb, transferIds: readonly number[]): Promise<Map<number, TransferDecimals>> {
  const out = new Map<number, TransferDecimals>();
  for (const id of transferIds) {
    const l = (await db.get('SELECT decimals_in, decimals_out FROM transfer_ledger WHERE transfer_id = ?', id)) as { decimals_in: number | null; decimals_out: number | null } | undefined; // columns named above
    let decimalsIn = l?.decimals_in ?? null;
    let decimalsOut = l?.decimals_out ?? null;
    if (decimalsIn === null || decimalsOut === null) {
      const q = (await db.get('SELECT q.raw_json FROM transfers t JOIN quotes q ON q.id = t.quote_id WHERE t.id = ?', id)) as { raw_json: string } | undefined; // one column
      const parsed = q ? QuoteCurrencies.safeParse(safeJson(q.raw_json)) : null;
      if (parsed?.success) {
        decimalsIn ??= parsed.data.details.currencyIn?.currency.decimals ?? null;
        decimalsOut ??= parsed.data.details.currencyOut?.currency.decimals ?? null;
      }
    }
    out.set(id, { decimalsIn, decimalsOut });
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null; // a row written outside Ballast; its decimals are then unknown
  }
}
