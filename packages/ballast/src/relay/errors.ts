/**
 * Error families of the Relay API client (docs/relay-contract.md "Errors"; conventions "Errors").
 *
 * Every error carries a stable `code`, the endpoint it concerns (a route such as `POST /quote/v2`, never a full
 * URL with credentials), a message that names the field and the fix, and the cause. Messages never contain the
 * API key or URL credentials: callers pass texts through {@link redactSecrets} and URLs through
 * {@link stripUrlCredentials}.
 */
import type { core, z } from 'zod';
import type { RelayErrorBody } from '@ballast/protocol/relay/schemas.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Base class of all Relay client errors. `code` is stable and safe to use as a metric label. */
export class RelayError extends BallastError {
  /** Stable code, e.g. `RELAY_HTTP_429`, `RELAY_SCHEMA_INVALID`, `RELAY_NETWORK`. */
  readonly code: string;
  /** Endpoint as `METHOD /path` (no query string, no host). */
  readonly endpoint: string;

  constructor(code: string, endpoint: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.endpoint = endpoint;
  }
}

/**
 * The API answered with a non-2xx status (docs/relay-contract.md "Errors"). Code `RELAY_HTTP_<status>`. When the body parses
 * as `RelayErrorBodySchema`, its `errorCode`, `message`, `requestId` and `errorData` are kept as fields (an
 * object `errorData`, the v3 shape, as its JSON text; the object itself stays in `body`).
 * `retryAfterMs` is the parsed `retry-after` header, when the response had one.
 */
export class RelayApiError extends RelayError {
  readonly httpStatus: number;
  readonly errorCode: string | undefined;
  readonly apiMessage: string | undefined;
  readonly requestId: string | undefined;
  readonly errorData: string | undefined;
  /** The parsed error body, when it matched the shapes of docs/relay-contract.md "Errors". */
  readonly body: RelayErrorBody | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(args: {
    endpoint: string;
    httpStatus: number;
    body: RelayErrorBody | undefined;
    /** Body text (already redacted) shown when the body is not a Relay API error shape. */
    bodyText: string;
    retryAfterMs: number | undefined;
  }) {
    const { endpoint, httpStatus, body } = args;
    const facts = [
      body?.errorCode !== undefined ? `errorCode ${body.errorCode}` : undefined,
      body?.requestId !== undefined ? `requestId ${body.requestId}` : undefined,
    ].filter((x): x is string => x !== undefined);
    const what = body?.message ?? (args.bodyText.length > 0 ? args.bodyText.slice(0, 300) : '(empty body)');
    super(
      `RELAY_HTTP_${httpStatus}`,
      endpoint,
      `Relay ${endpoint} returned HTTP ${httpStatus}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}: ${what}. ` +
        `Fix: ${fixFor(httpStatus, body?.errorCode)}`,
    );
    this.httpStatus = httpStatus;
    this.errorCode = body?.errorCode;
    this.apiMessage = body?.message;
    this.requestId = body?.requestId;
    this.errorData = typeof body?.errorData === 'object' ? JSON.stringify(body.errorData) : body?.errorData;
    this.body = body;
    this.retryAfterMs = args.retryAfterMs;
  }
}

/** A hint for the operator, by status and API error code. */
function fixFor(status: number, errorCode: string | undefined): string {
  if (errorCode === 'SOLANA_TX_TOO_LARGE') return 'restrict routing (includedOriginSwapSources, maxRouteLength) or change the amount';
  if (status === 401 || status === 403) return 'check relay.apiKey';
  if (status === 429) return 'too many requests; lower the cycle frequency or ask for a higher rate limit';
  if (status >= 500) return 'the service is failing; retry later';
  return 'check the request fields named in the message';
}

/** One schema problem: dotted path into the response and what was wrong. */
export interface RelaySchemaIssue {
  path: string;
  message: string;
}

/**
 * A 2xx response whose body is not JSON or does not match the zod schema in `schemas.ts`. Code
 * `RELAY_SCHEMA_INVALID`. `issues` holds the first problems with their paths (e.g. `chains.0.id`).
 */
export class RelaySchemaError extends RelayError {
  readonly issues: RelaySchemaIssue[];

  constructor(endpoint: string, issues: RelaySchemaIssue[], options?: { cause?: unknown }) {
    const shown = issues.map((i) => `${i.path === '' ? '(root)' : i.path}: ${i.message}`).join('; ');
    super(
      'RELAY_SCHEMA_INVALID',
      endpoint,
      `Relay ${endpoint} response failed validation: ${shown}. Fix: the API shape changed or the base URL does not ` +
        'point at the Relay API; check relay.baseUrl, and update src/relay/schemas.ts if the spec changed',
      options,
    );
    this.issues = issues;
  }
}

/** Maximum number of schema issues kept in a {@link RelaySchemaError}. */
export const MAX_SCHEMA_ISSUES = 5;

/** Converts zod issues into {@link RelaySchemaIssue}s (first {@link MAX_SCHEMA_ISSUES}). */
export function schemaIssuesFromZod(issues: readonly core.$ZodIssue[]): RelaySchemaIssue[] {
  return issues.slice(0, MAX_SCHEMA_ISSUES).map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/**
 * Validates a response body with a schema (used by every Relay client module).
 *
 * @throws RelaySchemaError (code `RELAY_SCHEMA_INVALID`) naming the first failing paths
 */
export function parseWith<S extends z.ZodType>(schema: S, endpoint: string, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new RelaySchemaError(endpoint, schemaIssuesFromZod(parsed.error.issues), { cause: parsed.error });
  return parsed.data;
}

/**
 * Rejects empty or whitespace-containing identifiers before they reach a URL or a body.
 *
 * @throws RelayRequestError naming `field`
 */
export function requireText(endpoint: string, field: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0 || /\s/.test(value)) {
    throw new RelayRequestError(endpoint, field, `must be a non-empty string without spaces, got ${JSON.stringify(value)}`);
  }
}

/**
 * The request did not complete: connection refused or reset, DNS failure, or timeout. Code `RELAY_NETWORK`.
 * `timedOut` tells a timeout apart from a connection failure.
 */
export class RelayNetworkError extends RelayError {
  readonly timedOut: boolean;

  constructor(endpoint: string, detail: string, timedOut: boolean, options?: { cause?: unknown }) {
    super(
      'RELAY_NETWORK',
      endpoint,
      `Relay ${endpoint} ${timedOut ? 'timed out' : 'could not be reached'}: ${detail}. ` +
        `Fix: ${timedOut ? 'raise relay.timeoutMs or retry later' : 'check relay.baseUrl and network access'}`,
      options,
    );
    this.timedOut = timedOut;
  }
}

/**
 * A call argument was invalid before anything was sent (e.g. a quote request failing `QuoteRequestSchema`,
 * a non-hex txHash). Code `RELAY_REQUEST_INVALID`.
 */
export class RelayRequestError extends RelayError {
  constructor(endpoint: string, field: string, problem: string, options?: { cause?: unknown }) {
    super('RELAY_REQUEST_INVALID', endpoint, `Relay ${endpoint}: ${field} ${problem}. Fix: correct ${field} before calling`, options);
  }
}

/**
 * Removes `user:password@` from every http(s) URL in a text (conventions "URLs stripped of credentials").
 *
 * @example stripUrlCredentials('GET https://u:p@api.example/x') // 'GET https://api.example/x'
 */
export function stripUrlCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1');
}

/**
 * Replaces each non-empty secret in `text` with `[redacted]`, then strips URL credentials.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (s !== undefined && s.length > 0) out = out.split(s).join('[redacted]');
  }
  return stripUrlCredentials(out);
}

/**
 * The API asked (`retry-after`, RFC 9110 §10.2.3) for a longer wait than the client honours. Code
 * `RELAY_RETRY_AFTER_TOO_LONG`; `retryAfterMs` is what the server asked for, `cause` its error response.
 */
export class RelayRetryAfterError extends RelayError {
  readonly retryAfterMs: number;

  constructor(cause: RelayApiError, retryAfterMs: number, maxRetryAfterMs: number) {
    super(
      'RELAY_RETRY_AFTER_TOO_LONG',
      cause.endpoint,
      `Relay ${cause.endpoint} answered HTTP ${cause.httpStatus} and asked to wait ${Math.ceil(retryAfterMs / 1000)} s ` +
        `(retry-after) before retrying, longer than the ${Math.round(maxRetryAfterMs / 1000)} s Ballast waits within a call. ` +
        'Fix: nothing to do now; the next cycle tries again (lower the cycle frequency if this repeats)',
      { cause },
    );
    this.retryAfterMs = retryAfterMs;
  }
}
