/**
 * The deprecation signals of a Relay response as raw header strings: `Deprecation` (RFC 9745, e.g.
 * `@1795564800`), `Sunset` (RFC 8594 HTTP-date, e.g. `Tue, 23 Feb 2027 00:00:00 GMT`) and `Link` (RFC 8288)
 * (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3). Kept in this one function so a
 * parser of these headers can replace it without touching `ballast api-check`.
 */

/** Raw header values; absent when the response had none. */
export interface DeprecationHeaders {
  deprecation?: string;
  sunset?: string;
  link?: string;
}

/**
 * Reads the three headers from a response's headers.
 *
 * @param headers lower-case header name → value (as `Headers` or a plain record)
 * @returns the raw strings present
 */
export function readDeprecationHeaders(headers: Headers | Readonly<Record<string, string>>): DeprecationHeaders {
  const get = (name: string): string | undefined =>
    headers instanceof Headers ? (headers.get(name) ?? undefined) : headers[name];
  const out: DeprecationHeaders = {};
  const deprecation = get('deprecation');
  const sunset = get('sunset');
  const link = get('link');
  if (deprecation !== undefined) out.deprecation = deprecation;
  if (sunset !== undefined) out.sunset = sunset;
  if (link !== undefined) out.link = link;
  return out;
}
