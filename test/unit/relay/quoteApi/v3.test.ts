/**
 * POST /quote/v3 → the internal quote model: a v3 body written from the documented shapes (flat steps without
 * `from`, GET /requests/v3-style fees, `depositAddress` object) over the offline quote's order maps to a quote the
 * fee policy reads the same fees from and the real verifier passes; a v3 body lacking what verification needs is
 * refused with RELAY_QUOTE_V3_UNVERIFIABLE; the single v3 error shape becomes a RelayApiError with its errorCode.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractFees } from '../../../../packages/ballast/src/policy/feeBreakdown.ts';
import { createRelayClient } from '../../../../packages/ballast/src/relay/client.ts';
import { RelayApiError, RelaySchemaError } from '../../../../packages/ballast/src/relay/errors.ts';
import { QuoteV3UnverifiableError } from '../../../../packages/ballast/src/relay/quoteApi/errors.ts';
import { mapQuoteV3, V3_RESPONSE_KEY } from '../../../../packages/ballast/src/relay/quoteApi/v3.ts';
import { QuoteResponseSchema, type QuoteRequest } from '../../../../packages/protocol/src/relay/schemas.ts';
import { verifyQuote } from '../../../../packages/ballast/src/verify/verifyQuote.ts';
import { offlineQuote, offlineQuoteJson, OFFLINE_CASE } from '../../../fixtures/offlineQuote.ts';
import { caseInput } from '../../../fixtures/quoteTamper.ts';
import { startTestServer, type TestServer } from '../testServer.ts';

type Json = Record<string, any>; // test-built JSON, shapes asserted by the code under test

/** The offline v2 quote rewritten in the documented v3 shapes. */
function v3Body(): Json {
  const v2 = offlineQuoteJson().quote as Json;
  const expanded = v2.details.expandedPriceImpact as Record<string, { usd: string }>;
  const fee = (usd: string) => ({
    usd,
    amount: String(BigInt(Math.round(Math.abs(Number(usd)) * 1e6))),
    amountFormatted: String(Math.abs(Number(usd))),
  });
  const { expandedPriceImpact: _dropped, ...details } = v2.details;
  return {
    requestId: v2.requestId,
    steps: (v2.steps as Json[]).map((s) => {
      const item = s.items[0];
      const { from: _from, ...data } = item.data;
      return {
        id: s.id,
        action: s.action,
        description: s.description,
        kind: s.kind,
        status: item.status,
        data,
        check: item.check,
        depositAddress: null,
      };
    }),
    fees: {
      quoted: {
        swap: fee(expanded['swap']!.usd),
        execution: fee(expanded['execution']!.usd),
        platform: fee(expanded['relay']!.usd),
        app: fee(expanded['app']!.usd),
        sponsored: fee(expanded['sponsored']?.usd ?? '0'),
      },
      currency: v2.details.currencyIn.currency,
    },
    details,
    protocol: v2.protocol,
  };
}

const request = { user: OFFLINE_CASE.facts.user } as Pick<QuoteRequest, 'user'>;

describe('mapQuoteV3', () => {
  it('maps flat steps and v3 fees into the model the fee policy and the verifier read', async () => {
    const body = v3Body();
    const { quote, stored } = mapQuoteV3(body, request);
    const v2 = offlineQuote().quote;

    // One item per flat step, `from` filled with the requesting user, the request id carried to the steps.
    expect(quote.steps.map((s) => [s.id, s.items.length, s.requestId])).toEqual(v2.steps.map((s) => [s.id, 1, v2.requestId]));
    expect(quote.steps.every((s) => (s.items[0]!.data as { from?: string }).from === OFFLINE_CASE.facts.user)).toBe(true);
    // The fee policy reads the same costs from fees.quoted as from the v2 breakdown.
    const fromV3 = extractFees(quote.details);
    const fromV2 = extractFees(v2.details);
    expect(fromV3.missingComponents).toEqual([]);
    expect(fromV3.breakdown.components).toEqual(fromV2.breakdown.components);
    expect(fromV3.breakdown.totalMicros).toBe(fromV2.breakdown.totalMicros);
    expect(fromV3.breakdown.components.execution).toBeGreaterThan(0n);
    expect(quote.details.expandedPriceImpact?.['platform']).toEqual({ usd: (body.fees.quoted.platform as { usd: string }).usd });
    expect(quote.fees).toBeUndefined(); // no v2 deprecated fee set

    // The real verifier passes the mapped quote, rule by rule.
    const verdict = await verifyQuote({ ...caseInput(OFFLINE_CASE), quote });
    expect(verdict.rules.filter((r) => !r.ok)).toEqual([]);
    expect(verdict.orderId).toBe(OFFLINE_CASE.facts.orderId);

    // The stored form parses as the internal model again and keeps the body as received.
    expect(QuoteResponseSchema.parse(stored).steps[0]!.items).toHaveLength(1);
    expect(stored[V3_RESPONSE_KEY]).toEqual(body);
  });

  it('keeps a deposit-address object visible, so the verifier refuses that flow', async () => {
    const body = v3Body();
    body.steps[body.steps.length - 1].depositAddress = {
      address: '0x1111111111111111111111111111111111111111',
      type: 'strict',
      depositor: 'x',
      depositTxHash: '',
      recoveryAddress: 'x',
    };
    const { quote } = mapQuoteV3(body, request);
    const verdict = await verifyQuote({ ...caseInput(OFFLINE_CASE), quote });
    expect(verdict.ok).toBe(false);
    expect(verdict.rules.find((r) => r.rule === 'no-unexpected-steps')?.detail).toContain('depositAddress is set');
  });

  it.each([
    ['protocol.v2.orderData', (b: Json) => delete b.protocol.v2.orderData],
    ['protocol.v2', (b: Json) => delete b.protocol],
    ['protocol.v2.paymentDetails', (b: Json) => delete b.protocol.v2.paymentDetails],
    ['details', (b: Json) => delete b.details],
    ['details.currencyIn', (b: Json) => delete b.details.currencyIn],
    ['steps[1].data', (b: Json) => (b.steps[1].data = {})],
  ])('refuses a v3 quote without %s', (field, strip) => {
    const body = v3Body();
    strip(body);
    let caught: unknown;
    try {
      mapQuoteV3(body, request);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QuoteV3UnverifiableError);
    expect((caught as QuoteV3UnverifiableError).code).toBe('RELAY_QUOTE_V3_UNVERIFIABLE');
    expect((caught as QuoteV3UnverifiableError).field).toBe(field);
    expect((caught as Error).message).toContain(`has no ${field}`);
  });

  it('refuses a v3 quote with no request id anywhere, and takes one from a check endpoint', () => {
    const body = v3Body();
    const id = body.requestId as string;
    delete body.requestId;
    expect(mapQuoteV3(body, request).quote.requestId).toBe(id); // from check.endpoint ?requestId=
    for (const s of body.steps) delete s.check;
    expect(() => mapQuoteV3(body, request)).toThrow(QuoteV3UnverifiableError);
  });

  it('rejects a body that contradicts a documented type', () => {
    const body = v3Body();
    body.fees.quoted.swap.usd = 'lots';
    expect(() => mapQuoteV3(body, request)).toThrow(RelaySchemaError);
    const flat = v3Body();
    flat.steps[0].status = 7;
    expect(() => mapQuoteV3(flat, request)).toThrow(RelaySchemaError);
  });
});

describe('RelayClient with quoteApi v3', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(async () => {
    await server.close();
  });
  const quoteRequest = (): QuoteRequest => {
    const f = OFFLINE_CASE.facts;
    return {
      user: f.user,
      recipient: f.recipient,
      originChainId: f.originChainId,
      destinationChainId: f.destinationChainId,
      originCurrency: f.originCurrency,
      destinationCurrency: f.destinationCurrency,
      amount: f.amount.toString(),
      tradeType: 'EXACT_INPUT',
      includeProtocolData: true,
    };
  };

  it('posts to /quote/v3, labels it POST /quote/v3 and returns the mapped quote', async () => {
    server.on('/quote/v3', { status: 200, body: v3Body() });
    const endpoints: string[] = [];
    const client = createRelayClient({
      baseUrl: server.url,
      apiKey: 'k-123',
      quoteApi: 'v3',
      maxRetries: 0,
      onResponse: (e) => endpoints.push(e.endpoint),
    });
    const { quote, raw } = await client.quote(quoteRequest());
    expect(server.requests.map((r) => [r.method, r.path, r.headers['x-api-key']])).toEqual([['POST', '/quote/v3', 'k-123']]);
    expect(endpoints).toEqual(['POST /quote/v3']);
    expect(quote.steps[0]!.items).toHaveLength(1);
    expect(QuoteResponseSchema.safeParse(raw).success).toBe(true);
  });

  it('turns the single v3 error shape into a RelayApiError with its errorCode', async () => {
    server.on('/quote/v3', {
      status: 400,
      body: {
        message: 'Insufficient balance',
        errorCode: 'INSUFFICIENT_FUNDS',
        requestId: '0xabc',
        errorData: { chainId: 31001, currency: '0x2e98', required: '10', available: '1' },
      },
    });
    const client = createRelayClient({ baseUrl: server.url, apiKey: 'k', quoteApi: 'v3', maxRetries: 0 });
    const error = await client.quote(quoteRequest()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RelayApiError);
    const e = error as RelayApiError;
    expect([e.code, e.httpStatus, e.errorCode, e.requestId, e.endpoint]).toEqual([
      'RELAY_HTTP_400',
      400,
      'INSUFFICIENT_FUNDS',
      '0xabc',
      'POST /quote/v3',
    ]);
    expect(JSON.parse(e.errorData ?? '{}')).toEqual({ chainId: 31001, currency: '0x2e98', required: '10', available: '1' });
  });

  it('maps a 401 UNAUTHORIZED_QUOTE to RELAY_HTTP_401 with the code', async () => {
    server.on('/quote/v3', { status: 401, body: { message: 'Please provide an api key', errorCode: 'UNAUTHORIZED_QUOTE' } });
    const client = createRelayClient({ baseUrl: server.url, quoteApi: 'v3', maxRetries: 0 });
    const error = (await client.quote(quoteRequest()).catch((e: unknown) => e)) as RelayApiError;
    expect([error.code, error.errorCode]).toEqual(['RELAY_HTTP_401', 'UNAUTHORIZED_QUOTE']);
  });

  it('still asks /quote/v2 by default', async () => {
    server.on('/quote/v2', { status: 200, body: offlineQuoteJson().quote });
    const client = createRelayClient({ baseUrl: server.url, maxRetries: 0 });
    const { raw } = await client.quote(quoteRequest());
    expect(server.requests.map((r) => r.path)).toEqual(['/quote/v2']);
    expect(raw).toEqual(offlineQuoteJson().quote);
  });
});
