import { describe, expect, it } from 'vitest';
import { RelayApiError, redactSecrets, stripUrlCredentials } from '../../../packages/ballast/src/relay/errors.ts';

describe('stripUrlCredentials', () => {
  it('removes user:pass@ from every URL in a text', () => {
    expect(stripUrlCredentials('GET https://u:p%40ss@api.example/x and http://only-user@h:8080/y')).toBe(
      'GET https://api.example/x and http://h:8080/y',
    );
  });
  it('leaves e-mail-like text outside URLs alone', () => {
    expect(stripUrlCredentials('ops@example.com https://api.example')).toBe('ops@example.com https://api.example');
  });
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each secret', () => {
    expect(redactSecrets('k=abc123 again abc123', ['abc123', undefined, ''])).toBe('k=[redacted] again [redacted]');
  });
});

describe('RelayApiError', () => {
  it('names status, errorCode and requestId, and suggests a fix for SOLANA_TX_TOO_LARGE', () => {
    const e = new RelayApiError({
      endpoint: 'POST /quote/v2',
      httpStatus: 400,
      body: { message: 'tx is 1300 bytes, 68 over', errorCode: 'SOLANA_TX_TOO_LARGE', requestId: '0x01' },
      bodyText: '',
      retryAfterMs: undefined,
    });
    expect(e.code).toBe('RELAY_HTTP_400');
    expect(e.message).toBe(
      'Relay POST /quote/v2 returned HTTP 400 (errorCode SOLANA_TX_TOO_LARGE, requestId 0x01): tx is 1300 bytes, 68 over. ' +
        'Fix: restrict routing (includedOriginSwapSources, maxRouteLength) or change the amount',
    );
  });
});
