/**
 * Units the store knows from what it recorded, for showing amounts to people where the config does not say:
 * the symbol of an origin chain's native currency (what its network fees are paid in, e.g. `ETH`), as the stored
 * quotes name it (src/accounting/quotePrices.ts `quoteAssets`: `details.currencyIn` when the transfer paid the native
 * currency, else the quote's `fees.gas`), so `history` and `report` can put a unit beside the gas the ledger counts;
 * and an asset's decimals on a chain it sent from (the ledger's `decimals_in`, else the stored quote's
 * `details.currencyIn`), for `limits`. Reads only.
 */
import type { StoreDb } from './db.ts';
import { quoteAssets } from '../accounting/quotePrices.ts';

/** How many of a chain's latest quoted transfers are looked at before its native symbol is called unknown. */
const LOOK_BACK = 5;

function nativeOf(rawJson: string): string | null {
  try {
    return quoteAssets(JSON.parse(rawJson) as unknown).native?.symbol ?? null;
  } catch {
    return null; // a row written outside Ballast: its symbol is then unknown
  }
}

/**
 * @param transferIds transfers to look up
 * @returns the native symbol of each transfer's origin chain, from its own stored quote (absent when unknown)
 */
export async function nativeSymbolsOfTransfers(db: StoreDb, transferIds: readonly number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const id of transferIds) {
    const q = (await db.get('SELECT q.raw_json FROM transfers t JOIN quotes q ON q.id = t.quote_id WHERE t.id = ?', id)) as
      { raw_json: string } | undefined; // one column
    const symbol = q ? nativeOf(q.raw_json) : null;
    if (symbol !== null) out.set(id, symbol);
  }
  return out;
}

/**
 * @param chains origin chain names (config names, as `transfers.origin_chain` holds them)
 * @returns the native symbol of each chain, from the latest stored quotes of transfers it sent (absent when unknown)
 */
export async function nativeSymbolsOfChains(db: StoreDb, chains: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const chain of new Set(chains)) {
    const rows = (await db.all(
      'SELECT q.raw_json FROM transfers t JOIN quotes q ON q.id = t.quote_id WHERE t.origin_chain = ? ORDER BY t.id DESC LIMIT ?',
      chain,
      LOOK_BACK,
    )) as { raw_json: string }[]; // one column
    const symbol = rows.map((r) => nativeOf(r.raw_json)).find((s) => s !== null);
    if (symbol) out.set(chain, symbol);
  }
  return out;
}

/**
 * @param holdings (asset, origin chain) pairs
 * @returns the decimals of each pair that sent a transfer the store recorded units for, keyed `<asset>|<chain>`
 */
export async function sentDecimalsOf(db: StoreDb, holdings: readonly { asset: string; chain: string }[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const { asset, chain } of holdings) {
    const key = `${asset}|${chain}`;
    if (out.has(key)) continue;
    const l = (await db.get(
      'SELECT decimals_in FROM transfer_ledger WHERE asset = ? AND origin_chain = ? AND decimals_in IS NOT NULL ORDER BY transfer_id DESC LIMIT 1',
      asset,
      chain,
    )) as { decimals_in: number } | undefined; // one column
    if (l) {
      out.set(key, Number(l.decimals_in));
      continue;
    }
    const rows = (await db.all(
      'SELECT q.raw_json FROM transfers t JOIN quotes q ON q.id = t.quote_id WHERE t.asset = ? AND t.origin_chain = ? ORDER BY t.id DESC LIMIT ?',
      asset,
      chain,
      LOOK_BACK,
    )) as { raw_json: string }[]; // one column
    const decimals = rows.map((r) => inputDecimalsOf(r.raw_json)).find((d) => d !== null);
    if (decimals !== undefined && decimals !== null) out.set(key, decimals);
  }
  return out;
}

function inputDecimalsOf(rawJson: string): number | null {
  try {
    return quoteAssets(JSON.parse(rawJson) as unknown).input?.decimals ?? null;
  } catch {
    return null; // a row written outside Ballast: its decimals are then unknown
  }
}
