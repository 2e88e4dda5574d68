/**
 * The deprecation signals of a Relay response for `ballast api-check`: the raw `Deprecation` (RFC 9745, e.g.
 * `@1795564800`), `Sunset` (RFC 8594 HTTP-date, e.g. `Tue, 23 Feb 2027 00:00:00 GMT`) and `Link` (RFC 8288)
 * strings, and what the client's own parser (src/relay/deprecation.ts) reads from them
 * (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3).
 */
import { readDeprecationNotice } from '../deprecation.ts';

/** Raw header values (absent when the response had none) and the parsed dates and successor. */
export interface DeprecationHeaders {
  deprecation?: string;
  sunset?: string;
  link?: string;
  /** `Deprecation` as unix seconds, when well formed. */
  deprecatedAtSec?: number;
  /** `Sunset` as unix seconds, when well formed. */
  sunsetAtSec?: number;
  /** Target of `Link; rel="successor-version"`, when given. */
  successor?: string;
}

/**
 * Reads the three headers from a response's headers.
 *
 * @param headers lower-case header name → value (as `Headers` or a plain record)
 * @param endpoint `METHOD /route` of the call (only carried into the parser's notice)
 * @returns the raw strings present and what parsed; never throws
 */
export function readDeprecationHeaders(headers: Headers | Readonly<Record<string, string>>, endpoint = ''): DeprecationHeaders {
  const get = (name: string): string | undefined => (headers instanceof Headers ? (headers.get(name) ?? undefined) : headers[name]);
  const out: DeprecationHeaders = {};
  const deprecation = get('deprecation');
  const sunset = get('sunset');
  const link = get('link');
  if (deprecation !== undefined) out.deprecation = deprecation;
  if (sunset !== undefined) out.sunset = sunset;
  if (link !== undefined) out.link = link;
  const notice = readDeprecationNotice(endpoint, { get: (name) => get(name.toLowerCase()) ?? null });
  if (notice?.deprecatedAtSec !== undefined) out.deprecatedAtSec = notice.deprecatedAtSec;
  if (notice?.sunsetAtSec !== undefined) out.sunsetAtSec = notice.sunsetAtSec;
  const successor = notice?.links.find((l) => l.rel === 'successor-version')?.uri;
  if (successor !== undefined) out.successor = successor;
  return out;
}

/** `2027-02-23` from unix seconds. */
function isoDay(unixSec: number): string {
  return new Date(unixSec * 1000).toISOString().slice(0, 10);
}

/**
 * The deprecation part of an api-check line: `Deprecation 2026-11-25 (@1795564800)`, `Sunset 2027-02-23`, the
 * successor when named; a malformed value is shown raw and marked; `-` when absent.
 */
export function renderDeprecationHeaders(h: DeprecationHeaders): string[] {
  const date = (raw: string | undefined, sec: number | undefined): string =>
    raw === undefined ? '-' : sec === undefined ? `${raw} (malformed, ignored)` : `${isoDay(sec)} (${raw})`;
  const parts = [`Deprecation ${date(h.deprecation, h.deprecatedAtSec)}`, `Sunset ${date(h.sunset, h.sunsetAtSec)}`];
  if (h.successor !== undefined) parts.push(`successor ${h.successor}`);
  return parts;
}
