/**
 * A refused API key is recognised by the error's type and HTTP status, never by its message text; screening
 * refusals by the API's errorCode; neither is retried.
 */
import { describe, expect, it } from 'vitest';
import { RelayApiError, RelayNetworkError } from '../../../packages/ballast/src/relay/errors.ts';
import { authRefusalLine, isLoopbackUrl, relayAuthRefusal } from '../../../packages/ballast/src/relay/authRefusal.ts';
import { isScreeningFailReason, screeningRefusal } from '../../../packages/ballast/src/relay/screening.ts';
import { isRetryable } from '../../../packages/ballast/src/relay/retry.ts';
import { missingKeyWarning } from '../../../packages/ballast/src/cli/openBallast.ts';
import { exitCodeForReport } from '../../../packages/ballast/src/cycle/runCycle.ts';

const apiError = (httpStatus: number, errorCode?: string, message = 'x'): RelayApiError =>
  new RelayApiError({
    endpoint: 'POST /quote/v2',
    httpStatus,
    body: { message, ...(errorCode ? { errorCode } : {}) },
    bodyText: '',
    retryAfterMs: undefined,
  });

describe('relayAuthRefusal', () => {
  it('recognises 401 and 403 by status, also wrapped in a cause chain', () => {
    expect(relayAuthRefusal(apiError(401, 'UNAUTHORIZED_QUOTE'))).toEqual({
      endpoint: 'POST /quote/v2',
      httpStatus: 401,
      errorCode: 'UNAUTHORIZED_QUOTE',
    });
    expect(relayAuthRefusal(new Error('GET /chains failed: …', { cause: apiError(403) }))).toEqual({
      endpoint: 'POST /quote/v2',
      httpStatus: 403,
    });
  });

  it('ignores other statuses even when their message names RELAY_HTTP_401', () => {
    expect(relayAuthRefusal(apiError(400, 'INVALID_ADDRESS', 'RELAY_HTTP_401 in the text'))).toBeUndefined();
    expect(relayAuthRefusal(new Error('RELAY_HTTP_401'))).toBeUndefined();
    expect(relayAuthRefusal(new RelayNetworkError('GET /chains', 'ECONNREFUSED', false))).toBeUndefined();
    expect(relayAuthRefusal(undefined)).toBeUndefined();
  });

  it('makes one line naming relay.apiKey and the fix', () => {
    const line = authRefusalLine({ endpoint: 'POST /quote/v2', httpStatus: 401, errorCode: 'UNAUTHORIZED_QUOTE' });
    expect(line).toMatch(
      /^Relay refused the API key \(401 UNAUTHORIZED_QUOTE on POST \/quote\/v2\): set relay\.apiKey to a key from dashboard\.relay\.link/,
    );
    expect(line).not.toContain('\n');
  });

  it('turns a report into exit 2 only through its typed refusal', () => {
    expect(exitCodeForReport({ outcome: 'error', authRefusal: { endpoint: 'GET /chains', httpStatus: 401 } })).toBe(2);
    expect(exitCodeForReport({ outcome: 'error' })).toBe(1);
    expect(exitCodeForReport({ outcome: 'refused' })).toBe(3);
  });
});

describe('screening refusals', () => {
  it('recognises BLOCKED_WALLET_ADDRESS and SANCTIONED_WALLET_ADDRESS by errorCode, and never retries them', () => {
    expect(screeningRefusal(apiError(400, 'BLOCKED_WALLET_ADDRESS'))?.errorCode).toBe('BLOCKED_WALLET_ADDRESS');
    expect(screeningRefusal(new Error('wrapped', { cause: apiError(400, 'SANCTIONED_WALLET_ADDRESS') }))?.errorCode).toBe(
      'SANCTIONED_WALLET_ADDRESS',
    );
    expect(screeningRefusal(apiError(400, 'INSUFFICIENT_FUNDS'))).toBeUndefined();
    // Even with a status that is otherwise retried, a screening refusal is final.
    expect(isRetryable(apiError(503, 'BLOCKED_WALLET_ADDRESS'))).toBe(false);
    expect(isRetryable(apiError(503, 'SERVICE_UNAVAILABLE'))).toBe(true);
    expect(isRetryable(apiError(401, 'UNAUTHORIZED_QUOTE'))).toBe(false);
  });

  it('knows the fill-time failReason', () => {
    expect(isScreeningFailReason('BLOCKED_WALLET')).toBe(true);
    expect(isScreeningFailReason('UNKNOWN')).toBe(false);
    expect(isScreeningFailReason(undefined)).toBe(false);
  });
});

describe('missing API key warning', () => {
  it('warns for a remote API without a key, not for a loopback sandbox or with a key', () => {
    expect(missingKeyWarning({ baseUrl: 'https://api.relay.link' })).toContain('relay.apiKey is not set');
    expect(missingKeyWarning({ baseUrl: 'https://api.relay.link', apiKey: 'k' })).toBeUndefined();
    expect(missingKeyWarning({ baseUrl: 'http://127.0.0.1:4000' })).toBeUndefined();
    expect(missingKeyWarning({ baseUrl: 'http://localhost:4000' })).toBeUndefined();
    expect(missingKeyWarning({ baseUrl: 'http://[::1]:4000' })).toBeUndefined();
    expect(isLoopbackUrl('http://127.evil.example')).toBe(false);
  });
});
