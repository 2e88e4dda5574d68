import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ChainsResponseSchema,
  IntentStatusSchema,
  QuoteResponseSchema,
  RequestsResponseSchema,
} from '../../../../packages/protocol/src/relay/schemas.ts';
import { FaultState } from '../../../../packages/sandbox/src/api/faultState.ts';
import { RequestStore } from '../../../../packages/sandbox/src/api/requestStore.ts';
import { createSandboxApi, type SandboxApi } from '../../../../packages/sandbox/src/api/server.ts';
import type { SandboxState } from '../../../../packages/sandbox/src/api/state.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../../../packages/sandbox/src/quote/fees.ts';
import { GWEI, PRICES, ROUTERS_ALPHA, SOLVER, TABLE, usdcRequest, USDC, USDT, ZERO } from '../quote/fixtures.ts';

/** The error body shapes of docs/relay-contract.md "Errors" (key sets) and the codes the sandbox may use in them. */
const ERROR_SHAPES = ['message', 'errorCode,message', 'errorCode,errorData,message', 'errorCode,message,requestId'];
const PUBLIC_CODES = [
  'INVALID_ADDRESS',
  'UNSUPPORTED_CHAIN',
  'UNSUPPORTED_CURRENCY',
  'UNSUPPORTED_ROUTE',
  'EXTRA_TXS_NOT_SUPPORTED',
  'AMOUNT_TOO_LOW',
  'INSUFFICIENT_LIQUIDITY',
  'INVALID_SLIPPAGE_TOLERANCE',
  'UNAUTHORIZED',
  'UNKNOWN_ERROR',
];

/** Reads an error answer and checks it has one of the Relay API's shapes and, if any, a public code. */
async function errorBody(res: Response): Promise<Record<string, string>> {
  const body = (await res.json()) as Record<string, string>; // JSON object of strings, checked below
  expect(ERROR_SHAPES).toContain(Object.keys(body).sort().join(','));
  expect(body.message).toEqual(expect.stringMatching(/./));
  if (body.errorCode !== undefined) expect(PUBLIC_CODES).toContain(body.errorCode);
  return body;
}

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
    expect(body.chains[0]!.erc20Currencies!.map((c) => [c.symbol, c.address, c.decimals])).toEqual([
      ['USDC', USDC, 6],
      ['USDT', USDT, 6],
    ]);
    expect(body.chains[0]!.solverCurrencies!.map((c) => c.symbol)).toEqual(['ETH', 'USDC', 'USDT']);
    expect(body.chains[0]!.contracts).toEqual({
      multicall3: '0xca11bde05977b3631167028862be2a173976ca11',
      erc20Router: ROUTERS_ALPHA.erc20Router,
      approvalProxy: ROUTERS_ALPHA.approvalProxy,
      v3: { erc20Router: ROUTERS_ALPHA.v3.erc20Router, approvalProxy: ROUTERS_ALPHA.v3.approvalProxy },
      // Router 3.2: the sandbox's top-level pair, listed again under its generation (docs/design.md "Router 3.2")
      'v3.2': { erc20Router: ROUTERS_ALPHA.erc20Router, approvalProxy: ROUTERS_ALPHA.approvalProxy },
    });
  });

  it('serves a quote, records it as waiting, and reports it on status and requests endpoints', async () => {
    const res = await post('/quote/v2', usdcRequest());
    expect(res.status).toBe(200);
    const quote = QuoteResponseSchema.parse(await res.json());
    const requestId = quote.requestId!;
    const status = IntentStatusSchema.parse(await (await fetch(`${url}/intents/status/v3?requestId=${requestId}`)).json());
    expect(status).toMatchObject({ status: 'waiting', inTxHashes: [], txHashes: [], originChainId: 31001, destinationChainId: 31002 });
    expect(status).toMatchObject({ failReason: 'N/A', refundFailReason: 'N/A' });
    const reqs = RequestsResponseSchema.parse(await (await fetch(`${url}/requests/v3?id=${requestId}`)).json());
    expect(reqs.requests).toHaveLength(1);
    // v3 shape: data.fees components carry a negative usd cost, amount and amountFormatted in the input currency
    expect(reqs.requests[0]).toMatchObject({
      status: 'waiting',
      requestType: 'Bridge',
      data: {
        slippageTolerance: '50',
        failReason: null,
        refundFailReason: null,
        inTxs: [],
        outTxs: [],
        fees: {
          quoted: { execution: { usd: '-0.215', amount: '215000', amountFormatted: '0.215' }, platform: { usd: '0', amount: '0' } },
          currency: { chainId: 31001, address: USDC, symbol: 'USDC' },
        },
        route: { quoted: { origin: { inputCurrency: { amount: '1000000000' } } } },
      },
      protocol: { isWithdrawable: false, hubType: 'onchain', settlement: { destination: { fills: [], refunds: [] } } },
    });
    expect(reqs.requests[0]!.data).not.toHaveProperty('fees.actual');
    const byUser = RequestsResponseSchema.parse(
      await (await fetch(`${url}/requests/v3?user=${usdcRequest().user.toUpperCase().replace('0X', '0x')}`)).json(),
    );
    expect(byUser.requests.map((r) => r.id)).toEqual([requestId]);
    const unknown = await fetch(`${url}/intents/status/v3?requestId=0x${'1'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(Object.keys(await errorBody(unknown))).toEqual(['message']);
  });

  it('answers 400 in the spec error shapes, with public codes only, or message-only where no public code fits', async () => {
    const cases: [unknown, string | undefined, string][] = [
      [{ ...usdcRequest(), destinationChainId: 1 }, 'UNSUPPORTED_CHAIN', 'destinationChainId'],
      [
        { ...usdcRequest(), destinationCurrency: '0x2222222222222222222222222222222222222222' },
        'UNSUPPORTED_CURRENCY',
        'destinationCurrency',
      ],
      [{ ...usdcRequest(), amount: '0' }, 'AMOUNT_TOO_LOW', 'amount'],
      [{ ...usdcRequest(), user: 'not-an-address' }, 'INVALID_ADDRESS', 'user'],
      [{ ...usdcRequest(), slippageTolerance: 'lots' }, 'INVALID_SLIPPAGE_TOLERANCE', 'slippageTolerance'],
      [{ ...usdcRequest(), txs: [{ to: USDC, value: '0', data: '0x' }] }, 'EXTRA_TXS_NOT_SUPPORTED', 'txs'],
      [{ ...usdcRequest(), destinationChainId: 31001 }, 'UNSUPPORTED_ROUTE', 'same currency'],
      [{ ...usdcRequest(), tradeType: 'EXACT_OUTPUT' }, undefined, 'EXACT_INPUT'],
      [{ ...usdcRequest(), amount: '-5' }, undefined, 'amount'],
    ];
    for (const [body, code, named] of cases) {
      const res = await post('/quote/v2', body);
      expect(res.status).toBe(400);
      const json = await errorBody(res);
      expect(json.errorCode).toBe(code);
      expect(json.message).toContain(named);
    }
    expect(await errorBody(await post('/quote/v2', { ...usdcRequest(), slippageTolerance: 'lots' }))).toMatchObject({
      errorData: '"lots"',
    });
    const bad = await fetch(`${url}/quote/v2`, { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
    expect(Object.keys(await errorBody(bad))).toEqual(['message']);
    const noQuery = await fetch(`${url}/requests/v3`);
    expect(noQuery.status).toBe(400);
    expect(Object.keys(await errorBody(noQuery))).toEqual(['message']);
  });

  it('a 429 burst answers the next N public requests with retry-after, then recovers; admin is exempt', async () => {
    const f = await post('/_sandbox/faults', { httpErrors: { status: 429, count: 2 } });
    expect(f.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${url}/chains`);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(Object.keys(await errorBody(res))).toEqual(['message']); // no public code names rate limiting
    }
    expect((await fetch(`${url}/chains`)).status).toBe(200);
    state.faults.set({ httpErrors: { status: 503, count: 1 } });
    expect((await fetch(`${url}/_sandbox/faults`)).status).toBe(200);
    const res = await fetch(`${url}/chains`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(Object.keys(await errorBody(res))).toEqual(['message']);
  });

  it('refuses unknown fault knobs with 400 and applies a counted tamper to exactly that many quotes', async () => {
    const misspelt = await post('/_sandbox/faults', { neverfill: true });
    expect(misspelt.status).toBe(400);
    expect((await errorBody(misspelt)).message).toContain('neverfill');
    expect((await post('/_sandbox/faults', { failReason: 'MADE_UP' })).status).toBe(400); // only published reasons
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
    // chainId is a number (docs/relay-contract.md) or its decimal string (published OpenAPI): a slug is refused, naming the
    // field, and nothing is indexed
    const stringId = await post('/transactions/index', { chainId: 'alpha', txHash: `0x${'ab'.repeat(32)}` });
    expect(stringId.status).toBe(400);
    const body = await errorBody(stringId);
    expect(Object.keys(body)).toEqual(['message']);
    expect(body.message).toMatch(/chainId: .*positive integer number/);
    expect(indexed).toHaveLength(2);
  });

  it("GET /chains/liquidity lists the solver's balance of each currency of the chain; 400 {message} without a sandbox chainId", async () => {
    const asked: string[] = [];
    state.io.balanceOf = async (chainId, currency, owner) => {
      asked.push(`${chainId} ${currency.symbol} ${owner}`);
      return currency.isNative ? 2n * 10n ** 18n : 1_500_000_000n;
    };
    const res = await fetch(`${url}/chains/liquidity?chainId=31002`);
    expect(res.status).toBe(200);
    const at = (id: string, symbol: string, address: string, decimals: number, balance: string, amountUsd: string) => ({
      chainId: 31002,
      currencyId: id,
      symbol,
      address,
      decimals,
      balance,
      amountUsd,
    });
    expect(await res.json()).toEqual({
      liquidity: [
        at('eth', 'ETH', ZERO, 18, '2000000000000000000', '6000'),
        at('usdc', 'USDC', USDC, 6, '1500000000', '1500'),
        at('usdt', 'USDT', USDT, 6, '1500000000', '1500'),
      ],
    });
    expect(asked).toEqual(['ETH', 'USDC', 'USDT'].map((sym) => `31002 ${sym} ${SOLVER.address}`));
    for (const query of ['', '?chainId=', '?chainId=beta', '?chainId=5']) {
      const bad = await fetch(`${url}/chains/liquidity${query}`);
      expect(bad.status, query).toBe(400);
      expect(Object.keys(await errorBody(bad))).toEqual(['message']);
    }
  });

  it('GET /currencies/token/price answers {price} (USD per whole token) from the price table; 400 {error} for an unknown token or chain; 500 under tokenPriceError', async () => {
    const price = async (query: string) => {
      const res = await fetch(`${url}/currencies/token/price${query}`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    expect(await price(`?address=${ZERO}&chainId=31001`)).toEqual({ status: 200, body: { price: 3000 } });
    expect(await price(`?address=${USDC.toUpperCase().replace('0X', '0x')}&chainId=31002`)).toEqual({ status: 200, body: { price: 1 } });
    for (const query of ['', `?address=${ZERO}`, `?address=${ZERO}&chainId=5`, `?address=0x${'12'.repeat(20)}&chainId=31001`]) {
      const bad = await price(query);
      expect(bad.status, query).toBe(400);
      expect(Object.keys(bad.body as object), query).toEqual(['error']);
    }
    state.faults.set({ tokenPriceError: true });
    const down = await fetch(`${url}/currencies/token/price?address=${ZERO}&chainId=31001`);
    expect(down.status).toBe(500);
    expect((await errorBody(down)).errorCode).toBe('UNKNOWN_ERROR');
  });

  it('unknown paths answer 404 {message}, wrong methods 405 {message}', async () => {
    const removed = await fetch(`${url}/requests/abc/signature`);
    expect(removed.status).toBe(404);
    expect(Object.keys(await errorBody(removed))).toEqual(['message']);
    const wrong = await fetch(`${url}/quote/v2`);
    expect(wrong.status).toBe(405);
    expect(Object.keys(await errorBody(wrong))).toEqual(['message']);
  });

  it('an unexpected failure answers 500 {message, errorCode: UNKNOWN_ERROR}', async () => {
    state.io.feeData = async () => {
      throw new Error('node down');
    };
    const res = await post('/quote/v2', usdcRequest());
    expect(res.status).toBe(500);
    expect(await errorBody(res)).toEqual({ message: 'Internal sandbox error', errorCode: 'UNKNOWN_ERROR' });
  });
});

describe('sandbox API with a required API key', () => {
  beforeEach(() => start('secret-key'));
  afterEach(() => api.close());

  it('401 UNAUTHORIZED on a missing or wrong x-api-key, 200 with the right one', async () => {
    const none = await post('/quote/v2', usdcRequest());
    expect(none.status).toBe(401);
    const body = await errorBody(none);
    expect(Object.keys(body).sort()).toEqual(['errorCode', 'message']); // docs/relay-contract.md "Authentication" 3
    expect(body.errorCode).toBe('UNAUTHORIZED');
    expect((await post('/quote/v2', usdcRequest(), { 'x-api-key': 'wrong' })).status).toBe(401);
    expect((await post('/quote/v2', usdcRequest(), { 'x-api-key': 'secret-key' })).status).toBe(200);
    expect((await fetch(`${url}/chains`)).status).toBe(200);
  });
});
