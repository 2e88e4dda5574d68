/**
 * GET /currencies/token/price?address=&chainId= (https://docs.relay.link/references/api/get-token-price): the USD
 * price of one whole token, `{"price": <number>}`. The JSON number is read as money without floating-point
 * arithmetic: its decimal text (the shortest text that round-trips, as `JSON.parse` read it) is parsed into
 * micro-USD by `parseUsdMicros` (@ballast/protocol/core/units.ts). Pure; no I/O.
 *
 * Ballast asks it for one thing only: the price of an origin chain's native currency when a quote prices it
 * nowhere (POST /quote/v3 has no `fees.gas`; src/cycle/originPrice.ts).
 */
import { z } from 'zod';
import { parseUsdMicros, formatUsdMicros } from '@ballast/protocol/core/units.ts';

/** Endpoint label of GET /currencies/token/price (errors, logs, metrics). */
export const TOKEN_PRICE_ENDPOINT = 'GET /currencies/token/price';

/**
 * Highest price accepted, micro-USD per whole token (10,000,000 USD): no native currency comes near it, so a larger
 * answer is a broken one, and pricing an origin cost with it would refuse every route for a wrong reason.
 */
export const MAX_TOKEN_PRICE_USD_MICROS = 10_000_000_000_000n;

/**
 * The decimal text of a finite JSON number, without an exponent (`1e-7` → `"0.0000001"`, `2.5e+21` →
 * `"2500000000000000000000"`), from the number's shortest round-trip text (`String(n)`), digit by digit.
 *
 * @throws TypeError when `n` is not finite
 */
export function jsonNumberDecimalText(n: number): string {
  if (!Number.isFinite(n)) throw new TypeError(`not a finite number: ${String(n)}`);
  const text = String(n);
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:e([+-][0-9]+))?$/.exec(text);
  if (!m) throw new TypeError(`unexpected number text ${text}`);
  const [, sign = '', int = '', frac = '', exp = '0'] = m;
  const shift = Number(exp);
  let digits = int + frac;
  let point = int.length + shift; // position of the decimal point within `digits`
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  } else if (point > digits.length) {
    digits = digits + '0'.repeat(point - digits.length);
  }
  const whole = digits.slice(0, point).replace(/^0+(?=[0-9])/, '');
  const fraction = digits.slice(point).replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * Converts a price as the API sends it (a JSON number, USD per whole token) into micro-USD per whole token.
 *
 * @returns micro-USD (`3000` → `3_000_000_000n`; digits beyond six decimals are rounded by `parseUsdMicros`)
 * @throws TypeError naming the problem when the price is not finite, not positive once in micro-USD (zero, negative,
 *   or below 0.000001 USD), or above {@link MAX_TOKEN_PRICE_USD_MICROS}
 */
export function tokenPriceUsdMicros(price: number): bigint {
  if (!Number.isFinite(price)) throw new TypeError(`price must be a finite number of USD per whole token, got ${String(price)}`);
  const micros = parseUsdMicros(jsonNumberDecimalText(price));
  if (micros <= 0n) throw new TypeError(`price must be a positive USD amount of at least 0.000001, got ${String(price)}`);
  if (micros > MAX_TOKEN_PRICE_USD_MICROS) {
    throw new TypeError(
      `price ${String(price)} USD per whole token is above ${formatUsdMicros(MAX_TOKEN_PRICE_USD_MICROS)}; refusing it as broken`,
    );
  }
  return micros;
}

/**
 * Response of GET /currencies/token/price: `{price}` (a JSON number, USD per whole token), parsed into
 * `priceUsdMicros` (bigint micro-USD per whole token) by {@link tokenPriceUsdMicros}; a bad price is a schema
 * issue at `price` saying what is wrong.
 */
export const TokenPriceResponseSchema = z.looseObject({ price: z.number() }).transform((body, ctx) => {
  try {
    return { priceUsdMicros: tokenPriceUsdMicros(body.price) };
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['price'], message: error instanceof Error ? error.message : String(error) });
    return z.NEVER;
  }
});

/** Parsed GET /currencies/token/price answer. */
export type TokenPrice = z.output<typeof TokenPriceResponseSchema>;
