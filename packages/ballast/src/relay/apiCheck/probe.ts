/**
 * One HTTP exchange with the Relay API for `ballast api-check`: like the client's (src/relay/http.ts: same
 * headers, `x-api-key`, URL credentials as Basic authorization, no redirects, a timeout), but it never throws and
 * keeps the status, the response headers and the body text, so every outcome can be reported and saved.
 * Texts are scrubbed of the API key and URL credentials.
 */
import { redactSecrets } from '../errors.ts';
import type { HttpTarget } from '../http.ts';

/** What one exchange gave. `status` null: no response (`error` says why). */
export interface ProbeResult {
  endpoint: string;
  status: number | null;
  /** Response headers, lower-case names; values scrubbed of secrets. */
  headers: Record<string, string>;
  /** Body text, scrubbed of secrets. */
  bodyText: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** Network failure or timeout, scrubbed. */
  error?: string;
}

/** Options of {@link probe}. */
export interface ProbeOptions {
  target: HttpTarget;
  fetch: typeof fetch;
  timeoutMs: number;
  /** Headers left out of `target.headers` (e.g. `x-api-key`, to see what the endpoint does without a key). */
  omitHeaders?: readonly string[];
}

/**
 * Sends one request and reports what came back.
 *
 * @param call `endpoint` label (`METHOD /route`), path and query, and an optional JSON body
 * @returns the result; never throws
 */
export async function probe(
  opts: ProbeOptions,
  call: { method: 'GET' | 'POST'; endpoint: string; pathAndQuery: string; body?: unknown },
): Promise<ProbeResult> {
  const scrub = (s: string): string => redactSecrets(s, opts.target.secrets);
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(opts.target.headers).filter(([name]) => !(opts.omitHeaders ?? []).includes(name)),
  );
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await opts.fetch(`${opts.target.base}${call.pathAndQuery}`, {
      method: call.method,
      headers,
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: AbortSignal.timeout(opts.timeoutMs),
      redirect: 'error', // a redirect could carry the key to another host
    });
    const bodyText = scrub(await res.text());
    const out: Record<string, string> = {};
    res.headers.forEach((value, name) => (out[name.toLowerCase()] = scrub(value)));
    let json: unknown;
    try {
      json = JSON.parse(bodyText) as unknown;
    } catch {
      json = undefined; // reported as not JSON by the caller
    }
    return { endpoint: call.endpoint, status: res.status, headers: out, bodyText, json };
  } catch (error) {
    const inner =
      error instanceof Error && error.cause instanceof Error
        ? ` (${(error.cause as Error & { code?: string }).code ?? error.cause.message})`
        : ''; // undici keeps the system error in `cause`
    const what =
      error instanceof Error
        ? `${error.name === 'TimeoutError' ? `no response within ${opts.timeoutMs} ms` : error.message}${inner}`
        : String(error);
    return { endpoint: call.endpoint, status: null, headers: {}, bodyText: '', json: undefined, error: scrub(what) };
  }
}
