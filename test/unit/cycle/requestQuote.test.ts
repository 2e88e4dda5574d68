/**
 * The Solana re-quote sequence on SOLANA_TX_TOO_LARGE (docs/relay-contract.md "Errors"): maxRouteLength 4, then 3, then a
 * single swap source, each attempt recorded in quote_errors; other errors are recorded once and not retried. Runs the
 * real Relay client against a loopback HTTP server and a real SQLite file.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createRelayClient } from '../../../packages/ballast/src/relay/client.ts';
import { requestQuote } from '../../../packages/ballast/src/cycle/requestQuote.ts';
import { screeningRefusal } from '../../../packages/ballast/src/relay/screening.ts';
import { relayAuthRefusal } from '../../../packages/ballast/src/relay/authRefusal.ts';
import type { QuoteRequest } from '../../../packages/protocol/src/relay/schemas.ts';
import { offlineQuoteJson } from '../../fixtures/offlineQuote.ts';
import { startTestServer, type TestServer } from '../relay/testServer.ts';
import { seedPlan, useTestStore } from './pipelineSeeds.ts';

const TOO_LARGE = {
  status: 400,
  body: { message: 'Solana transaction size 1301 bytes exceeds 1232 by 69 bytes', errorCode: 'SOLANA_TX_TOO_LARGE' },
};
const REQUEST: QuoteRequest = {
  user: '27q8k7t3VAdZgeG679xpgmm9WD4g3EgVfNQaVgfGocPL',
  recipient: '0x03508bb71268bba25ecacc8f620e01866650532c',
  originChainId: 792703809,
  destinationChainId: 8453,
  originCurrency: '11111111111111111111111111111111',
  destinationCurrency: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  amount: '1000000000',
  tradeType: 'EXACT_INPUT',
  includeProtocolData: true,
};

const store = useTestStore();
let server: TestServer;
let ids: { cycleId: number; planId: number };

beforeEach(async () => {
  server = await startTestServer();
  ids = await seedPlan(store.db, 1_000, {
    asset: 'SOL',
    originChain: 'solana',
    destinationChain: 'base',
    amountIn: 1_000_000_000n,
    reason: 'test',
  });
});
afterEach(() => server.close());

function ctx() {
  const relay = createRelayClient({ baseUrl: server.url, sleep: async () => undefined, random: () => 0 });
  return { relay, db: store.db, now: () => 2_000, logger: pino({ level: 'silent' }) };
}

const sentBodies = () => server.requests.filter((r) => r.path === '/quote/v2').map((r) => JSON.parse(r.body) as QuoteRequest);
const recordedErrors = () => store.db.all<{ code: string; message: string }>('SELECT code, message FROM quote_errors ORDER BY id');

describe('requestQuote', () => {
  it('narrows Solana routing 4 → 3 → one source and takes the first quote that fits', async () => {
    server.on('/quote/v2', TOO_LARGE, TOO_LARGE, TOO_LARGE, { status: 200, body: offlineQuoteJson().quote });
    const out = await requestQuote(ctx(), REQUEST, { ...ids, singleSource: 'orca' });
    expect(out.ok).toBe(true);
    const sent = sentBodies();
    expect(sent.map((b) => [b.maxRouteLength, b.includedOriginSwapSources])).toEqual([
      [undefined, undefined],
      [4, undefined],
      [3, undefined],
      [3, ['orca']],
    ]);
    expect(out.request).toMatchObject({ maxRouteLength: 3, includedOriginSwapSources: ['orca'] });
    expect(await recordedErrors()).toHaveLength(3);
    expect((await recordedErrors()).every((e) => e.message.includes('SOLANA_TX_TOO_LARGE'))).toBe(true);
  });

  it('gives up cleanly after the last narrowing, with every attempt recorded and the reason', async () => {
    server.on('/quote/v2', TOO_LARGE);
    const out = await requestQuote(ctx(), REQUEST, { ...ids, singleSource: 'orca' });
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toContain('after 4 attempts narrowing Solana routing: maxRouteLength 3, includedOriginSwapSources [orca]');
    expect(sentBodies()).toHaveLength(4);
    expect(await recordedErrors()).toHaveLength(4);
  });

  it('without a configured source stops after maxRouteLength 3 and says how to go further', async () => {
    server.on('/quote/v2', TOO_LARGE);
    const out = await requestQuote(ctx(), REQUEST, ids);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(sentBodies()).toHaveLength(3);
    expect(out.error).toContain('originSwapSource');
  });

  it('records INSUFFICIENT_FUNDS once and does not ask again', async () => {
    server.on('/quote/v2', {
      status: 400,
      body: { message: 'user balance does not exceed the quoted amount', errorCode: 'INSUFFICIENT_FUNDS' },
    });
    const out = await requestQuote(ctx(), REQUEST, ids);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toContain('INSUFFICIENT_FUNDS');
    expect(sentBodies()).toHaveLength(1);
    expect(await recordedErrors()).toEqual([{ code: 'RELAY_HTTP_400', message: expect.stringContaining('INSUFFICIENT_FUNDS') }]);
  });
});

describe('requestQuote: answers that are final', () => {
  it('sends a screening refusal (400 BLOCKED_WALLET_ADDRESS) once, and hands back the typed error', async () => {
    server.on('/quote/v2', { status: 400, body: { message: 'Address is blocked', errorCode: 'BLOCKED_WALLET_ADDRESS' } });
    const out = await requestQuote(ctx(), REQUEST, ids);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(sentBodies()).toHaveLength(1);
    expect(screeningRefusal(out.cause)?.errorCode).toBe('BLOCKED_WALLET_ADDRESS');
    expect(relayAuthRefusal(out.cause)).toBeUndefined();
  });

  it('sends a refused key (401 UNAUTHORIZED_QUOTE) once, and hands back the typed error', async () => {
    server.on('/quote/v2', { status: 401, body: { message: 'Please provide an api key', errorCode: 'UNAUTHORIZED_QUOTE' } });
    const out = await requestQuote(ctx(), REQUEST, ids);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(sentBodies()).toHaveLength(1);
    expect(relayAuthRefusal(out.cause)).toEqual({ endpoint: 'POST /quote/v2', httpStatus: 401, errorCode: 'UNAUTHORIZED_QUOTE' });
  });
});
