/**
 * POST /quote/v2 → Ballast's internal quote model (docs/relay-contract.md "POST /quote/v2", "Quote response"). The internal
 * model IS the v2 response as `QuoteResponseSchema` parses it, so the mapping is the parse itself: the fee policy,
 * the verifier and the executor read `details`, `steps[].items[]` and `protocol.v2` as docs/relay-contract.md gives them.
 */
import { parseWith } from '../errors.ts';
import { QuoteResponseSchema, type QuoteResponse } from '@ballast/protocol/relay/schemas.ts';

/** Endpoint label of POST /quote/v2 (errors, logs, metrics). */
export const QUOTE_V2_ENDPOINT = 'POST /quote/v2';
/** Path of POST /quote/v2 under the API base. */
export const QUOTE_V2_PATH = '/quote/v2';

/**
 * Parses a POST /quote/v2 body into the internal quote model.
 *
 * @param raw the JSON body as received
 * @returns the parsed quote; the form to store is `raw` itself (it parses the same way again)
 * @throws RelaySchemaError (code `RELAY_SCHEMA_INVALID`) naming the first paths that do not match docs/relay-contract.md
 */
export function parseQuoteV2(raw: unknown): QuoteResponse {
  return parseWith(QuoteResponseSchema, QUOTE_V2_ENDPOINT, raw);
}
