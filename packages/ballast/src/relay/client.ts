/**
 * Typed Relay API client (docs/relay-contract.md "Endpoints"): GET /chains, GET /chains/liquidity, POST /quote/v2 or
 * /quote/v3 (`quoteApi`, mapped into one quote model by src/relay/quoteApi/), GET /intents/status/v3 (or a safe
 * `check.endpoint`), GET /requests/v3, POST /transactions/index, GET /currencies/token/price, and the withdrawal endpoints (`withdrawalApi.ts`).
 *
 * Every response is validated with the zod schemas of `schemas.ts` before it is returned. Errors are
 * `RelayApiError` (non-2xx), `RelaySchemaError` (body invalid), `RelayNetworkError` (unreachable/timeout),
 * `RelayRequestError` (bad argument). 429/502/503/504 and network errors are retried with backoff honouring
 * `retry-after`; calls are spaced by client-side limiters (docs/design.md "Rate limits": /quote 50/min, others
 * 200/min). The API key and URL credentials never appear in errors or logs.
 */
import type { Logger } from 'pino';
import { parseWith, RelayError, RelayRequestError, RelaySchemaError, requireText, schemaIssuesFromZod } from './errors.ts';
import type { DeprecationNotice } from './deprecation.ts';
import { createHttpTarget, sendOnce, type HttpCall, type HttpEnv } from './http.ts';
import { createRateLimiter, type RateLimiter } from './rateLimiter.ts';
import { DEFAULT_MAX_RETRIES, withRetry } from './retry.ts';
import {
  ChainLiquidityResponseSchema,
  ChainsEnvelopeSchema,
  IntentStatusSchema,
  parseChainsLeniently,
  QuoteRequestSchema,
  RequestsResponseSchema,
  type ChainLiquidity,
  type ChainsResponse,
  type IntentStatus,
  type QuoteRequest,
  type QuoteResponse,
  type RequestsResponse,
  type SkippedChain,
} from '@ballast/protocol/relay/schemas.ts';
import { resolveStatusPath } from './statusPath.ts';
import { selectQuoteApi, type QuoteApiVersion } from './quoteApi/selectQuoteApi.ts';
import { createWithdrawalApi, type RelayWithdrawalApi } from './withdrawalApi.ts';
import { TOKEN_PRICE_ENDPOINT, TokenPriceResponseSchema } from './tokenPrice.ts';

/** Options of {@link createRelayClient}. */
export interface RelayClientOptions {
  /** API base, e.g. `https://api.relay.link` (docs/design.md "Base URLs") or the sandbox URL. */
  baseUrl: string;
  /** Sent as `x-api-key` (docs/relay-contract.md "Authentication" 1). Never logged. */
  apiKey?: string;
  /** Added to quote requests that do not set `referrer` themselves. */
  referrer?: string;
  /** Per-attempt timeout including the body, ms (default 15000). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429/502/503/504/network errors (default 4). */
  maxRetries?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
  /** Called once per HTTP attempt, for metrics. `endpoint` is `METHOD /route` (bounded set). */
  onResponse?: (e: { endpoint: string; status: number | 'network_error'; durationMs: number }) => void;
  /**
   * Called for every HTTP attempt whose response (2xx or not) carries `Deprecation`, `Sunset` or a deprecation
   * `Link` header (RFC 9745, RFC 8594, RFC 8288; src/relay/deprecation.ts), for metrics and warnings. Exceptions
   * it throws are logged, never raised into the call.
   */
  onDeprecation?: (notice: DeprecationNotice) => void;
  /** Clock, unix ms: `retry-after` HTTP dates and rate limiting (default `Date.now`). */
  now?: () => number;
  /** Uniform [0, 1) source for backoff jitter (default `Math.random`). */
  random?: () => number;
  /**
   * The quote endpoint (`relay.quoteApi`): `v2` (default) POST /quote/v2, `v3` POST /quote/v3 mapped into the same
   * quote model (src/relay/quoteApi/v3.ts, which refuses responses lacking what verification needs).
   */
  quoteApi?: QuoteApiVersion;
  /**
   * Client-side cap on quote calls (POST /quote/v2 or /quote/v3) per minute (default 50, the documented default per key:
   * https://docs.relay.link/references/api/api-keys; config `relay.quotesPerMinute`).
   */
  quotesPerMinute?: number;
  /** Client-side cap on all other calls per minute (default 200). */
  otherCallsPerMinute?: number;
}

/**
 * The Relay API as Ballast uses it. Every method throws the `Relay*Error` families of `errors.ts`. The withdrawal
 * calls (docs/relay-contract.md "Withdrawal endpoints") are sent once each, paced by the caller
 * (src/relay/withdrawalApi.ts).
 */
export interface RelayClient extends RelayWithdrawalApi {
  /**
   * GET /chains (docs/relay-contract.md "GET /chains"). `raw` is the JSON as received, for storage. Parsed chain by chain: a
   * chain with an unexpected shape is left out, listed in `skipped` and logged, and the others are returned.
   */
  getChains(): Promise<{ chains: ChainsResponse; raw: unknown; skipped: SkippedChain[] }>;
  /**
   * GET /chains/liquidity?chainId= (docs/relay-contract.md "GET /chains/liquidity",
   * https://docs.relay.link/references/api/get-chains-liquidity): the solver's balance per currency on that chain,
   * `balance` in bigint base units of the entry's `decimals`. An entry naming another chain id fails the answer.
   *
   * @throws RelayRequestError when `chainId` is not a positive integer; RelaySchemaError when the answer is not
   *   `{liquidity: [{address, decimals, balance, ...}]}` with integer-string balances
   */
  getChainLiquidity(chainId: number): Promise<ChainLiquidity[]>;
  /**
   * POST /quote/v2 (docs/relay-contract.md "POST /quote/v2"), or POST /quote/v3 with `quoteApi: 'v3'`; adds the configured
   * `referrer`. `raw` is what to store: for v2 the JSON as received; for v3 the internal model as JSON with the
   * body as received under `quoteV3Response` (it parses as a `QuoteResponse`, like a v2 body).
   * v3 also throws QuoteV3UnverifiableError (`RELAY_QUOTE_V3_UNVERIFIABLE`) when the response lacks what local
   * verification needs.
   */
  quote(req: QuoteRequest): Promise<{ quote: QuoteResponse; raw: unknown }>;
  /**
   * Quotes that could be sent now without waiting for the client-side /quote rate limit (docs/design.md "Rate
   * limits": 50 per minute). Absent on clients without a limiter.
   */
  quoteSlotsFree?(): number;
  /**
   * Request status (docs/relay-contract.md "GET /intents/status/v3"). Polls `checkEndpoint` when it is a safe relative path
   * under
   * /intents/status for this request id, else `/intents/status/v3?requestId=...`.
   */
  getStatus(requestId: string, checkEndpoint?: string, opts?: CallOptions): Promise<IntentStatus>;
  /**
   * GET /requests/v3 by request id, or by user with an optional status filter (docs/relay-contract.md "GET /requests/v3").
   */
  getRequests(q: { id: string } | { user: string; status?: string }): Promise<RequestsResponse>;
  /**
   * POST /transactions/index: asks the service to reindex a deposit it missed (docs/relay-contract.md "POST
   * /transactions/index").
   */
  indexTransaction(body: { chainId: number; txHash: string }): Promise<unknown>;
  /**
   * GET /currencies/token/price?address=&chainId= (https://docs.relay.link/references/api/get-token-price): the USD
   * price of one whole token, as bigint micro-USD (src/relay/tokenPrice.ts). Optional: clients without it (test
   * doubles) leave a price unknown, and the caller fails closed.
   *
   * @param address the token's address as GET /chains spells it (a chain's native currency: its `currency.address`)
   * @throws RelayRequestError when `chainId` is not a positive integer or `address` is empty; RelaySchemaError when
   *   the price is not a positive number of at most 10,000,000 USD
   */
  getTokenPrice?(q: { chainId: number; address: string }): Promise<{ priceUsdMicros: bigint }>;
}

/** Per-call options. */
export interface CallOptions {
  /**
   * Abandons the call, its retries and waits included, when aborted (a caller's overall deadline such as
   * `tracking.timeoutSec`); the call then throws the last error, or a RelayNetworkError if none.
   */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const MINUTE_MS = 60_000;

/**
 * Creates a Relay client.
 *
 * @throws RelayRequestError (code `RELAY_REQUEST_INVALID`) when `baseUrl` is not an absolute http(s) URL
 */
export function createRelayClient(opts: RelayClientOptions): RelayClient {
  const target = createHttpTarget(opts.baseUrl, opts.apiKey);
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const env: HttpEnv = {
    target,
    fetch: opts.fetch ?? globalThis.fetch,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    now,
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(opts.onResponse !== undefined ? { onResponse: opts.onResponse } : {}),
    ...(opts.onDeprecation !== undefined ? { onDeprecation: opts.onDeprecation } : {}),
  };
  const quoteLimiter = createRateLimiter({ limit: opts.quotesPerMinute ?? 50, windowMs: MINUTE_MS, now, sleep });
  const otherLimiter = createRateLimiter({ limit: opts.otherCallsPerMinute ?? 200, windowMs: MINUTE_MS, now, sleep });

  /** Sends with rate limiting and retries, returning the JSON body. */
  const send = (call: HttpCall, limiter: RateLimiter, signal?: AbortSignal): Promise<unknown> =>
    withRetry(
      async () => {
        await limiter.acquire();
        return sendOnce(env, call, signal);
      },
      {
        maxRetries: opts.maxRetries ?? DEFAULT_MAX_RETRIES,
        sleep,
        ...(signal !== undefined ? { signal } : {}),
        ...(opts.random !== undefined ? { random: opts.random } : {}),
        onRetry: ({ attempt, delayMs, error }) =>
          opts.logger?.warn(
            { endpoint: call.endpoint, attempt: attempt + 1, delayMs, code: error instanceof RelayError ? error.code : undefined },
            'relay call failed; retrying',
          ),
      },
    );

  return {
    ...createWithdrawalApi(async (call) => {
      await otherLimiter.acquire();
      return sendOnce(env, call);
    }),

    async getChains() {
      const endpoint = 'GET /chains';
      const raw = await send({ method: 'GET', endpoint, pathAndQuery: '/chains' }, otherLimiter);
      parseWith(ChainsEnvelopeSchema, endpoint, raw);
      const { chains, skipped } = parseChainsLeniently(raw);
      for (const s of skipped) {
        opts.logger?.warn({ endpoint, index: s.index, id: s.id, name: s.name, reason: s.reason }, 'chain with an unexpected shape skipped');
      }
      return { chains, raw, skipped };
    },

    async getChainLiquidity(chainId) {
      const endpoint = 'GET /chains/liquidity';
      if (!Number.isSafeInteger(chainId) || chainId <= 0) {
        throw new RelayRequestError(endpoint, 'chainId', `must be a positive integer chain id, got ${chainId}`);
      }
      const raw = await send({ method: 'GET', endpoint, pathAndQuery: `/chains/liquidity?chainId=${chainId}` }, otherLimiter);
      const body = parseWith(ChainLiquidityResponseSchema, endpoint, raw);
      return body.liquidity.map((e, i): ChainLiquidity => {
        if (e.chainId !== undefined && e.chainId !== chainId) {
          throw new RelaySchemaError(endpoint, [
            { path: `liquidity.${i}.chainId`, message: `expected ${chainId}, the chain asked about, got ${e.chainId}` },
          ]);
        }
        const { currencyId, symbol, amountUsd } = e;
        return {
          chainId,
          address: e.address,
          decimals: e.decimals,
          balance: BigInt(e.balance), // UintString checked the digits
          ...(currencyId !== undefined ? { currencyId } : {}),
          ...(symbol !== undefined ? { symbol } : {}),
          ...(amountUsd !== undefined ? { amountUsd } : {}),
        };
      });
    },

    quoteSlotsFree: () => quoteLimiter.free(),

    async quote(req) {
      const api = selectQuoteApi(opts.quoteApi ?? 'v2');
      const endpoint = api.endpoint;
      const withReferrer = req.referrer === undefined && opts.referrer !== undefined ? { ...req, referrer: opts.referrer } : req;
      const checked = QuoteRequestSchema.safeParse(withReferrer);
      if (!checked.success) {
        const issue = schemaIssuesFromZod(checked.error.issues)[0];
        throw new RelayRequestError(endpoint, `request.${issue?.path ?? ''}`, issue?.message ?? 'is invalid');
      }
      const raw = await send({ method: 'POST', endpoint, pathAndQuery: api.path, body: checked.data }, quoteLimiter);
      const { quote, stored } = api.map(raw, checked.data);
      return { quote, raw: stored };
    },

    async getStatus(requestId, checkEndpoint, callOpts) {
      requireText('GET /intents/status/v3', 'requestId', requestId);
      const resolved = resolveStatusPath(requestId, checkEndpoint);
      if (resolved.rejected !== undefined) {
        opts.logger?.warn({ requestId, reason: resolved.rejected }, 'check endpoint not followed; using /intents/status/v3');
      }
      const endpoint = `GET ${resolved.route}`;
      const raw = await send({ method: 'GET', endpoint, pathAndQuery: resolved.pathAndQuery }, otherLimiter, callOpts?.signal);
      return parseWith(IntentStatusSchema, endpoint, raw);
    },

    async getRequests(q) {
      const endpoint = 'GET /requests/v3';
      const params = new URLSearchParams();
      if ('id' in q) {
        requireText(endpoint, 'id', q.id);
        params.set('id', q.id);
      } else {
        requireText(endpoint, 'user', q.user);
        params.set('user', q.user);
        if (q.status !== undefined) params.set('status', q.status);
      }
      const raw = await send({ method: 'GET', endpoint, pathAndQuery: `/requests/v3?${params.toString()}` }, otherLimiter);
      return parseWith(RequestsResponseSchema, endpoint, raw);
    },

    async getTokenPrice(q) {
      const endpoint = TOKEN_PRICE_ENDPOINT;
      if (!Number.isSafeInteger(q.chainId) || q.chainId <= 0) {
        throw new RelayRequestError(endpoint, 'chainId', `must be a positive integer chain id, got ${q.chainId}`);
      }
      requireText(endpoint, 'address', q.address);
      const params = new URLSearchParams({ address: q.address, chainId: String(q.chainId) });
      const raw = await send({ method: 'GET', endpoint, pathAndQuery: `/currencies/token/price?${params.toString()}` }, otherLimiter);
      return parseWith(TokenPriceResponseSchema, endpoint, raw);
    },

    async indexTransaction(body) {
      const endpoint = 'POST /transactions/index';
      if (!Number.isSafeInteger(body.chainId) || body.chainId <= 0) {
        throw new RelayRequestError(endpoint, 'chainId', `must be a positive integer chain id, got ${body.chainId}`);
      }
      requireText(endpoint, 'txHash', body.txHash);
      return send(
        { method: 'POST', endpoint, pathAndQuery: '/transactions/index', body: { chainId: body.chainId, txHash: body.txHash } },
        otherLimiter,
      );
    },
  };
}
