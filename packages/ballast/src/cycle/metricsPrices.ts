/**
 * USD prices of the configured assets for `ballast_balance_usd`. The Relay API has no price endpoint, so the
 * price of an asset is the one its latest quote carried (`details.currencyIn`: `amountUsd` for `amount`,
 * docs/relay-contract.md "Currency amount"), kept in memory as quotes arrive and read back from the `quotes` table on first
 * use (so a one-shot run has the price of earlier runs). A configured pin `prices.<asset>` (USD per whole unit) wins.
 * Without either the asset has no price and its USD gauge is absent.
 */
import type { StoreDb } from '../store/db.ts';
import { pinnedPrice, priceFromCurrencyIn, type PricedAmount, type UsdPrice } from '../metrics/units.ts';
import { latestQuoteCurrencyIn } from '../store/metricsReads.ts';

/** Prices of assets by name; one per process (built in createBallast). */
export class UsdPriceBook {
  private readonly fromQuotes = new Map<string, UsdPrice>();
  private loaded = false;

  /**
   * @param pins `prices` from the config: asset → USD per whole unit (decimal string)
   */
  constructor(private readonly pins: Readonly<Record<string, string>> = {}) {}

  /** Records the price carried by a quote just received for `asset` (ignored when it carries none). */
  noteQuote(asset: string, details: { currencyIn?: PricedAmount } | undefined): void {
    const price = priceFromCurrencyIn(details?.currencyIn);
    if (price) this.fromQuotes.set(asset, price);
  }

  /**
   * The price of `asset`: the pin, else the latest quote's (memory, then the store on first call), else null.
   *
   * @returns a Promise of the price, or of null
   * @throws the store's error when it cannot be read on the first call
   */
  async priceOf(asset: string, db: StoreDb): Promise<UsdPrice | null> {
    const pin = this.pins[asset];
    if (pin !== undefined) return pinnedPrice(pin);
    if (!this.loaded) {
      this.loaded = true;
      for (const [name, currencyIn] of await latestQuoteCurrencyIn(db)) {
        if (this.fromQuotes.has(name) || !isPricedAmount(currencyIn)) continue;
        const price = priceFromCurrencyIn(currencyIn);
        if (price) this.fromQuotes.set(name, price);
      }
    }
    return this.fromQuotes.get(asset) ?? null;
  }
}

function isPricedAmount(value: unknown): value is PricedAmount {
  if (value === null || typeof value !== 'object') return false;
  const v = value as { amount?: unknown; amountUsd?: unknown; currency?: { decimals?: unknown } | null }; // checked field by field below
  return (
    typeof v.amount === 'string' &&
    (v.amountUsd === undefined || typeof v.amountUsd === 'string') &&
    typeof v.currency === 'object' &&
    v.currency !== null &&
    Number.isInteger(v.currency.decimals)
  );
}
