/**
 * The deprecation headers the sandbox sends on every POST /quote/v2 response (2xx and errors), as Relay documents
 * them for the endpoints that retire with /quote/v2: deprecated 2026-11-25, retired 2027-02-23, successor
 * POST /quote/v3 (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3). Header forms:
 * `Deprecation` an RFC 9745 structured-field Date, `Sunset` an RFC 8594 HTTP-date, `Link` with rel
 * `deprecation`, `sunset` and `successor-version`, and the three listed in `Access-Control-Expose-Headers`, as on
 * the /requests/v2 precedent (https://docs.relay.link/references/api/api_guides/migrating-to-requests-v3).
 */

/** The migration guide, target of the `deprecation` and `sunset` links. */
export const QUOTE_V3_MIGRATION_GUIDE_URL = 'https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3';

/** `Deprecation` of /quote/v2: 2026-11-25T00:00:00Z as an RFC 9745 Date. */
export const QUOTE_V2_DEPRECATION = '@1795564800';

/** `Sunset` of /quote/v2: 2027-02-23T00:00:00Z as an IMF-fixdate (RFC 8594 §3, RFC 9110 §5.6.7). */
export const QUOTE_V2_SUNSET = 'Tue, 23 Feb 2027 00:00:00 GMT';

/** Paths whose every response (any method, any status) carries {@link quoteV2DeprecationHeaders}. */
export const DEPRECATED_SANDBOX_PATHS: ReadonlySet<string> = new Set(['/quote/v2']);

/**
 * The response headers of a /quote/v2 answer. `Link` is sent as three field lines (a client reads them joined
 * with ", ", RFC 9110 §5.3).
 *
 * @param baseUrl the sandbox API's base URL without trailing slash, e.g. `http://127.0.0.1:41234`: the successor
 *   is `<baseUrl>/quote/v3`
 */
export function quoteV2DeprecationHeaders(baseUrl: string): Record<string, string | string[]> {
  return {
    deprecation: QUOTE_V2_DEPRECATION,
    sunset: QUOTE_V2_SUNSET,
    link: [
      `<${QUOTE_V3_MIGRATION_GUIDE_URL}>; rel="deprecation"; type="text/html"`,
      `<${QUOTE_V3_MIGRATION_GUIDE_URL}>; rel="sunset"; type="text/html"`,
      `<${baseUrl}/quote/v3>; rel="successor-version"`,
    ],
    'access-control-expose-headers': 'Deprecation, Sunset, Link',
  };
}
