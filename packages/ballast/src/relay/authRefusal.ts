/**
 * A Relay answer that refuses the API key: HTTP 401 or 403 (https://docs.relay.link/references/api/api-keys;
 * /quote/v3 answers 401 `errorCode` `UNAUTHORIZED_QUOTE` without a key,
 * https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3). It is a configuration error:
 * retrying does not help until `relay.apiKey` is fixed, so the CLI exits 2 (README "Exit codes"). Pure.
 */
import { RelayApiError } from './errors.ts';

/** What Ballast keeps of a refused key: no key, no URL. */
export interface RelayAuthRefusal {
  /** `METHOD /route`, e.g. `POST /quote/v2`. */
  endpoint: string;
  /** 401 or 403. */
  httpStatus: 401 | 403;
  /** The API's `errorCode` (e.g. `UNAUTHORIZED_QUOTE`, `UNAUTHORIZED`, `FORBIDDEN`), when the body had one. */
  errorCode?: string;
}

/**
 * The key refusal an error carries, or undefined. Checks the error's type and `httpStatus` (never its message)
 * and follows `cause` links, so a wrapped error (e.g. "GET /chains failed: …") is still recognised.
 *
 * @param error anything thrown by a Relay client call or a caller wrapping it
 */
export function relayAuthRefusal(error: unknown): RelayAuthRefusal | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RelayApiError && (e.httpStatus === 401 || e.httpStatus === 403)) {
      return { endpoint: e.endpoint, httpStatus: e.httpStatus, ...(e.errorCode !== undefined ? { errorCode: e.errorCode } : {}) };
    }
    if (typeof e !== 'object') return undefined;
  }
  return undefined;
}

/**
 * The one line the CLI prints for a refused key, naming `relay.apiKey` and the fix.
 *
 * @example authRefusalLine({ endpoint: 'POST /quote/v2', httpStatus: 401, errorCode: 'UNAUTHORIZED_QUOTE' })
 * // 'Relay refused the API key (401 UNAUTHORIZED_QUOTE on POST /quote/v2): set relay.apiKey to a key from dashboard.relay.link'
 */
export function authRefusalLine(r: RelayAuthRefusal): string {
  const what = [String(r.httpStatus), r.errorCode].filter(Boolean).join(' ');
  return (
    `Relay refused the API key (${what} on ${r.endpoint}): set relay.apiKey to a key from dashboard.relay.link ` +
    '(https://docs.relay.link/references/api/api-keys); a key that was set may have been revoked'
  );
}

/**
 * Whether a base URL points at this machine (a local sandbox), where no API key is needed: host `localhost`,
 * 127.0.0.0/8 or `[::1]`.
 */
export function isLoopbackUrl(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return false; // not a URL: config validation reports it
  }
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(?:\.[0-9]{1,3}){3}$/.test(host);
}
