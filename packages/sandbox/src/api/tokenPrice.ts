/**
 * GET /currencies/token/price?address=&chainId= of the sandbox (https://docs.relay.link/references/api/get-token-price):
 * `{price}`, the USD price of one whole token as a JSON number, from the sandbox's own price table
 * (src/quote/prices.ts) by the symbol GET /chains lists for that address on that chain (the native `currency`, then
 * `erc20Currencies`; EVM addresses compared case-insensitively). 400 `{error}` for a missing or unknown chain or
 * token, as the documentation shows; the `tokenPriceError` fault answers 500 `{message, errorCode}` instead.
 */
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { buildChainsDocument } from './chainsDocument.ts';
import type { RouteResult } from './routes.ts';
import type { SandboxState } from './state.ts';

/**
 * Answers GET /currencies/token/price.
 *
 * @param query the request's query (`address`, `chainId`)
 * @returns 200 `{price}` (e.g. `{price: 3000}` for ETH), 400 `{error}` naming the unknown chain or token, or 500
 *   under the `tokenPriceError` fault
 */
export function getTokenPrice(state: SandboxState, query: URLSearchParams): RouteResult {
  if (state.faults.get().tokenPriceError) {
    return { status: 500, body: { message: 'Internal server error (sandbox fault tokenPriceError)', errorCode: 'UNKNOWN_ERROR' } };
  }
  const address = query.get('address');
  const chainIdText = query.get('chainId');
  if (!address || !chainIdText || !/^[1-9][0-9]*$/.test(chainIdText)) {
    return { status: 400, body: { error: 'give an address and a chainId (a positive integer) query parameter' } };
  }
  const chainId = Number(chainIdText);
  const doc = buildChainsDocument(state.chains, state.solver.address, state.vm?.chains ?? []);
  const chain = doc.chains.find((c) => c.id === chainId);
  if (!chain) return { status: 400, body: { error: `unknown chainId ${chainId}` } };
  const same = (a: string) => (a.startsWith('0x') ? a.toLowerCase() === address.toLowerCase() : a === address);
  const currency = [chain.currency, ...chain.erc20Currencies].find((c) => same(c.address));
  const micros = currency ? state.prices[currency.symbol] : undefined;
  if (!currency || micros === undefined) return { status: 400, body: { error: `unknown token ${address} on chain ${chainId}` } };
  // A JSON number, as documented: the micro-USD price's decimal text read as a number (exact for these prices).
  return { status: 200, body: { price: Number(formatUsdMicros(micros)) } };
}
