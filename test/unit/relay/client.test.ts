import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRelayClient, type RelayClientOptions } from '../../../packages/ballast/src/relay/client.ts';
import { RelayApiError, RelayNetworkError, RelayRequestError, RelaySchemaError } from '../../../packages/ballast/src/relay/errors.ts';
import type { QuoteRequest } from '../../../packages/protocol/src/relay/schemas.ts';
import { offlineQuoteJson } from '../../fixtures/offlineQuote.ts';
import { FIXTURE, readChainsFixtureJson, readQuoteFixtureJson, relayFixturesPresent } from '../../fixtures/relay.ts';
import { relayAuthRefusal } from '../../../packages/ballast/src/relay/authRefusal.ts';
import { startTestServer, type TestServer } from './testServer.ts';

/** Response bodies the test server serves: the offline quote and its GET /chains document, as the sandbox serves them. */
const { quote: quoteBody, chains: chainsBody } = offlineQuoteJson();
const REQUEST_ID = '0x00180d75faabaabf3dcbbf5341aa6b17d8ce6df9ea71856892f8b2729c32c167';
const API_KEY = 'sk-live-9f8e7d6c5b4a';
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
const statusBody = { status: 'pending', inTxHashes: ['0xabc'], txHashes: [], updatedAt: 1, originChainId: 8453, destinationChainId: 42161 };

let server: TestServer;
let sleeps: number[];
let events: { endpoint: string; status: number | 'network_error' }[];

beforeEach(async () => {
  server = await startTestServer();
  sleeps = [];
  events = [];
});
afterEach(async () => {
  await server.close();
});

function client(over: Partial<RelayClientOptions> = {}) {
  return createRelayClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    onResponse: (e) => events.push({ endpoint: e.endpoint, status: e.status }),
    ...over,
  });
}

/** Runs `fn`, expecting it to reject, and returns the error. */
async function failure(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error; // every rejection in these tests is an Error subclass; asserted by callers
  }
  throw new Error('expected a rejection');
}

describe('createRelayClient', () => {
  it('GET /chains parses the document and sends the API key header', async () => {
    server.on('/chains', { status: 200, body: chainsBody });
    const { chains, raw } = await client().getChains();
    const listed = (chainsBody as { chains: { id: number }[] }).chains.map((c) => c.id); // the body is { chains: [...] }
    expect(chains.chains.map((c) => c.id)).toEqual(listed);
    expect(chains.chains.every((c) => typeof c.protocol?.v2?.depository === 'string')).toBe(true);
    expect(raw).toEqual(chainsBody);
    expect(server.requests[0]!.headers['x-api-key']).toBe(API_KEY);
    expect(events).toEqual([{ endpoint: 'GET /chains', status: 200 }]);
  });

  it('sends no x-api-key header when none is configured', async () => {
    server.on('/chains', { status: 200, body: chainsBody });
    await client({ apiKey: undefined }).getChains();
    expect(server.requests[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('POST /quote/v2 parses the quote and adds the configured referrer', async () => {
    server.on('/quote/v2', { status: 200, body: quoteBody });
    const { quote, raw } = await client({ referrer: 'ballast-treasury' }).quote(quoteRequest);
    expect(quote.protocol?.v2?.orderId).toBe((quoteBody as { protocol: { v2: { orderId: string } } }).protocol.v2.orderId); // built with protocol data
    expect(quote.steps.map((s) => s.id)).toEqual(['approve', 'deposit']);
    expect(raw).toEqual(quoteBody);
    const sent = server.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({ ...quoteRequest, referrer: 'ballast-treasury' });
  });

  it('keeps a referrer set on the request itself', async () => {
    server.on('/quote/v2', { status: 200, body: quoteBody });
    await client({ referrer: 'default' }).quote({ ...quoteRequest, referrer: 'explicit' });
    expect(JSON.parse(server.requests[0]!.body).referrer).toBe('explicit');
  });

  it('refuses an invalid quote request before sending anything', async () => {
    const err = await failure(() => client().quote({ ...quoteRequest, amount: '1.5' }));
    expect(err).toBeInstanceOf(RelayRequestError);
    expect((err as RelayRequestError).code).toBe('RELAY_REQUEST_INVALID');
    expect(err.message).toContain('request.amount');
    expect(server.requests).toHaveLength(0);
  });

  describe('retries', () => {
    it('429 with retry-after (seconds) is retried after waiting that long', async () => {
      server.on(
        '/quote/v2',
        { status: 429, body: { message: 'rate limited' }, headers: { 'retry-after': '2' } },
        { status: 200, body: quoteBody },
      );
      const { quote } = await client().quote(quoteRequest);
      expect(quote.details.currencyIn.amount).toBe(
        (quoteBody as { details: { currencyIn: { amount: string } } }).details.currencyIn.amount,
      );
      expect(server.requests).toHaveLength(2);
      expect(sleeps).toEqual([2000]);
      expect(events.map((e) => e.status)).toEqual([429, 200]);
    });

    it('429 with retry-after as an HTTP date waits until that date', async () => {
      const nowMs = Date.parse('2026-01-01T00:00:00Z');
      server.on(
        '/chains',
        { status: 429, body: { message: 'slow down' }, headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' } },
        { status: 200, body: chainsBody },
      );
      await client({ now: () => nowMs }).getChains();
      expect(sleeps).toEqual([5000]);
    });

    it('a status read abandoned by its caller stops retrying: no attempt after the signal, the wait ends at once', async () => {
      server.on('/intents/status/v3', { status: 503, body: { message: 'busy' }, headers: { 'retry-after': '30' } });
      const abort = new AbortController();
      const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
      setTimeout(() => abort.abort(), 100);
      const started = Date.now();
      const err = await failure(() => client({ sleep: realSleep }).getStatus(REQUEST_ID, undefined, { signal: abort.signal }));
      // Not even one 30 s retry-after wait (let alone 4 retries x 30 s); room left for a loaded machine.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect((err as RelayApiError).code).toBe('RELAY_HTTP_503');
      expect(server.requests).toHaveLength(1);
    });

    it('a status read whose signal fires mid-request is abandoned as a network error naming the caller', async () => {
      server.on('/intents/status/v3', { status: 200, hang: true });
      const err = await failure(() => client().getStatus(REQUEST_ID, undefined, { signal: AbortSignal.timeout(100) }));
      expect(err).toBeInstanceOf(RelayNetworkError);
      expect(err.message).toContain("caller's deadline");
      expect(server.requests).toHaveLength(1);
    });

    it('503 and 502 back off exponentially without retry-after', async () => {
      server.on(
        '/chains',
        { status: 503, body: { message: 'busy' } },
        { status: 502, text: 'bad gateway' },
        { status: 200, body: chainsBody },
      );
      await client().getChains();
      // random() = 0 → equal jitter gives half of 500·2^n.
      expect(sleeps).toEqual([250, 500]);
      expect(server.requests).toHaveLength(3);
    });

    it('gives up after maxRetries and throws the last error', async () => {
      server.on('/chains', { status: 503, body: { message: 'recovery in progress', errorCode: 'UNAVAILABLE' } });
      const err = await failure(() => client({ maxRetries: 2 }).getChains());
      expect(err).toBeInstanceOf(RelayApiError);
      expect((err as RelayApiError).code).toBe('RELAY_HTTP_503');
      expect(server.requests).toHaveLength(3);
      expect(sleeps).toHaveLength(2);
    });

    it('does not wait for a retry-after beyond the cap; throws instead', async () => {
      server.on('/chains', { status: 429, body: { message: 'later' }, headers: { 'retry-after': '3600' } });
      const err = await failure(() => client().getChains());
      expect((err as RelayApiError).retryAfterMs).toBe(3_600_000);
      expect(sleeps).toEqual([]);
      expect(server.requests).toHaveLength(1);
    });

    it('a 400 keeps errorCode, requestId, errorData and is not retried', async () => {
      server.on('/quote/v2', {
        status: 400,
        body: { message: 'Swap impact too high', errorCode: 'SWAP_IMPACT_TOO_HIGH', errorData: 'impact 12%', requestId: REQUEST_ID },
      });
      const err = await failure(() => client().quote(quoteRequest));
      expect(err).toBeInstanceOf(RelayApiError);
      const api = err as RelayApiError;
      expect(api.code).toBe('RELAY_HTTP_400');
      expect(api.httpStatus).toBe(400);
      expect(api.errorCode).toBe('SWAP_IMPACT_TOO_HIGH');
      expect(api.requestId).toBe(REQUEST_ID);
      expect(api.errorData).toBe('impact 12%');
      expect(api.apiMessage).toBe('Swap impact too high');
      expect(api.endpoint).toBe('POST /quote/v2');
      expect(api.message).toContain('SWAP_IMPACT_TOO_HIGH');
      expect(server.requests).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it('a 500 is not retried, and a non-JSON error body is shown as text', async () => {
      server.on('/chains', { status: 500, text: 'upstream exploded' });
      const err = await failure(() => client().getChains());
      expect((err as RelayApiError).code).toBe('RELAY_HTTP_500');
      expect((err as RelayApiError).errorCode).toBeUndefined();
      expect(err.message).toContain('upstream exploded');
      expect(server.requests).toHaveLength(1);
    });

    it('connection failures are retried, then reported as RELAY_NETWORK', async () => {
      const url = server.url;
      await server.close();
      const err = await failure(() => client({ baseUrl: url, maxRetries: 1 }).getChains());
      expect(err).toBeInstanceOf(RelayNetworkError);
      expect((err as RelayNetworkError).code).toBe('RELAY_NETWORK');
      expect((err as RelayNetworkError).timedOut).toBe(false);
      expect(events.map((e) => e.status)).toEqual(['network_error', 'network_error']);
      expect(sleeps).toEqual([250]);
      server = await startTestServer(); // afterEach closes it
    });

    it('a response slower than timeoutMs is a RELAY_NETWORK timeout', async () => {
      server.on('/chains', { status: 200, hang: true });
      const err = await failure(() => client({ timeoutMs: 150, maxRetries: 0 }).getChains());
      expect(err).toBeInstanceOf(RelayNetworkError);
      expect((err as RelayNetworkError).timedOut).toBe(true);
      expect(err.message).toContain('150 ms');
    });
  });

  describe('schema validation', () => {
    it('a /chains chain with an unexpected shape is skipped with a warning; the others are returned', async () => {
      const bad = structuredClone(chainsBody) as { chains: Record<string, unknown>[] }; // fixture shape: { chains: [...] }
      const goodId = bad.chains[0]!['id'];
      bad.chains[1]!.id = String(bad.chains[1]!['id']);
      server.on('/chains', { status: 200, body: bad });
      const { chains, skipped } = await client().getChains();
      expect(chains.chains.map((c) => c.id)).toEqual([goodId]);
      expect(skipped).toHaveLength(1);
      expect(skipped[0]!.index).toBe(1);
      expect(skipped[0]!.reason).toContain('id');
      expect(server.requests).toHaveLength(1);
    });

    it('a /chains body without a chains array fails with RELAY_SCHEMA_INVALID', async () => {
      server.on('/chains', { status: 200, body: { chains: 'none' } });
      const err = await failure(() => client().getChains());
      expect(err).toBeInstanceOf(RelaySchemaError);
      expect((err as RelaySchemaError).code).toBe('RELAY_SCHEMA_INVALID');
      expect(err.message).toContain('chains');
    });

    it('a quote missing details.currencyIn fails naming that path', async () => {
      const bad = structuredClone(quoteBody) as { details: Record<string, unknown> }; // fixture shape: has details
      delete bad.details.currencyIn;
      server.on('/quote/v2', { status: 200, body: bad });
      const err = await failure(() => client().quote(quoteRequest));
      expect((err as RelaySchemaError).issues.map((i) => i.path)).toContain('details.currencyIn');
    });

    it('a 200 that is not JSON is a schema error', async () => {
      server.on('/chains', { status: 200, text: '<html>captive portal</html>' });
      const err = await failure(() => client().getChains());
      expect(err).toBeInstanceOf(RelaySchemaError);
      expect(err.message).toContain('not JSON');
    });
  });

  describe('status check endpoint', () => {
    it('follows the check endpoint of the quote deposit step', async () => {
      server.on('/intents/status/v3', { status: 200, body: statusBody });
      const steps = (quoteBody as { steps: { id: string; items: { check?: { endpoint: string } }[] }[] }).steps; // quote shape
      const endpoint = steps.find((s) => s.id === 'deposit')!.items[0]!.check!.endpoint;
      const requestId = new URL(endpoint, 'http://relay.invalid').searchParams.get('requestId')!;
      const status = await client().getStatus(requestId, endpoint);
      expect(status.status).toBe('pending');
      expect(server.requests[0]!.url).toBe(`/intents/status/v3?requestId=${requestId}`);
    });

    it('follows the older /intents/status path', async () => {
      server.on('/intents/status', { status: 200, body: statusBody });
      await client().getStatus(REQUEST_ID, `/intents/status?requestId=${REQUEST_ID}`);
      expect(server.requests[0]!.url).toBe(`/intents/status?requestId=${REQUEST_ID}`);
      expect(events[0]!.endpoint).toBe('GET /intents/status');
    });

    it('does not follow an absolute URL to another server', async () => {
      const other = await startTestServer();
      try {
        other.on('/intents/status/v3', { status: 200, body: { ...statusBody, status: 'success' } });
        server.on('/intents/status/v3', { status: 200, body: statusBody });
        const status = await client().getStatus(REQUEST_ID, `${other.url}/intents/status/v3?requestId=${REQUEST_ID}`);
        expect(status.status).toBe('pending');
        expect(other.requests).toHaveLength(0);
        expect(server.requests[0]!.url).toBe(`/intents/status/v3?requestId=${REQUEST_ID}`);
      } finally {
        await other.close();
      }
    });

    it.each([
      ['a path outside /intents/status', `/withdrawals/request?requestId=${REQUEST_ID}`],
      ['a protocol-relative URL', `//evil.example/intents/status/v3?requestId=${REQUEST_ID}`],
      ['path traversal', `/intents/status/v3/../../admin?requestId=${REQUEST_ID}`],
      ['another request id', '/intents/status/v3?requestId=0xdead'],
    ])('falls back to /intents/status/v3 for %s', async (_name, endpoint) => {
      server.on('/intents/status/v3', { status: 200, body: statusBody });
      await client().getStatus(REQUEST_ID, endpoint);
      expect(server.requests.map((r) => r.url)).toEqual([`/intents/status/v3?requestId=${REQUEST_ID}`]);
    });
  });

  it('GET /requests/v3 by id and by user with status', async () => {
    server.on('/requests/v3', { status: 200, body: { requests: [{ id: REQUEST_ID, status: 'failure' }] } });
    const byId = await client().getRequests({ id: REQUEST_ID });
    expect(byId.requests[0]!.id).toBe(REQUEST_ID);
    await client().getRequests({ user: USER, status: 'failure' });
    expect(server.requests.map((r) => r.url)).toEqual([`/requests/v3?id=${REQUEST_ID}`, `/requests/v3?user=${USER}&status=failure`]);
  });

  describe('GET /chains/liquidity (https://docs.relay.link/references/api/get-chains-liquidity)', () => {
    /** The documented shape: one entry per currency the solver holds on the chain. */
    const liquidityBody = {
      liquidity: [
        {
          chainId: 8453,
          currencyId: 'usdc',
          symbol: 'USDC',
          address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
          decimals: 6,
          balance: '1234567890123',
          amountUsd: '1234567.890123',
          extra: 'kept out',
        },
        {
          chainId: 8453,
          currencyId: 'eth',
          symbol: 'ETH',
          address: '0x0000000000000000000000000000000000000000',
          decimals: 18,
          balance: '0',
        },
      ],
    };

    it('asks for the chain and returns balances as bigint base units', async () => {
      server.on('/chains/liquidity', { status: 200, body: liquidityBody });
      const entries = await client().getChainLiquidity(8453);
      expect(entries).toEqual([
        {
          chainId: 8453,
          currencyId: 'usdc',
          symbol: 'USDC',
          address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
          decimals: 6,
          balance: 1_234_567_890_123n,
          amountUsd: '1234567.890123',
        },
        {
          chainId: 8453,
          currencyId: 'eth',
          symbol: 'ETH',
          address: '0x0000000000000000000000000000000000000000',
          decimals: 18,
          balance: 0n,
        },
      ]);
      expect(server.requests.map((r) => r.url)).toEqual(['/chains/liquidity?chainId=8453']);
      expect(events).toEqual([{ endpoint: 'GET /chains/liquidity', status: 200 }]);
    });

    it.each([
      [
        'a balance that is not an integer string',
        { liquidity: [{ ...liquidityBody.liquidity[0], balance: '12.5' }] },
        'liquidity.0.balance',
      ],
      ['a balance as a JSON number', { liquidity: [{ ...liquidityBody.liquidity[0], balance: 12 }] }, 'liquidity.0.balance'],
      ['no liquidity array', { chains: [] }, 'liquidity'],
      ['an entry of another chain', { liquidity: [{ ...liquidityBody.liquidity[0], chainId: 10 }] }, 'liquidity.0.chainId'],
    ])('refuses %s with a RelaySchemaError naming the field', async (_name, body, path) => {
      server.on('/chains/liquidity', { status: 200, body });
      const e = await failure(() => client().getChainLiquidity(8453));
      expect(e).toBeInstanceOf(RelaySchemaError);
      expect((e as RelaySchemaError).issues[0]!.path).toBe(path);
    });

    it('refuses a chain id that is not a positive integer without a request', async () => {
      for (const bad of [0, -1, 1.5, Number.NaN])
        expect(await failure(() => client().getChainLiquidity(bad))).toBeInstanceOf(RelayRequestError);
      expect(server.requests).toHaveLength(0);
    });
  });

  it('POST /transactions/index sends chainId and txHash', async () => {
    server.on('/transactions/index', { status: 200, body: { message: 'ok' } });
    const res = await client().indexTransaction({ chainId: 8453, txHash: '0xabc' });
    expect(res).toEqual({ message: 'ok' });
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ chainId: 8453, txHash: '0xabc' });
  });

  it('spaces quote calls with the client-side limiter', async () => {
    let nowMs = 1_000_000;
    server.on('/quote/v2', { status: 200, body: quoteBody });
    const c = client({
      quotesPerMinute: 2,
      now: () => nowMs,
      sleep: async (ms) => {
        sleeps.push(ms);
        nowMs += ms;
      },
    });
    await c.quote(quoteRequest);
    nowMs += 10_000;
    await c.quote(quoteRequest);
    await c.quote(quoteRequest);
    expect(sleeps).toEqual([50_000]);
    expect(server.requests).toHaveLength(3);
  });

  describe('secrets', () => {
    it('the API key never appears in error text or logs, even when the server echoes it', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'debug' }, new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
      server.on('/quote/v2', { status: 401, body: { message: `invalid api key ${API_KEY}`, errorCode: 'UNAUTHORIZED' } });
      server.on('/chains', { status: 503, text: `down for key ${API_KEY}` });
      const e1 = await failure(() => client({ logger }).quote(quoteRequest));
      const e2 = await failure(() => client({ logger, maxRetries: 1 }).getChains());
      expect(server.requests[0]!.headers['x-api-key']).toBe(API_KEY);
      for (const e of [e1, e2]) {
        const everything = `${e.message}\n${e.stack}\n${JSON.stringify(e)}\n${(e as RelayApiError).apiMessage ?? ''}`;
        expect(everything).not.toContain(API_KEY);
        expect(everything).toContain('[redacted]');
      }
      expect((e1 as RelayApiError).errorCode).toBe('UNAUTHORIZED');
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('')).not.toContain(API_KEY);
    });

    it('URL credentials are sent as basic auth and never appear in errors', async () => {
      const withCreds = server.url.replace('http://', 'http://ops:pw-s3cret-77@');
      server.on('/chains', { status: 400, body: { message: 'nope', errorCode: 'BAD' } });
      const err = await failure(() => client({ baseUrl: withCreds }).getChains());
      expect(server.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('ops:pw-s3cret-77').toString('base64')}`);
      expect(`${err.message}${err.stack}${JSON.stringify(err)}`).not.toContain('pw-s3cret-77');

      const url = server.url;
      await server.close();
      const net = await failure(() => client({ baseUrl: url.replace('http://', 'http://ops:pw-s3cret-77@'), maxRetries: 0 }).getChains());
      expect(net).toBeInstanceOf(RelayNetworkError);
      expect(`${net.message}${net.stack}`).not.toContain('pw-s3cret-77');
      server = await startTestServer();
    });

    it('rejects a base URL that is not http(s)', () => {
      expect(() => createRelayClient({ baseUrl: 'ftp://relay.example' })).toThrow(RelayRequestError);
      expect(() => createRelayClient({ baseUrl: 'api.relay.link' })).toThrow(/relay.baseUrl/);
    });
  });
});

describe('RelayClient.getTokenPrice', () => {
  const priceClient = () => client({ apiKey: 'sk-price-1' });

  it('sends address and chainId with the key, retries a 503 and parses the price', async () => {
    server.on('/currencies/token/price', { status: 503, body: { message: 'busy' } }, { status: 200, body: { price: 3000 } });
    const price = await priceClient().getTokenPrice!({ chainId: 8453, address: '0x0000000000000000000000000000000000000000' });
    expect(price).toEqual({ priceUsdMicros: 3_000_000_000n });
    expect(server.requests).toHaveLength(2);
    const url = new URL(server.requests[1]!.url, server.url);
    expect(url.searchParams.get('address')).toBe('0x0000000000000000000000000000000000000000');
    expect(url.searchParams.get('chainId')).toBe('8453');
    expect(server.requests[1]!.headers['x-api-key']).toBe('sk-price-1');
  });

  it('throws RelayApiError on a 500 (not retried), RelaySchemaError on a bad price, RelayRequestError on bad arguments', async () => {
    server.on('/currencies/token/price', { status: 500, body: { message: 'down', errorCode: 'UNKNOWN_ERROR' } });
    const down = await priceClient().getTokenPrice!({ chainId: 1, address: '0x0000000000000000000000000000000000000000' }).catch(
      (e: unknown) => e,
    );
    expect(down).toBeInstanceOf(RelayApiError);
    expect(server.requests).toHaveLength(1);
    server.on('/currencies/token/price', { status: 200, body: { price: -1 } });
    const bad = await priceClient().getTokenPrice!({ chainId: 1, address: '0x0000000000000000000000000000000000000000' }).catch(
      (e: unknown) => e,
    );
    expect(bad).toBeInstanceOf(RelaySchemaError);
    expect(String(bad)).toContain('price');
    await expect(priceClient().getTokenPrice!({ chainId: 0, address: '0x00' })).rejects.toBeInstanceOf(RelayRequestError);
    await expect(priceClient().getTokenPrice!({ chainId: 1, address: '' })).rejects.toBeInstanceOf(RelayRequestError);
  });
});

describe.skipIf(!relayFixturesPresent)('createRelayClient on the genuine fixtures', () => {
  it('GET /chains parses the genuine document', async () => {
    const body = readChainsFixtureJson();
    server.on('/chains', { status: 200, body });
    const { chains, raw } = await client().getChains();
    expect(chains.chains.map((c) => [c.id, c.protocol?.v2?.depository])).toEqual([
      [8453, FIXTURE.depository],
      [42161, FIXTURE.depository],
    ]);
    expect(raw).toEqual(body);
  });

  it('POST /quote/v2 parses the genuine quote and follows its check endpoint', async () => {
    const body = readQuoteFixtureJson();
    server.on('/quote/v2', { status: 200, body });
    server.on('/intents/status/v3', { status: 200, body: statusBody });
    const { quote, raw } = await client().quote(quoteRequest);
    expect(quote.protocol?.v2?.orderId).toBe(FIXTURE.orderId);
    expect(quote.steps.map((s) => s.id)).toEqual(['approve', 'deposit']);
    expect(raw).toEqual(body);
    await client().getStatus(REQUEST_ID, quote.steps[1]!.items[0]!.check!.endpoint);
    expect(server.requests[1]!.url).toBe(`/intents/status/v3?requestId=${REQUEST_ID}`);
  });
});

describe('API key on every endpoint (https://docs.relay.link/references/api/api-keys)', () => {
  it('sends x-api-key on chains, chains/liquidity, quote, status, requests/v3, transactions/index and the withdrawal calls; a 401 is a typed key refusal', async () => {
    const refused = { status: 401, body: { message: 'Please provide an api key', errorCode: 'UNAUTHORIZED_QUOTE' } };
    const paths = [
      '/chains',
      '/chains/liquidity',
      '/quote/v2',
      '/intents/status/v3',
      '/requests/v3',
      '/transactions/index',
      '/withdrawals/attest-deposit',
      '/withdrawals/status',
    ];
    for (const p of paths) server.on(p, refused);
    const c = client();
    const calls: (() => Promise<unknown>)[] = [
      () => c.getChains(),
      () => c.getChainLiquidity(8453),
      () => c.quote(quoteRequest),
      () => c.getStatus('0x' + 'ab'.repeat(32)),
      () => c.getRequests({ id: '0x' + 'ab'.repeat(32) }),
      () => c.indexTransaction({ chainId: 8453, txHash: '0x' + 'cd'.repeat(32) }),
      () => c.attestDeposit({ chainId: 8453, transactionId: '0x' + 'cd'.repeat(32) }),
      () => c.withdrawalStatus('job-1'),
    ];
    for (const call of calls) {
      const e = await failure(call);
      expect(relayAuthRefusal(e), e.message).toMatchObject({ httpStatus: 401, errorCode: 'UNAUTHORIZED_QUOTE' });
    }
    expect(server.requests.map((r) => r.path)).toEqual(paths); // one request each: a refused key is not retried
    for (const r of server.requests) expect(r.headers['x-api-key'], r.path).toBe(API_KEY);
  });
});
