/**
 * What an operator does about a retiring Relay endpoint, in words for the deprecation warning
 * (src/app/relayDeprecationWatch.ts) and the `relay_sunset_soon` notification (src/notify/eventOf.ts). Pure.
 *
 * A quote endpoint that has a newer one this version speaks (POST /quote/v2 → POST /quote/v3) is left by a setting,
 * `relay.quoteApi`, after `ballast api-check` has shown the newer one usable with this config
 * (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3). Any other endpoint has no setting that
 * moves off it.
 */
import { QUOTE_API_VERSIONS, selectQuoteApi } from './quoteApi/selectQuoteApi.ts';

/** The config key that picks the quote endpoint (src/config/schema.ts `relay.quoteApi`). */
export const QUOTE_API_KEY = 'relay.quoteApi';

/**
 * The fix for a deprecated endpoint, e.g. for `POST /quote/v2`: "run `ballast api-check`, then set
 * `relay.quoteApi: v3`".
 *
 * @param endpoint `METHOD /route` as the Relay client labels it (`POST /quote/v2`, `GET /chains`)
 * @returns one clause, no final full stop
 */
export function deprecationFix(endpoint: string): string {
  const newest = QUOTE_API_VERSIONS[QUOTE_API_VERSIONS.length - 1]!; // a non-empty constant list
  const older = QUOTE_API_VERSIONS.slice(0, -1).map((v) => selectQuoteApi(v).endpoint);
  if (older.includes(endpoint)) {
    return `this version speaks ${selectQuoteApi(newest).endpoint}: run \`ballast api-check\`, then set \`${QUOTE_API_KEY}: ${newest}\``;
  }
  return 'no setting of this version moves off it: a later Ballast release has to';
}
