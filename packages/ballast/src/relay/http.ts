/**
 * One HTTP exchange with the Relay API: builds the URL and headers, applies the timeout, classifies the
 * outcome into data or a Relay error. Retries and rate limiting are layered on top by the client.
 */
import type { Logger } from 'pino';
import { readDeprecationNotice, type DeprecationNotice } from './deprecation.ts';
import { RelayErrorBodySchema, type RelayErrorBody } from '@ballast/protocol/relay/schemas.ts';
import { RelayApiError, RelayNetworkError, RelayRequestError, RelaySchemaError, redactSecrets } from './errors.ts';
import { parseRetryAfter } from './retry.ts';

/** Connection settings derived once from the client options. Secrets live only here and in headers. */
export interface HttpTarget {
  /** Origin plus base path, without trailing slash and without credentials. */
  base: string;
  headers: Record<string, string>;
  /** Strings to scrub from any text that could reach an error or a log line. */
  secrets: string[];
}

/**
 * Parses `baseUrl` into an {@link HttpTarget}. URL credentials (`https://user:pass@host`) are removed from the
 * URL and sent as HTTP Basic authorization instead; the API key goes in `x-api-key` (docs/relay-contract.md "Authentication"
 * 1).
 *
 * @throws RelayRequestError (code `RELAY_REQUEST_INVALID`) when `baseUrl` is not an absolute http(s) URL
 */
export function createHttpTarget(baseUrl: string, apiKey: string | undefined): HttpTarget {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new RelayRequestError('config', 'relay.baseUrl', 'is not an absolute URL (e.g. https://api.relay.link)', { cause });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new RelayRequestError('config', 'relay.baseUrl', `uses ${url.protocol} instead of http(s)`);
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  const secrets: string[] = [];
  if (apiKey !== undefined && apiKey.length > 0) {
    headers['x-api-key'] = apiKey;
    secrets.push(apiKey);
  }
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    for (const s of [url.username, url.password, user, pass]) if (s.length >= 3) secrets.push(s);
    url.username = '';
    url.password = '';
  }
  url.search = '';
  url.hash = '';
  return { base: url.toString().replace(/\/+$/, ''), headers, secrets };
}

/** One request to send. `endpoint` is `METHOD /route` (no query), used in errors, logs and metrics. */
export interface HttpCall {
  method: 'GET' | 'POST';
  endpoint: string;
  pathAndQuery: string;
  body?: unknown;
}

/** Environment of {@link sendOnce}. */
export interface HttpEnv {
  target: HttpTarget;
  fetch: typeof fetch;
  timeoutMs: number;
  now: () => number;
  logger?: Logger;
  onResponse?: (e: { endpoint: string; status: number | 'network_error'; durationMs: number }) => void;
  /**
   * Called for every response (any status) that carries `Deprecation`, `Sunset` or a deprecation `Link` header
   * (./deprecation.ts), before its body is read. An exception it throws is logged and does not reach the call.
   */
  onDeprecation?: (notice: DeprecationNotice) => void;
}

/** Keeps at most `n` characters of an error body for messages. */
const MAX_BODY_TEXT = 300;

/**
 * Sends one request and returns the parsed JSON body of a 2xx response (null for an empty body).
 *
 * @param signal aborts the exchange early (the caller's own deadline); reported as a RelayNetworkError
 * @throws RelayNetworkError on connection failure or when `timeoutMs` elapses (reading the body included)
 * @throws RelayApiError on a non-2xx status, keeping the error body fields of docs/relay-contract.md "Errors" and
 * `retry-after`
 * @throws RelaySchemaError when a 2xx body is not JSON
 */
export async function sendOnce(env: HttpEnv, call: HttpCall, signal?: AbortSignal): Promise<unknown> {
  const { target } = env;
  const scrub = (s: string): string => redactSecrets(s, target.secrets);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), env.timeoutMs);
  const started = performance.now();
  const report = (status: number | 'network_error'): void => {
    const durationMs = performance.now() - started;
    env.onResponse?.({ endpoint: call.endpoint, status, durationMs });
    env.logger?.debug({ endpoint: call.endpoint, status, durationMs: Math.round(durationMs) }, 'relay response');
  };
  let status: number;
  let text: string;
  let retryAfter: string | null;
  try {
    const headers = call.body === undefined ? target.headers : { ...target.headers, 'content-type': 'application/json' };
    const res = await env.fetch(`${target.base}${call.pathAndQuery}`, {
      method: call.method,
      headers,
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: signal ? AbortSignal.any([controller.signal, signal]) : controller.signal,
      // A redirect could carry the API key to another host: treat it as a failure.
      redirect: 'error',
    });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    if (env.onDeprecation !== undefined) reportDeprecation(env, call, res.headers);
    text = await res.text();
  } catch (cause) {
    report('network_error');
    const timedOut = controller.signal.aborted || signal?.aborted === true;
    const detail = controller.signal.aborted
      ? `no complete response within ${env.timeoutMs} ms`
      : signal?.aborted
        ? "abandoned: the caller's deadline passed"
        : scrub(describeNetworkCause(cause));
    throw new RelayNetworkError(call.endpoint, detail, timedOut, { cause });
  } finally {
    clearTimeout(timer);
  }
  report(status);
  if (status < 200 || status > 299) {
    const bodyText = scrub(text);
    throw new RelayApiError({
      endpoint: call.endpoint,
      httpStatus: status,
      body: parseErrorBody(bodyText),
      bodyText: bodyText.slice(0, MAX_BODY_TEXT),
      retryAfterMs: parseRetryAfter(retryAfter, env.now()),
    });
  }
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    const start = scrub(text.slice(0, 80));
    throw new RelaySchemaError(call.endpoint, [{ path: '', message: `body is not JSON (starts with ${JSON.stringify(start)})` }], {
      cause,
    });
  }
}

/**
 * Reads the deprecation headers of a response and hands a notice to `env.onDeprecation`. Never throws: the
 * parser does not, and an exception of the callback is logged at warn.
 */
function reportDeprecation(env: HttpEnv, call: HttpCall, headers: Headers): void {
  const notice = readDeprecationNotice(call.endpoint, headers, `${env.target.base}${call.pathAndQuery}`);
  if (notice === null) return;
  try {
    env.onDeprecation?.(notice);
  } catch (err) {
    env.logger?.warn(
      { endpoint: call.endpoint, err: err instanceof Error ? err.message : String(err) },
      'deprecation notice handler failed',
    );
  }
}

/** Parses an error body as a Relay API error shape, or undefined. */
function parseErrorBody(text: string): RelayErrorBody | undefined {
  try {
    const parsed = RelayErrorBodySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // not JSON: the caller shows the text instead
  }
}

/** Short description of a fetch failure: the system error code when present (ECONNREFUSED...), else message. */
function describeNetworkCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause; // undici puts the system error in `cause`
    if (inner instanceof Error) {
      const code = (inner as Error & { code?: unknown }).code; // Node system errors carry a string `code`
      return typeof code === 'string' ? `${cause.message} (${code})` : `${cause.message} (${inner.message})`;
    }
    return cause.message;
  }
  return String(cause);
}
