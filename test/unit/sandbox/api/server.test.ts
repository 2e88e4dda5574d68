import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChainsResponseSchema, IntentStatusSchema, QuoteResponseSchema, RequestsResponseSchema } from '../../../../src/relay/schemas.ts';
import { FaultState } from '../../../../src/sandbox/api/faultState.ts';
import { RequestStore } from '../../../../src/sandbox/api/requestStore.ts';
import { createSandboxApi, type SandboxApi } from '../../../../src/sandbox/api/server.ts';
import type { SandboxState } from '../../../../src/sandbox/api/state.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../../../src/sandbox/quote/fees.ts';
import { GWEI, PRICES, SOLVER, TABLE, usdcRequest, USDC } from '../quote/fixtures.ts';

let api: SandboxApi;
let url: string;
let state: SandboxState;
let indexed: { chainId: number; txHash: string }[];

function makeState(apiKey?: string): SandboxState {
  indexed = [];
  return {
    chains: TABLE,
    prices: PRICES,
    pricing: DEFAULT_SANDBOX_PRICING,
    solver: SOLVER,
    apiKey,
    faults: new FaultState(),
    requests: new RequestStore(),
    io: {
      feeData: async () => ({ maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI / 10n }),
      balanceOf: async () => 10n ** 24n,
    },
    indexer: {
      indexTransaction: async (chainId, txHash) => {
        indexed.push({ chainId, txHash });
        return txHash.endsWith('00') ? null : 1;
      },
    },
    logger: pino({ level: 'silent' }),
    nowMs: () => 1_800_000_000_000,
  };
}

async function start(apiKey?: string) {
  state = makeState(apiKey);
  api = createSandboxApi(state);
  url = await api.listen();
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('sandbox API (in-process, fake chain reads)', () => {
  beforeEach(() => start());
  afterEach(() => api.close());

  it('GET /chains parses with ChainsResponseSchema and lists slug, depository and solver', async () => {
    const body = ChainsResponseSchema.parse(await (await fetch(`${url}/chains`)).json());
    expect(body.chains.map((c) => [c.id, c.name, c.protocol?.v2?.chainId])).toEqual([
      [31001, 'alpha', 'alpha'],
      [31002, 'beta', 'beta'],
    ]);
    expect(body.chains[0]!.solverAddresses).toEqual([SOLVER.address.toLowerCase()]);
    expect(body.chains[0]!.erc20Currencies![0]!.address).toBe(USDC);
  });

  it('serves a quote, records it as waiting, and reports it on status and requests endpoints', async () => {
    const res = await post('/quote/v2', usdcRequest());
    expect(res.status).toBe(200);
    const quote = QuoteResponseSchema.parse(await res.json());
    const requestId = quote.requestId!;
    const status = IntentStatusSchema.parse(await (await fetch(`${url}/intents/status/v3?requestId=${requestId}`)).json());
    expect(status).toMatchObject({ status: 'waiting', inTxHashes: [], txHashes: [], originChainId: 31001, destinationChainId: 31002 });
    const reqs = RequestsResponseSchema.parse(await (await fetch(`${url}/requests/v3?id=${requestId}`)).json());
    expect(reqs.requests).toHaveLength(1);
    expect(reqs.requests[0]!.data).toMatchObject({ fees: { quoted: { execution: { usd: '0.215' }, platform: { usd: '0' } } } });
    const byUser = RequestsResponseSchema.parse(await (await fetch(`${url}/requests/v3?user=${usdcRequest().user.toUpperCase().replace('0X', '0x')}`)).json());
    expect(byUser.requests.map((r) => r.id)).toEqual([requestId]);
    expect((await fetch(`${url}/intents/status/v3?requestId=0x${'1'.repeat(64)}`)).status).toBe(404);
  });

  it('answers 400 with errorCode for bad requests', async () => {
    const cases: [unknown, string][] = [
      [{ ...usdcRequest(), tradeType: 'EXACT_OUTPUT' }, 'UNSUPPORTED_TRADE_TYPE'],
      [{ ...usdcRequest(), destinationChainId: 1 }, 'UNSUPPORTED_CHAIN'],
      [{ ...usdcRequest(), destinationCurrency: '0x2222222222222222222222222222222222222222' }, 'UNSUPPORTED_CURRENCY'],
      [{ ...usdcRequest(), amount: '0' }, 'AMOUNT_TOO_LOW'],
      [{ ...usdcRequest(), amount: '-5' }, 'INVALID_REQUEST'],
    ];
    for (const [body, code] of cases) {
      const res = await post('/quote/v2', body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as { message: string; errorCode: string };
      expect(json.errorCode).toBe(code);
      expect(json.message.length).toBeGreaterThan(0);
    }
    const bad = await fetch(`${url}/quote/v2`, { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
  });

  it('a 429 burst answers the next N public requests with retry-after, then recovers; admin is exempt', async () => {
    const f = await post('/_sandbox/faults', { httpErrors: { status: 429, count: 2 } });
    expect(f.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${url}/chains`);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toMatchObject({ errorCode: 'RATE_LIMITED' });
    }
    expect((await fetch(`${url}/chains`)).status).toBe(200);
    state.faults.set({ httpErrors: { status: 503, count: 1 } });
    expect((await fetch(`${url}/_sandbox/faults`)).status).toBe(200);
    const res = await fetch(`${url}/chains`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('refuses unknown fault knobs with 400 and applies a counted tamper to exactly that many quotes', async () => {
    expect((await post('/_sandbox/faults', { neverfill: true })).status).toBe(400);
    await post('/_sandbox/faults', { tamper: 'recipient', tamperCount: 1 });
    const first = QuoteResponseSchema.parse(await (await post('/quote/v2', usdcRequest())).json());
    const second = QuoteResponseSchema.parse(await (await post('/quote/v2', usdcRequest())).json());
    const recipient = (q: typeof first) => q.protocol!.v2!.orderData.output.payments[0]!.recipient;
    expect(recipient(first)).not.toBe(usdcRequest().recipient);
    expect(recipient(second)).toBe(usdcRequest().recipient);
    expect(state.faults.get().tamper).toBeNull();
  });

  it('POST /transactions/index forwards to the indexer: 200 with the deposit count, 404 for an unknown tx', async () => {
    const hit = await post('/transactions/index', { chainId: 31001, txHash: `0x${'ab'.repeat(32)}` });
    expect(hit.status).toBe(200);
    expect(await hit.json()).toMatchObject({ deposits: 1 });
    const miss = await post('/transactions/index', { chainId: 31001, txHash: `0x${'ab'.repeat(31)}00` });
    expect(miss.status).toBe(404);
    expect(await miss.json()).toHaveProperty('message');
    expect((await post('/transactions/index', { chainId: 5, txHash: `0x${'ab'.repeat(32)}` })).status).toBe(400);
    expect(indexed).toHaveLength(2);
  });

  it('unknown paths answer 404 {message}, wrong methods 405', async () => {
    expect((await fetch(`${url}/requests/abc/signature`)).status).toBe(404);
    expect((await fetch(`${url}/quote/v2`)).status).toBe(405);
  });
});

describe('sandbox API with a required API key', () => {
  beforeEach(() => start('secret-key'));
  afterEach(() => api.close());

  it('401 UNAUTHORIZED on a missing or wrong x-api-key, 200 with the right one', async () => {
    const none = await post('/quote/v2', usdcRequest());
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ errorCode: 'UNAUTHORIZED' });
    expect((await post('/quote/v2', usdcRequest(), { 'x-api-key': 'wrong' })).status).toBe(401);
    expect((await post('/quote/v2', usdcRequest(), { 'x-api-key': 'secret-key' })).status).toBe(200);
    expect((await fetch(`${url}/chains`)).status).toBe(200);
  });
});
