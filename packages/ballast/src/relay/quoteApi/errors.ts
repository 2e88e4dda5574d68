/**
 * The quote-API mapping's own refusal (docs/errors.md `RELAY_QUOTE_V3_UNVERIFIABLE`).
 */
import { RelayError } from '../errors.ts';

/**
 * A POST /quote/v3 response parsed, but lacks a part local verification needs (the order data to recompute the
 * order id, the step data the deposit rules check, the `details` currencies, the request id to track). The quote
 * is refused: a quote is never signed unverified. `field` is the dotted path of what is missing.
 */
export class QuoteV3UnverifiableError extends RelayError {
  readonly field: string;

  constructor(endpoint: string, field: string, why: string) {
    super(
      'RELAY_QUOTE_V3_UNVERIFIABLE',
      endpoint,
      `Relay ${endpoint} response has no ${field}, which ${why}; the quote is refused and nothing is signed. ` +
        'Fix: set relay.quoteApi: v2 until /quote/v3 returns it (check the live API with `ballast api-check`)',
    );
    this.field = field;
  }
}
