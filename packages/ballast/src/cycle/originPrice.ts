/**
 * The price of an origin chain's native currency for a quote that prices it nowhere (POST /quote/v3 has no
 * `fees.gas`; an ERC-20 input is not the native currency), so the fee policy can count the origin's network cost
 * (src/policy/originCost.ts) instead of skipping the quote as `origin_cost_unknown` under a total cap.
 *
 * Asked of GET /currencies/token/price (https://docs.relay.link/references/api/get-token-price) through the
 * cycle's {@link TokenPriceCache} (one request per origin chain per TTL), for the address GET /chains lists as the
 * chain's `currency.address` (the adapter's native currency id when the list does not carry the chain). Only when
 * it changes the answer: a quote whose own data prices the native currency, or whose cost amount is unknown, asks
 * nothing. An unreadable price leaves the cost unknown (the fee policy then fails closed); the cache logs it once.
 */
import type { ChainAdapter } from '../chains/adapter.ts';
import type { PlannedTransfer } from '../planner/types.ts';
import { originCostNeedsPrice, type NativeUsdPrice, type OriginCostChain } from '../policy/originCost.ts';
import type { Logger } from 'pino';
import type { RelayClient } from '../relay/client.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { createTokenPriceCache, type TokenPriceCache } from '../relay/tokenPriceCache.ts';
import { TOKEN_PRICE_ENDPOINT } from '../relay/tokenPrice.ts';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import type { ChainsResponse, QuoteResponse } from '@ballast/protocol/relay/schemas.ts';

/** How long a native currency price (or a failure to read one) is kept, ms: about one cycle. */
export const NATIVE_PRICE_TTL_MS = 60_000;

/**
 * The runtime's native price cache over the Relay client (TTL {@link NATIVE_PRICE_TTL_MS}), logging each failed
 * request once as a warning; undefined when the client cannot ask for prices.
 *
 * @param logger the component logger the warning goes to
 */
export function createNativePriceCache(relay: RelayClient, logger: Logger, now: () => number): TokenPriceCache | undefined {
  const getTokenPrice = relay.getTokenPrice?.bind(relay);
  if (!getTokenPrice) return undefined;
  return createTokenPriceCache({
    fetch: async (q) => (await getTokenPrice(q)).priceUsdMicros,
    ttlMs: NATIVE_PRICE_TTL_MS,
    now,
    onError: (q, error) =>
      logger.warn(
        { endpoint: TOKEN_PRICE_ENDPOINT, chainId: q.chainId, address: q.address, err: shortErrorMessage(error) },
        'native currency price unreadable; quotes without their own price of it keep an unknown origin cost (skipped as origin_cost_unknown under a total fee cap)',
      ),
  });
}

/** What {@link originPriceFor} reads: the chain adapters and, when the runtime has one, the price cache. */
export interface OriginPriceDeps {
  chains: ReadonlyMap<string, ChainAdapter>;
  nativePrices?: TokenPriceCache;
}

/**
 * The origin chain as the origin cost needs it (VM family and native-currency test), from its adapter.
 *
 * @param adapter the origin chain's adapter
 */
export function originCostChain(adapter: ChainAdapter): OriginCostChain {
  return { vm: adapter.vm, isNative: (c) => adapter.currencyKey(c) === adapter.currencyKey(adapter.nativeCurrency) };
}

/**
 * The fetched price of the origin's native currency for `quote`, or undefined when none is needed (the quote prices
 * it, or the cost amount is unknown anyway), none can be asked (no price cache, no adapter), or the answer was an
 * error (the fee policy then fails closed as before; `nativePrices` reports the error once).
 *
 * @param planned the planned transfer (its origin chain and depositing wallet)
 * @param quote the parsed quote
 * @param chainsDoc GET /chains as the cycle judged with (the native currency's address)
 * @returns `usdMicros` per `amount` native base units (one whole token), with `source` naming the endpoint
 */
export async function originPriceFor(
  deps: OriginPriceDeps,
  planned: PlannedTransfer,
  quote: QuoteResponse,
  chainsDoc: ChainsResponse | null,
): Promise<NativeUsdPrice | undefined> {
  const adapter = deps.chains.get(planned.from.chain);
  if (!adapter || !deps.nativePrices) return undefined;
  if (!originCostNeedsPrice(quote, originCostChain(adapter), planned.from.address)) return undefined;
  const listed = chainsDoc?.chains.find((c) => c.id === adapter.chainId)?.currency;
  const address = listed?.address ?? adapter.nativeCurrency;
  let usdMicros: bigint;
  try {
    usdMicros = await deps.nativePrices.get({ chainId: adapter.chainId, address });
  } catch {
    return undefined; // reported by the cache's onError, once per request; the cost stays unknown (fail closed)
  }
  const symbol = listed?.symbol ?? address;
  return {
    usdMicros,
    amount: 10n ** BigInt(adapter.nativeDecimals),
    source: `${formatUsdMicros(usdMicros)} USD per ${symbol} (${TOKEN_PRICE_ENDPOINT})`,
  };
}
