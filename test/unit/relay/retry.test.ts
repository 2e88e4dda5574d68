import { describe, expect, it } from 'vitest';
import { RelayApiError, RelayNetworkError, RelayRetryAfterError, RelaySchemaError } from '../../../packages/ballast/src/relay/errors.ts';
import { backoffDelayMs, isRetryable, parseRetryAfter, withRetry } from '../../../packages/ballast/src/relay/retry.ts';

const apiError = (httpStatus: number, retryAfterMs?: number): RelayApiError =>
  new RelayApiError({ endpoint: 'GET /chains', httpStatus, body: { message: 'x' }, bodyText: '', retryAfterMs });

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });
  it('reads an HTTP date relative to now, clamping the past to 0', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
  });
  it('ignores absent or garbage values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});

describe('backoffDelayMs', () => {
  it('doubles per attempt within [d/2, d] and stops at the cap', () => {
    expect([0, 1, 2, 3].map((a) => backoffDelayMs(a, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect([0, 1, 2, 3].map((a) => backoffDelayMs(a, () => 0.999999))).toEqual([499, 999, 1999, 3999]);
    expect(backoffDelayMs(20, () => 0)).toBe(15_000);
  });
});

describe('isRetryable', () => {
  it('retries 429/502/503/504 and network errors only', () => {
    expect([429, 502, 503, 504].every((s) => isRetryable(apiError(s)))).toBe(true);
    expect([400, 401, 404, 409, 500].some((s) => isRetryable(apiError(s)))).toBe(false);
    expect(isRetryable(new RelayNetworkError('GET /chains', 'refused', false))).toBe(true);
    expect(isRetryable(new RelaySchemaError('GET /chains', []))).toBe(false);
    expect(isRetryable(new Error('other'))).toBe(false);
  });
});

describe('withRetry', () => {
  it('uses retry-after when present, backoff otherwise, and returns the eventual result', async () => {
    const sleeps: number[] = [];
    const errors = [apiError(429, 1200), apiError(503)];
    const result = await withRetry(
      async (attempt) => {
        const e = errors[attempt];
        if (e !== undefined) throw e;
        return `ok after ${attempt}`;
      },
      { maxRetries: 4, sleep: async (ms) => void sleeps.push(ms), random: () => 0 },
    );
    expect(result).toBe('ok after 2');
    expect(sleeps).toEqual([1200, 500]);
  });

  it('a retry-after of 0 (or a date already past) backs off instead of looping hot', async () => {
    const sleeps: number[] = [];
    const errors = [apiError(429, 0), apiError(503, 0)];
    const result = await withRetry(
      async (attempt) => {
        const e = errors[attempt];
        if (e !== undefined) throw e;
        return attempt;
      },
      { maxRetries: 4, sleep: async (ms) => void sleeps.push(ms), random: () => 0 },
    );
    expect(result).toBe(2);
    expect(sleeps).toEqual([250, 500]);
  });

  it('a retry-after longer than the client waits ends with an error saying what the server asked for', async () => {
    let calls = 0;
    const err = await withRetry(
      async () => {
        calls++;
        throw apiError(429, 120_000);
      },
      { maxRetries: 4, sleep: async () => {}, maxRetryAfterMs: 60_000 },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(err).toBeInstanceOf(RelayRetryAfterError);
    expect((err as RelayRetryAfterError).code).toBe('RELAY_RETRY_AFTER_TOO_LONG');
    expect((err as Error).message).toContain('asked to wait 120 s (retry-after)');
    expect((err as Error).message).toContain('longer than the 60 s');
  });

  it('does not retry a 400', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw apiError(400);
        },
        { maxRetries: 4, sleep: async () => {} },
      ),
    ).rejects.toMatchObject({ code: 'RELAY_HTTP_400' });
    expect(calls).toBe(1);
  });

  it('stops after maxRetries', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw apiError(503);
        },
        { maxRetries: 3, sleep: async () => {} },
      ),
    ).rejects.toBeInstanceOf(RelayApiError);
    expect(calls).toBe(4);
  });
});
