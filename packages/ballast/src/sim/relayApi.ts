/**
 * The in-memory Relay API surface shared by `ballast simulate` and the model tests: GET /intents/status/v3 and
 * GET /requests/v3 answers computed from what a service knows of each order (docs/relay-contract.md
 * "GET /intents/status/v3", "GET /requests/v3"), and a {@link RelayClient} over such a service for one process.
 * The service itself (quotes, solver) belongs to its world.
 */
import type { RelayClient } from '../relay/client.ts';
import { RelayApiError, RelayNetworkError } from '../relay/errors.ts';
import {
  IntentStatusSchema,
  RelayErrorBodySchema,
  RequestsResponseSchema,
  parseChainsLeniently,
  type ChainLiquidity,
  type IntentStatus,
  type QuoteResponse,
  type RelayErrorBody,
} from '@ballast/protocol/relay/schemas.ts';
import type { ProcessHandle } from './node.ts';

/** What the status endpoints read of a quoted order: its ids, parties and route. */
export interface StatusOrder {
  requestId: string;
  orderId: string;
  user: string;
  recipient: string;
  originChainId: number;
  destinationChainId: number;
}

/**
 * What the status and requests endpoints read of an order, whatever its origin VM: transaction ids are the
 * origin chain's (0x hex on EVM, a txid on Bitcoin).
 */
export interface StatusRecord<O extends StatusOrder = StatusOrder> {
  order: O;
  deposit: { txHash: string; blockNumber: bigint } | null;
  action: { kind: 'fill' | 'refund'; chainId: number; txHash: string; amount: bigint } | { kind: 'failure' } | { kind: 'never' } | null;
  settled: boolean;
  createdAtMs: number;
}

/** An in-memory Relay service, as its clients call it. */
export interface RelayService {
  quote(body: unknown): Promise<{ quote: QuoteResponse; raw: unknown }>;
  status(requestId: string): IntentStatus;
  requests(q: { id: string } | { user: string; status?: string }): ReturnType<typeof RequestsResponseSchema.parse>;
  index(body: { chainId: number; txHash: string }): { message: string };
  /** GET /chains/liquidity: the solver's balances on `chainId` (base units). Absent: the service reports none. */
  liquidity?(chainId: number): ChainLiquidity[];
}

/**
 * The error the real client raises when the API answers `httpStatus` with `body` (src/relay/http.ts `sendOnce`): a
 * {@link RelayApiError} (code `RELAY_HTTP_<status>`) keeping the body's `errorCode` and `message`, as
 * docs/relay-contract.md "Errors" gives them. A service throws it for a refusal (e.g. POST /quote/v2 400 `NO_QUOTES`).
 *
 * @param endpoint `METHOD /route`, e.g. `POST /quote/v2`
 * @param body `{message, errorCode?, ...}` (docs/relay-contract.md "Errors")
 */
export function relayApiAnswer(endpoint: string, httpStatus: number, body: RelayErrorBody): RelayApiError {
  const bodyText = JSON.stringify(body);
  return new RelayApiError({
    endpoint,
    httpStatus,
    body: RelayErrorBodySchema.parse(JSON.parse(bodyText)),
    bodyText,
    retryAfterMs: undefined,
  });
}

/** GET /intents/status/v3 of an order record (unknown: `waiting`) at `nowMs`. */
export function intentStatusOf(r: StatusRecord | undefined, nowMs: number): IntentStatus {
  const base = { updatedAt: nowMs, failReason: 'N/A', refundFailReason: 'N/A' };
  if (!r) return IntentStatusSchema.parse({ status: 'waiting', ...base });
  const inTxHashes = r.deposit ? [r.deposit.txHash] : [];
  const ids = { originChainId: r.order.originChainId, destinationChainId: r.order.destinationChainId, requestId: r.order.requestId };
  const a = r.action;
  let status = r.deposit ? 'pending' : 'waiting';
  let txHashes: string[] = [];
  if (a?.kind === 'failure') status = 'failure';
  if (a?.kind === 'fill' || a?.kind === 'refund') {
    txHashes = [a.txHash];
    status = r.settled ? (a.kind === 'fill' ? 'success' : 'refund') : a.kind === 'fill' ? 'submitted' : 'pending';
  }
  const failed = status === 'failure' || status === 'refund';
  return IntentStatusSchema.parse({ status, inTxHashes, txHashes, ...ids, ...base, ...(failed ? { failReason: 'UNKNOWN' } : {}) });
}

/** GET /requests/v3 over a service's orders: by id (request or order id) or by user, optionally by status. */
export function requestsOf(
  service: {
    readonly orders: readonly StatusRecord[];
    find(id: string): StatusRecord | undefined;
    status(requestId: string): IntentStatus;
  },
  q: { id: string } | { user: string; status?: string },
  nowMs: number,
) {
  const rows =
    'id' in q
      ? [service.find(q.id)].filter((r): r is StatusRecord => r !== undefined)
      : service.orders.filter((r) => r.order.user.toLowerCase() === q.user.toLowerCase());
  const requests = rows
    .map((r) => ({ r, s: service.status(r.order.requestId) }))
    .filter(({ s }) => !('status' in q) || q.status === undefined || s.status === q.status)
    .map(({ r, s }) => ({
      id: r.order.requestId,
      status: s.status,
      user: r.order.user,
      recipient: r.order.recipient,
      data: {
        inTxs: r.deposit
          ? [
              {
                txHash: r.deposit.txHash,
                chainId: r.order.originChainId,
                block: Number(r.deposit.blockNumber),
                type: 'onchain',
                status: 'success',
              },
            ]
          : [],
        outTxs: s.txHashes.map((txHash) => ({ txHash, type: 'onchain' })),
      },
      protocol: { orderId: r.order.orderId },
      createdAt: new Date(r.createdAtMs).toISOString(),
      updatedAt: new Date(nowMs).toISOString(),
    }));
  return RequestsResponseSchema.parse({ requests });
}

/**
 * One process's Relay client over the shared service: every call fails once the process is dead, and calls the
 * world marks fail with a network error (what the real client raises once its retries of a connection failure are
 * spent: {@link RelayNetworkError}, code `RELAY_NETWORK`). An API answer the service refuses with ({@link
 * relayApiAnswer}) reaches the caller as it is, like the real client's for a 4xx.
 */
export function inMemoryRelayClient(
  world: { nextRelayFails(endpoint: string): boolean; readonly relay: RelayService },
  proc: ProcessHandle,
  chainsDoc: unknown,
): RelayClient {
  const enter = (endpoint: string) => {
    if (!proc.alive) throw new Error(`process ${proc.id} has ended; ${endpoint} not sent`);
    if (world.nextRelayFails(endpoint)) throw new RelayNetworkError(endpoint, 'socket hang up (model fault)', false);
  };
  return {
    async getChains() {
      enter('GET /chains');
      const raw: unknown = JSON.parse(JSON.stringify(chainsDoc));
      const { chains, skipped } = parseChainsLeniently(raw);
      return { chains, raw, skipped };
    },
    async getChainLiquidity(chainId) {
      enter('GET /chains/liquidity');
      return world.relay.liquidity?.(chainId) ?? [];
    },
    async quote(req) {
      enter('POST /quote/v2');
      return world.relay.quote(req);
    },
    async getStatus(requestId) {
      enter('GET /intents/status/v3');
      return world.relay.status(requestId);
    },
    async getRequests(q) {
      enter('GET /requests/v3');
      return world.relay.requests(q);
    },
    async indexTransaction(body) {
      enter('POST /transactions/index');
      return world.relay.index(body);
    },
    // The in-memory service has no withdrawal surface; its configs leave withdrawals.auto off, so none is called.
    attestDeposit: () => Promise.reject(new Error('the in-memory service has no withdrawal endpoints')),
    prepareWithdrawal: () => Promise.reject(new Error('the in-memory service has no withdrawal endpoints')),
    executeWithdrawal: () => Promise.reject(new Error('the in-memory service has no withdrawal endpoints')),
    withdrawalStatus: () => Promise.reject(new Error('the in-memory service has no withdrawal endpoints')),
  };
}
