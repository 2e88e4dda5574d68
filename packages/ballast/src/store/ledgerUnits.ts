/**
 * Decimals of stored transfers' input and output currencies, for showing amounts in whole units: the ledger row's
 * (migration 6), else the stored quote's `details.currencyIn/currencyOut.currency.decimals` (docs/relay-contract.md
 * "Currency"); and, for a transfer that bought another asset than it paid (a gas top-up), the output's symbol from the
 * quote.
 */
import type { StoreDb } from './db.ts';
import { z } from 'zod';
import { rowShape } from './rowColumns.ts';

/** Decimals of a transfer's input and output currencies; null where the store does not know them. */
export interface TransferDecimals {
  decimalsIn: number | null;
  decimalsOut: number | null;
  /**
   * Symbol of the output currency when the transfer bought another asset than it paid (the stored quote's
   * `details.currencyIn` and `currencyOut` name different symbols: a gas top-up); absent within one asset.
   */
  symbolOut?: string;
}

/**
 * The decimals a ledger row recorded, as read by {@link decimalsOfTransfers}. Query results are cast to it
 * unchecked; {@link LEDGER_DECIMALS_ROW} ties it to the migrated schema of both engines
 * (test/unit/store/rowTypes.test.ts).
 */
interface LedgerDecimalsDbRow {
  decimals_in: number | null;
  decimals_out: number | null;
}

/** Columns of {@link LedgerDecimalsDbRow}: two columns of `transfer_ledger`. */
export const LEDGER_DECIMALS_ROW = rowShape<LedgerDecimalsDbRow>({
  name: 'LedgerDecimalsDbRow',
  table: 'transfer_ledger',
  allColumns: false,
  columns: { decimals_in: 'integer?', decimals_out: 'integer?' },
});

const Decimals = z.number().int().min(0).max(255);
const Leg = z.looseObject({ currency: z.looseObject({ decimals: Decimals, symbol: z.string().optional() }) }).optional();
const QuoteCurrencies = z.looseObject({ details: z.looseObject({ currencyIn: Leg, currencyOut: Leg }) });

/**
 * @param transferIds transfers to look up
 * @returns decimals (and a bought asset's symbol) per transfer id (every id present; unknown decimals null)
 */
export async function decimalsOfTransfers(db: StoreDb, transferIds: readonly number[]): Promise<Map<number, TransferDecimals>> {
  const out = new Map<number, TransferDecimals>();
  for (const id of transferIds) {
    const l = (await db.get('SELECT decimals_in, decimals_out FROM transfer_ledger WHERE transfer_id = ?', id)) as
      LedgerDecimalsDbRow | undefined; // columns checked by LEDGER_DECIMALS_ROW
    let decimalsIn = l?.decimals_in ?? null;
    let decimalsOut = l?.decimals_out ?? null;
    const q = (await db.get('SELECT q.raw_json FROM transfers t JOIN quotes q ON q.id = t.quote_id WHERE t.id = ?', id)) as
      { raw_json: string } | undefined; // one column
    const parsed = q ? QuoteCurrencies.safeParse(safeJson(q.raw_json)) : null;
    let symbolOut: string | undefined;
    if (parsed?.success) {
      const { currencyIn, currencyOut } = parsed.data.details;
      decimalsIn ??= currencyIn?.currency.decimals ?? null;
      decimalsOut ??= currencyOut?.currency.decimals ?? null;
      const [symIn, symOut] = [currencyIn?.currency.symbol, currencyOut?.currency.symbol];
      if (symOut !== undefined && symIn !== undefined && symIn !== symOut) symbolOut = symOut;
    }
    out.set(id, { decimalsIn, decimalsOut, ...(symbolOut !== undefined ? { symbolOut } : {}) });
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
