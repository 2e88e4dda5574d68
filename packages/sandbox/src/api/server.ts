/**
 * The sandbox's Relay-compatible HTTP API on node:http, bound to 127.0.0.1 (no framework: a handful of routes
 * needs none, and none is installed). Public routes: GET /chains, GET /chains/liquidity (`liquidity.ts`: the
 * solver's balances), POST /quote/v2, POST /quote/v3 (`quoteV3Handler.ts`: key mandatory, v3 error shape),
 * GET /intents/status/v3 (and /intents/status), GET /requests/v3, POST /transactions/index, GET
 * /currencies/token/price (`tokenPrice.ts`: the sandbox's USD price table). Admin routes:
 * GET|POST /_sandbox/faults, POST /_sandbox/faults/reset, GET /_sandbox/requests, GET /_sandbox/solana-quotes;
 * features add more through `extra` routes (the withdrawal endpoints and GET /_sandbox/hub-balances,
 * `src/sandbox/withdrawals`; GET|POST /_sandbox/bitcoin/faults, `bitcoinFaultRoutes.ts`). HTTP error bursts
 * (faults.httpErrors) apply to public routes only and answer 429 / 503 `{message}` with `retry-after: 1`.
 * Error bodies follow docs/relay-contract.md "Errors" (see `SandboxApiError`). Every response on /quote/v2, errors and
 * bursts included, carries the deprecation headers Relay documents for it (`deprecationHeaders.ts`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxApiError } from '../quote/errors.ts';
import { DEPRECATED_SANDBOX_PATHS, quoteV2DeprecationHeaders } from './deprecationHeaders.ts';
import { readJsonBody, sendJson } from './http.ts';
import { checkApiKey, handleQuote } from './quoteHandler.ts';
import { handleQuoteV3 } from './quoteV3Handler.ts';
import { getChainLiquidity } from './liquidity.ts';
import { getTokenPrice } from './tokenPrice.ts';
import {
  getAllRequests,
  getChains,
  getFaults,
  getRequests,
  getSolanaQuoteLog,
  getStatus,
  postFaults,
  postTransactionsIndex,
  resetFaults,
  type RouteResult,
} from './routes.ts';
import type { SandboxState } from './state.ts';

/** A created (not yet listening) sandbox API. */
export interface SandboxApi {
  server: Server;
  /**
   * Starts listening on 127.0.0.1.
   *
   * @param port TCP port; 0 (default) picks a free one
   * @returns the base URL, e.g. `http://127.0.0.1:41234`
   */
  listen(port?: number): Promise<string>;
  /** Stops accepting connections, drops open ones and resolves when the server is closed. */
  close(): Promise<void>;
}

type Handler = (state: SandboxState, req: IncomingMessage, url: URL) => RouteResult | Promise<RouteResult>;
/** A route handler of the sandbox API. */
export type SandboxRouteHandler = Handler;

/**
 * Routes a sandbox feature registers besides the built-in ones (e.g. the withdrawal endpoints), keyed
 * `'METHOD /path'`. Public routes see the HTTP error-burst faults; admin routes do not.
 */
export interface SandboxApiRoutes {
  public?: Record<string, SandboxRouteHandler>;
  admin?: Record<string, SandboxRouteHandler>;
}

const PUBLIC_ROUTES: Record<string, Handler> = {
  'GET /chains': (s) => getChains(s),
  'GET /chains/liquidity': (s, _req, url) => getChainLiquidity(s, url.searchParams),
  'POST /quote/v2': async (s, req) => {
    checkApiKey(s, req.headers['x-api-key']);
    return { status: 200, body: await handleQuote(s, await readJsonBody(req)) };
  },
  'POST /quote/v3': async (s, req) => ({ status: 200, body: await handleQuoteV3(s, req) }),
  'GET /intents/status/v3': (s, _req, url) => getStatus(s, url.searchParams),
  'GET /intents/status': (s, _req, url) => getStatus(s, url.searchParams),
  'GET /requests/v3': (s, _req, url) => getRequests(s, url.searchParams),
  'POST /transactions/index': async (s, req) => postTransactionsIndex(s, await readJsonBody(req)),
  'GET /currencies/token/price': (s, _req, url) => getTokenPrice(s, url.searchParams),
};

const ADMIN_ROUTES: Record<string, Handler> = {
  'GET /_sandbox/faults': (s) => getFaults(s),
  'POST /_sandbox/faults': async (s, req) => postFaults(s, await readJsonBody(req)),
  'POST /_sandbox/faults/reset': (s) => resetFaults(s),
  'GET /_sandbox/requests': (s) => getAllRequests(s),
  'GET /_sandbox/solana-quotes': (s) => getSolanaQuoteLog(s),
};

interface RouteTable {
  public: Record<string, Handler>;
  admin: Record<string, Handler>;
  knownPaths: Set<string | undefined>;
}

function routeTable(extra: SandboxApiRoutes): RouteTable {
  const pub = { ...PUBLIC_ROUTES, ...extra.public };
  const admin = { ...ADMIN_ROUTES, ...extra.admin };
  return { public: pub, admin, knownPaths: new Set([...Object.keys(pub), ...Object.keys(admin)].map((k) => k.split(' ')[1])) };
}

/** Extra headers of every response to `req`: the deprecation headers on a retiring path, else none. */
function responseHeaders(server: Server, req: IncomingMessage): Record<string, string | string[]> {
  const pathname = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  if (!DEPRECATED_SANDBOX_PATHS.has(pathname)) return {};
  const addr = server.address() as AddressInfo; // a request arrived, so the server listens on TCP
  return quoteV2DeprecationHeaders(`http://127.0.0.1:${addr.port}`);
}

async function dispatch(
  state: SandboxState,
  req: IncomingMessage,
  res: ServerResponse,
  routes: RouteTable,
  headers: Record<string, string | string[]>,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const key = `${req.method ?? 'GET'} ${url.pathname}`;
  const admin = routes.admin[key];
  const handler = admin ?? routes.public[key];
  if (!admin) {
    const burst = state.faults.takeHttpError();
    if (burst === 429) {
      sendJson(res, 429, { message: 'Rate limit exceeded; retry after 1 s' }, { ...headers, 'retry-after': '1' });
      return;
    }
    if (burst === 503) {
      sendJson(res, 503, { message: 'Service temporarily unavailable; retry after 1 s' }, { ...headers, 'retry-after': '1' });
      return;
    }
  }
  if (!handler) {
    if (routes.knownPaths.has(url.pathname)) throw new SandboxApiError(405, null, `${req.method} is not allowed on ${url.pathname}`);
    sendJson(res, 404, { message: `Not found: ${url.pathname}` }, headers);
    return;
  }
  const result = await handler(state, req, url);
  sendJson(res, result.status, result.body, headers);
}

/**
 * Creates the sandbox API over shared state. Unexpected errors answer 500 `{message, errorCode: "UNKNOWN_ERROR"}`
 * (docs/relay-contract.md "Errors": 500 `{message, errorCode}`) and are logged.
 *
 * @param extra routes registered besides the built-in ones (see {@link SandboxApiRoutes})
 */
export function createSandboxApi(state: SandboxState, extra: SandboxApiRoutes = {}): SandboxApi {
  const log = state.logger.child({ component: 'sandbox-api' });
  const routes = routeTable(extra);
  const server = createServer((req, res) => {
    const headers = responseHeaders(server, req);
    dispatch(state, req, res, routes, headers).catch((error: unknown) => {
      if (error instanceof SandboxApiError) {
        log.debug({ method: req.method, url: req.url, code: error.code }, error.message);
        if (!res.headersSent) sendJson(res, error.status, error.toBody(), headers);
        return;
      }
      log.error({ err: error, method: req.method, url: req.url }, 'sandbox API handler failed');
      if (!res.headersSent) sendJson(res, 500, new SandboxApiError(500, 'UNKNOWN_ERROR', 'Internal sandbox error').toBody(), headers);
      else res.destroy();
    });
  });
  return {
    server,
    listen(port = 0) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          const addr = server.address() as AddressInfo; // listening on TCP, so address() is an AddressInfo
          resolve(`http://127.0.0.1:${addr.port}`);
        });
      });
    },
    close() {
      return new Promise((resolve, reject) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
