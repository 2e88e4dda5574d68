/**
 * The Relay client reports the deprecation headers of every response (src/relay/http.ts `onDeprecation`): on a
 * 2xx, on an error status, on each retried attempt, and never lets a failing callback break the call. Real HTTP
 * server on 127.0.0.1.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRelayClient, type RelayClientOptions } from '../../../packages/ballast/src/relay/client.ts';
import type { DeprecationNotice } from '../../../packages/ballast/src/relay/deprecation.ts';
import { RelayApiError } from '../../../packages/ballast/src/relay/errors.ts';
import type { QuoteRequest } from '../../../packages/protocol/src/relay/schemas.ts';
import { offlineQuoteJson } from '../../fixtures/offlineQuote.ts';
import { startTestServer, type TestServer } from './testServer.ts';

const { quote: quoteBody, chains: chainsBody } = offlineQuoteJson();
const GUIDE = 'https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3';
const USER = '0x03508bb71268bba25ecacc8f620e01866650532c';
const quoteRequest: QuoteRequest = {
  user: USER,
  recipient: USER,
  originChainId: 8453,
  destinationChainId: 42161,
  originCurrency: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  destinationCurrency: '0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9',
  amount: '100000000',
  tradeType: 'EXACT_INPUT',
  includeProtocolData: true,
};
const HEADERS = {
  deprecation: '@1795564800',
  sunset: 'Tue, 23 Feb 2027 00:00:00 GMT',
  link: `<${GUIDE}>; rel="deprecation", <${GUIDE}>; rel="sunset", </quote/v3>; rel="successor-version"`,
};

let server: TestServer;
let notices: DeprecationNotice[];
beforeEach(async () => {
  server = await startTestServer();
  notices = [];
});
afterEach(() => server.close());

function client(over: Partial<RelayClientOptions> = {}) {
  return createRelayClient({ baseUrl: server.url, sleep: async () => {}, random: () => 0, onDeprecation: (n) => notices.push(n), ...over });
}

const expected = (endpoint: string): DeprecationNotice => ({
  endpoint,
  deprecatedAtSec: 1795564800,
  sunsetAtSec: 1803340800,
  links: [
    { rel: 'deprecation', uri: GUIDE },
    { rel: 'sunset', uri: GUIDE },
    { rel: 'successor-version', uri: `${server.url}/quote/v3` },
  ],
  ignored: [],
});

describe('Relay client onDeprecation', () => {
  it('fires on a 2xx quote with the parsed notice, and the quote is returned as usual', async () => {
    server.on('/quote/v2', { status: 200, body: quoteBody, headers: HEADERS });
    const { quote } = await client().quote(quoteRequest);
    expect(quote.steps.length).toBeGreaterThan(0);
    expect(notices).toEqual([expected('POST /quote/v2')]);
  });

  it('fires on an error status too, before the error is thrown', async () => {
    server.on('/quote/v2', { status: 400, body: { message: 'Amount too low', errorCode: 'AMOUNT_TOO_LOW' }, headers: HEADERS });
    const error = await client()
      .quote(quoteRequest)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RelayApiError);
    expect((error as RelayApiError).httpStatus).toBe(400); // checked to be a RelayApiError above
    expect(notices).toEqual([expected('POST /quote/v2')]);
  });

  it('fires once per attempt: a 503 retried then a 200', async () => {
    server.on(
      '/chains',
      { status: 503, body: { message: 'busy' }, headers: { ...HEADERS, 'retry-after': '0' } },
      { status: 200, body: chainsBody, headers: HEADERS },
    );
    await client().getChains();
    expect(notices.map((n) => n.endpoint)).toEqual(['GET /chains', 'GET /chains']);
  });

  it('does not fire for responses without the headers', async () => {
    server.on('/chains', { status: 200, body: chainsBody });
    await client().getChains();
    expect(notices).toEqual([]);
  });

  it('reports malformed headers as ignored and never throws them into the call', async () => {
    server.on('/chains', { status: 200, body: chainsBody, headers: { deprecation: 'yes', sunset: 'soon', link: '<broken' } });
    const { chains } = await client().getChains();
    expect(chains.chains.length).toBeGreaterThan(0);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.ignored.map((i) => i.header)).toEqual(['Deprecation', 'Sunset', 'Link']);
  });

  it('a callback that throws does not fail the call; the failure is logged', async () => {
    server.on('/chains', { status: 200, body: chainsBody, headers: HEADERS });
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }));
    const { chains } = await client({
      logger,
      onDeprecation: () => {
        throw new Error('handler broke');
      },
    }).getChains();
    expect(chains.chains.length).toBeGreaterThan(0);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toEqual([
      expect.objectContaining({ level: 40, endpoint: 'GET /chains', err: 'handler broke', msg: 'deprecation notice handler failed' }),
    ]);
  });
});
