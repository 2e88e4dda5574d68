/**
 * Retry with exponential backoff and jitter for Relay calls (docs/design.md "Rate limits": back off on 429).
 *
 * Retried: HTTP 429 and 503 (the "wait and retry" answers of docs/relay-contract.md "Errors", e.g. attest-deposit 503 and
 * status 429), 502 and 504 (gateway failures) and network errors/timeouts. Never retried: any other 4xx or 5xx, schema
 * errors, invalid requests, and, whatever their status, a screening refusal (`BLOCKED_WALLET_ADDRESS`,
 * `SANCTIONED_WALLET_ADDRESS`: src/relay/screening.ts) — final until an operator acts. A `retry-after` header
 * (seconds or HTTP date, RFC 9110 §10.2.3) sets the wait.
 */
import { RelayApiError, RelayNetworkError, RelayRetryAfterError } from './errors.ts';
import { screeningRefusal } from './screening.ts';
import { raceAbort } from '../core/abortable.ts';

/** HTTP statuses that are retried. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Defaults: 4 retries, 500 ms base, 30 s cap per wait, and at most 60 s honoured from `retry-after`. */
export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 30_000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** Whether an error from a Relay call may be retried (see module doc). */
export function isRetryable(error: unknown): boolean {
  if (error instanceof RelayNetworkError) return true;
  if (screeningRefusal(error)) return false;
  return error instanceof RelayApiError && RETRYABLE_STATUSES.has(error.httpStatus);
}

/**
 * Parses a `retry-after` header value into milliseconds from `nowMs`.
 *
 * @param value delay-seconds ("2") or an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"); null when absent
 * @param nowMs current time, unix milliseconds (used for the HTTP-date form)
 * @returns milliseconds to wait (0 for a date in the past), or undefined when absent or unparseable
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (/^[0-9]+$/.test(v)) return Number(v) * 1000;
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Exponential backoff with "equal jitter": the wait for retry `attempt` (0-based) is uniformly drawn from
 * [d/2, d] where d = min(maxMs, baseMs · 2^attempt).
 *
 * @param random uniform in [0, 1)
 * @returns milliseconds, an integer
 */
export function backoffDelayMs(
  attempt: number,
  random: () => number,
  baseMs = DEFAULT_BASE_DELAY_MS,
  maxMs = DEFAULT_MAX_DELAY_MS,
): number {
  const d = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.floor(d / 2 + random() * (d / 2));
}

/** Options of {@link withRetry}. */
export interface RetryOptions {
  /** Retries after the first attempt (0 = no retry). */
  maxRetries: number;
  sleep: (ms: number) => Promise<void>;
  random?: () => number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A `retry-after` longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs?: number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /**
   * Ends the retries: once aborted no new attempt starts and a wait in progress ends at once; the last error is
   * thrown (a caller's overall deadline, e.g. `tracking.timeoutSec`, holds across the retries).
   */
  signal?: AbortSignal;
}

/**
 * Runs `fn` and retries it on retryable errors ({@link isRetryable}), at most `maxRetries` times. The wait is
 * the response's `retry-after` when it asks for a positive wait, else {@link backoffDelayMs} (a zero or past
 * `retry-after` must not turn into a hot loop).
 *
 * @param fn receives the 0-based attempt number
 * @throws the last error when it is not retryable or retries are exhausted; RelayRetryAfterError when
 *   `retry-after` exceeds `maxRetryAfterMs` (its message says what the server asked for)
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const random = opts.random ?? Math.random;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (!isRetryable(error) || attempt >= opts.maxRetries || opts.signal?.aborted) throw error;
      const retryAfterMs = error instanceof RelayApiError ? error.retryAfterMs : undefined;
      if (error instanceof RelayApiError && retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) {
        throw new RelayRetryAfterError(error, retryAfterMs, maxRetryAfterMs);
      }
      // `retry-after: 0` or a date already past would make a hot loop: the normal backoff applies instead.
      const delayMs =
        retryAfterMs !== undefined && retryAfterMs > 0 ? retryAfterMs : backoffDelayMs(attempt, random, opts.baseDelayMs, opts.maxDelayMs);
      opts.onRetry?.({ attempt, delayMs, error });
      if (opts.signal) await raceAbort(opts.sleep(delayMs), opts.signal);
      else await opts.sleep(delayMs);
      if (opts.signal?.aborted) throw error;
    }
  }
}
