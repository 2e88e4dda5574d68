/**
 * One-line error texts keep the node's own words: viem's generic `shortMessage` for a JSON-RPC error ("Missing
 * or invalid parameters.") is followed by the node's message, so a refused send is recorded with its reason.
 */
import { describe, expect, it } from 'vitest';
import { HttpRequestError, InvalidInputRpcError, RpcRequestError, TransactionReceiptNotFoundError } from 'viem';
import { shortErrorMessage } from '../../../packages/ballast/src/core/errorMessage.ts';

describe('shortErrorMessage', () => {
  it('adds the node’s own error text to viem’s short message', () => {
    const rpc = new RpcRequestError({
      body: { method: 'eth_sendRawTransaction' },
      error: { code: -32000, message: 'nonce too low' },
      url: 'http://127.0.0.1:1/key-in-path',
    });
    const text = shortErrorMessage(new InvalidInputRpcError(rpc));
    expect(text).toContain('nonce too low');
    expect(text).not.toContain('key-in-path');
  });

  it('keeps an HTTP failure free of the URL and says what the server answered', () => {
    const text = shortErrorMessage(new HttpRequestError({ url: 'http://127.0.0.1:1/secret', status: 503, details: 'Service Unavailable' }));
    expect(text).toBe('HTTP request failed. (Service Unavailable)');
  });

  it('cuts URLs out of the node’s words and bounds their length', () => {
    const text = shortErrorMessage(
      new HttpRequestError({
        url: 'http://x',
        status: 401,
        details: `invalid key for https://rpc.example/v2/sk-abc123 ${'x'.repeat(500)}`,
      }),
    );
    expect(text).not.toContain('sk-abc123');
    expect(text).toContain('invalid key for <url>');
    expect(text.length).toBeLessThan(260);
  });

  it('does not repeat details the short message already holds, and reads plain errors by their first line', () => {
    const notFound = new TransactionReceiptNotFoundError({ hash: `0x${'1'.repeat(64)}` });
    expect(shortErrorMessage(notFound)).toBe(notFound.shortMessage);
    expect(shortErrorMessage(new Error('first line\nsecond'))).toBe('first line');
    expect(shortErrorMessage('text')).toBe('text');
  });
});
