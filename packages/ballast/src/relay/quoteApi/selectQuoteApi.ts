/**
 * The quote endpoint Ballast asks, chosen by `relay.quoteApi` (`v2` default, `v3` opt-in until its response is
 * confirmed against the live API; https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3).
 * Both map into the one internal quote model (`QuoteResponse`).
 */
import type { QuoteRequest, QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { parseQuoteV2, QUOTE_V2_ENDPOINT, QUOTE_V2_PATH } from './v2.ts';
import { mapQuoteV3, QUOTE_V3_ENDPOINT, QUOTE_V3_PATH } from './v3.ts';

/** Values of `relay.quoteApi`. */
export const QUOTE_API_VERSIONS = ['v2', 'v3'] as const;
/** One of {@link QUOTE_API_VERSIONS}. */
export type QuoteApiVersion = (typeof QUOTE_API_VERSIONS)[number];

/** One quote endpoint: its label, path and the mapping of its body into the internal model. */
export interface QuoteApi {
  version: QuoteApiVersion;
  /** `METHOD /route`, the label of errors, logs and metrics (`POST /quote/v2` or `POST /quote/v3`). */
  endpoint: string;
  /** Path under the API base. */
  path: string;
  /**
   * Maps a 2xx body into the internal model.
   *
   * @returns the quote, and the JSON to store (it parses as a `QuoteResponse` again)
   * @throws RelaySchemaError, or for v3 QuoteV3UnverifiableError (`RELAY_QUOTE_V3_UNVERIFIABLE`)
   */
  map(raw: unknown, request: QuoteRequest): { quote: QuoteResponse; stored: unknown };
}

const APIS: Readonly<Record<QuoteApiVersion, QuoteApi>> = {
  v2: { version: 'v2', endpoint: QUOTE_V2_ENDPOINT, path: QUOTE_V2_PATH, map: (raw) => ({ quote: parseQuoteV2(raw), stored: raw }) },
  v3: {
    version: 'v3',
    endpoint: QUOTE_V3_ENDPOINT,
    path: QUOTE_V3_PATH,
    map: (raw, request) => {
      const { quote, stored } = mapQuoteV3(raw, request);
      return { quote, stored };
    },
  },
};

/** The quote endpoint of a `relay.quoteApi` value. */
export function selectQuoteApi(version: QuoteApiVersion): QuoteApi {
  return APIS[version];
}
