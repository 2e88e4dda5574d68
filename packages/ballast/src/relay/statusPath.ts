/**
 * Safe resolution of a step item's `check.endpoint` (docs/relay-contract.md "Step item": "endpoint (string path with
 * requestId query)"; "GET /intents/status/v3": an older `/intents/status?requestId=<id>` path also appears).
 *
 * The check endpoint comes from an untrusted quote, so it is followed only when it is a plain relative path to
 * the status endpoint for the same request id; anything else (absolute URL, `//host`, path traversal, another
 * path, extra parameters, another request id) falls back to `/intents/status/v3?requestId=<id>`.
 */

/** Current status route (docs/relay-contract.md "Versioning": `/intents/status/v3` current). */
export const STATUS_V3_PATH = '/intents/status/v3';

/** Status paths a check endpoint may name: `/intents/status` or `/intents/status/v<N>`. */
const STATUS_PATH_RE = /^\/intents\/status(?:\/v[0-9]{1,3})?$/;

/** Result of {@link resolveStatusPath}. */
export interface ResolvedStatusPath {
  /** Route without query, e.g. `/intents/status/v3` (bounded; usable as a metric label). */
  route: string;
  /** Path and query to append to the base URL; the query is rebuilt, not copied. */
  pathAndQuery: string;
  /** Why a given check endpoint was not followed; undefined when it was followed or none was given. */
  rejected?: string;
}

/**
 * Picks the status path to poll for `requestId`.
 *
 * @param requestId the request id being tracked (docs/relay-contract.md "Step": same for all steps of a quote)
 * @param checkEndpoint `check.endpoint` from the quote, if any
 */
export function resolveStatusPath(requestId: string, checkEndpoint?: string): ResolvedStatusPath {
  const fallback = (rejected?: string): ResolvedStatusPath => ({
    route: STATUS_V3_PATH,
    pathAndQuery: `${STATUS_V3_PATH}?requestId=${encodeURIComponent(requestId)}`,
    ...(rejected !== undefined ? { rejected } : {}),
  });
  if (checkEndpoint === undefined) return fallback();
  const why = unsafeReason(requestId, checkEndpoint);
  if (why !== undefined) return fallback(why);
  const route = checkEndpoint.split('?')[0]!; // split always yields at least one element
  return { route, pathAndQuery: `${route}?requestId=${encodeURIComponent(requestId)}` };
}

/** Returns why `endpoint` must not be followed, or undefined when it is safe. */
function unsafeReason(requestId: string, endpoint: string): string | undefined {
  if (!endpoint.startsWith('/') || endpoint.startsWith('//')) return 'not a relative path';
  if (/[\\\s#@%]/.test(endpoint) || /[\u0000-\u001f\u007f]/.test(endpoint)) return 'contains characters not allowed in a status path';
  const [path, query = '', ...rest] = endpoint.split('?');
  if (rest.length > 0) return 'more than one "?"';
  if (path === undefined || !STATUS_PATH_RE.test(path)) return 'path is not under /intents/status';
  const params = new URLSearchParams(query);
  const keys = [...params.keys()];
  if (keys.length !== 1 || keys[0] !== 'requestId') return 'query must be exactly requestId';
  if (params.get('requestId') !== requestId) return 'requestId in the check endpoint differs from the tracked request';
  return undefined;
}
