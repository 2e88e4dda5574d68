/**
 * Reads the deprecation signals of one Relay API response into a typed notice. Pure: no I/O, never throws.
 *
 * Relay marks every response of a retiring endpoint (2xx, 4xx and 5xx alike) with three headers, so clients need
 * not hard-code dates (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3):
 * - `Deprecation` (RFC 9745 §2.1): a structured-field Date (RFC 9651 §3.3.7), `@<unix seconds>`, e.g.
 *   `@1795564800` (2026-11-25T00:00:00Z); parsed with the `structured-headers` package;
 * - `Sunset` (RFC 8594 §3): an HTTP-date, e.g. `Tue, 23 Feb 2027 00:00:00 GMT` (IMF-fixdate, see ./httpDate.ts);
 * - `Link` (RFC 8288): targets with rel `deprecation` (RFC 9745 §3), `sunset` (RFC 8594 §6) and
 *   `successor-version` (RFC 5829); parsed with the `http-link-header` package. Other relations are left out.
 *
 * A malformed header is left out of the notice and listed in `ignored` with the reason, for the caller to log.
 */
import LinkHeader from 'http-link-header';
import { parseItem } from 'structured-headers';
import { parseImfFixdate } from './httpDate.ts';

/** Link relations kept in a {@link DeprecationNotice}. */
export const DEPRECATION_LINK_RELS = ['deprecation', 'sunset', 'successor-version'] as const;
/** One of {@link DEPRECATION_LINK_RELS}. */
export type DeprecationLinkRel = (typeof DEPRECATION_LINK_RELS)[number];

/** A `Link` target about the endpoint's deprecation (RFC 8288 §3). */
export interface DeprecationLink {
  rel: DeprecationLinkRel;
  /** Absolute http(s) URL (a relative reference is resolved against the request URL). */
  uri: string;
  /** The link's `type` attribute (media type hint, lower case), when given. */
  type?: string;
}

/** A deprecation header left out of a notice, and why. */
export interface IgnoredDeprecationHeader {
  header: 'Deprecation' | 'Sunset' | 'Link';
  /** The field value as received, cut to 200 characters. */
  value: string;
  /** What is wrong with it, naming the expected form. */
  reason: string;
}

/** The deprecation signals of one response of `endpoint`. */
export interface DeprecationNotice {
  /** `METHOD /route` of the call (the Relay client's bounded endpoint label), e.g. `POST /quote/v2`. */
  endpoint: string;
  /** `Deprecation` date, unix seconds (may lie in the future: the endpoint will be deprecated then). */
  deprecatedAtSec?: number;
  /** `Sunset` date, unix seconds: when the endpoint is expected to stop answering. */
  sunsetAtSec?: number;
  /** Targets of the kept relations, in header order. */
  links: DeprecationLink[];
  /** Deprecation headers present but malformed (left out above). */
  ignored: IgnoredDeprecationHeader[];
}

/** What the parser needs of a response's headers (the Fetch API `Headers` fits; names are case-insensitive). */
export interface HeaderSource {
  get(name: string): string | null;
}

const MAX_SHOWN_VALUE = 200;

/**
 * Reads `Deprecation`, `Sunset` and `Link` from one response.
 *
 * @param endpoint `METHOD /route` of the call, copied into the notice
 * @param headers the response headers
 * @param requestUrl the URL the request went to (without credentials), to resolve relative `Link` targets; without
 *   it a relative target is ignored
 * @returns null when the response carries no `Deprecation` or `Sunset` header and no `Link` with a kept relation;
 *   else the notice (possibly with only `ignored` entries). Never throws.
 */
export function readDeprecationNotice(endpoint: string, headers: HeaderSource, requestUrl?: string): DeprecationNotice | null {
  const notice: DeprecationNotice = { endpoint, links: [], ignored: [] };
  const ignore = (header: IgnoredDeprecationHeader['header'], value: string, reason: string): void => {
    notice.ignored.push({ header, value: value.slice(0, MAX_SHOWN_VALUE), reason });
  };
  const deprecation = headers.get('deprecation');
  if (deprecation !== null) {
    const read = parseDeprecationDate(deprecation);
    if (read.ok) notice.deprecatedAtSec = read.unixSec;
    else ignore('Deprecation', deprecation, read.reason);
  }
  const sunset = headers.get('sunset');
  if (sunset !== null) {
    const read = parseImfFixdate(sunset);
    if (read.ok) notice.sunsetAtSec = read.unixSec;
    else ignore('Sunset', sunset, `${read.reason}; RFC 8594 §3 wants an HTTP-date`);
  }
  const link = headers.get('link');
  if (link !== null) readLinks(link, requestUrl, notice, ignore);
  const empty = deprecation === null && sunset === null && notice.links.length === 0 && notice.ignored.length === 0;
  return empty ? null : notice;
}

/**
 * Parses a `Deprecation` field value: an sf-date Item (RFC 9745 §2.1, RFC 9651 §3.3.7). A date followed by
 * parameters (`@1795564800;x=1`) is refused: `structured-headers` 2.1 does not parse parameters after a Date, and
 * RFC 9745 defines none.
 *
 * @returns unix seconds, or the reason the value is not one
 */
export function parseDeprecationDate(value: string): { ok: true; unixSec: number } | { ok: false; reason: string } {
  let item;
  try {
    item = parseItem(value.trim());
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return { ok: false, reason: `is not a structured-field Date "@<unix seconds>" (RFC 9745 §2.1): ${detail}` };
  }
  const bare = item[0];
  if (!(bare instanceof Date)) {
    return {
      ok: false,
      reason: 'is a structured field but not a Date "@<unix seconds>" (RFC 9745 §2.1; `true` and HTTP-dates are pre-RFC drafts)',
    };
  }
  const ms = bare.getTime();
  if (!Number.isSafeInteger(ms)) return { ok: false, reason: 'is a Date outside the range a clock can show' };
  return { ok: true, unixSec: ms / 1000 };
}

/** Adds the kept `Link` targets of `value` to `notice`, or an ignored entry per problem. */
function readLinks(
  value: string,
  requestUrl: string | undefined,
  notice: DeprecationNotice,
  ignore: (header: 'Link', value: string, reason: string) => void,
): void {
  let parsed: LinkHeader;
  try {
    parsed = LinkHeader.parse(value);
  } catch (e) {
    ignore('Link', value, `is not an RFC 8288 Link field (${e instanceof Error ? e.message : String(e)})`);
    return;
  }
  for (const ref of parsed.refs) {
    const rel = typeof ref.rel === 'string' ? ref.rel.toLowerCase() : '';
    if (!(DEPRECATION_LINK_RELS as readonly string[]).includes(rel)) continue;
    const shown = `<${ref.uri}>; rel="${rel}"`;
    if (ref['anchor'] !== undefined) {
      ignore('Link', shown, 'has an anchor: it describes another resource than the one requested (RFC 8288 §3.2)');
      continue;
    }
    let url: URL;
    try {
      url = requestUrl === undefined ? new URL(ref.uri) : new URL(ref.uri, requestUrl);
    } catch {
      ignore('Link', shown, 'target is not a URL (and no request URL to resolve it against)');
      continue;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ignore('Link', shown, `target uses ${url.protocol} instead of http(s)`);
      continue;
    }
    const type = ref['type'];
    notice.links.push({
      rel: rel as DeprecationLinkRel,
      uri: url.toString(),
      ...(typeof type === 'string' && type !== '' ? { type } : {}),
    }); // rel checked against the list above
  }
}
