/**
 * Route handlers of the sandbox API other than POST /quote/v2: GET /chains, GET /intents/status/v3,
 * GET /requests/v3, POST /transactions/index (docs/relay-contract.md "Endpoints"), and the admin routes under /_sandbox/.
 * Each returns `{status, body}`; errors are thrown as SandboxApiError.
 */
import { base58 } from '@scure/base';
import type { Hex } from 'viem';
import { z } from 'zod';
import { SANDBOX_REQUEST_STATUSES, isSandboxRequestStatus } from './wire/requestStatus.ts';
import { SandboxFaultsPatchSchema } from '../faults.ts';
import { SandboxApiError } from '../quote/errors.ts';
import { buildChainsDocument } from './chainsDocument.ts';
import { requestJson, statusJson } from './records.ts';
import type { SandboxState } from './state.ts';

/** A handler's answer. */
export interface RouteResult {
  status: number;
  body: unknown;
}

const ok = (body: unknown): RouteResult => ({ status: 200, body });

/** GET /chains: the EVM chains, then Solana and Bitcoin when served. */
export function getChains(state: SandboxState): RouteResult {
  return ok(buildChainsDocument(state.chains, state.solver.address, state.vm?.chains ?? []));
}

/**
 * GET /intents/status/v3?requestId= (also served on the older /intents/status path).
 *
 * @throws SandboxApiError 400 without `requestId`, 404 for an unknown request id
 */
export function getStatus(state: SandboxState, query: URLSearchParams): RouteResult {
  const requestId = query.get('requestId');
  if (!requestId) throw new SandboxApiError(400, null, 'requestId query parameter is required');
  const record = state.requests.byRequestId(requestId);
  if (!record) throw new SandboxApiError(404, null, `no request ${requestId}; request ids come from POST /quote/v2`);
  const body = statusJson(record);
  const unknown = state.faults.get().unknownStatus;
  const waitingForFill = record.status === 'pending' || record.status === 'delayed';
  return ok(unknown && waitingForFill ? { ...body, status: unknown } : body);
}

/**
 * GET /requests/v3?id= | ?user=[&status=][&limit=] → `{requests: [...]}`, newest first.
 *
 * @throws SandboxApiError 400 without `id` or `user`, or with an unknown `status`
 */
export function getRequests(state: SandboxState, query: URLSearchParams): RouteResult {
  const id = query.get('id');
  const user = query.get('user');
  const status = query.get('status');
  if (status !== null && !isSandboxRequestStatus(status)) {
    throw new SandboxApiError(400, null, `status must be one of ${SANDBOX_REQUEST_STATUSES.join(', ')}`);
  }
  let records;
  if (id) {
    const r = state.requests.byRequestId(id);
    records = r ? [r] : [];
  } else if (user) {
    records = state.requests.byUser(user);
  } else {
    throw new SandboxApiError(400, null, 'give an id or a user query parameter');
  }
  if (status !== null) records = records.filter((r) => (r.status === 'delayed' ? 'pending' : r.status) === status); // v3 shows delayed as pending
  const limit = Number(query.get('limit') ?? '20');
  const capped = records.slice(0, Number.isInteger(limit) && limit > 0 ? limit : 20);
  return ok({ requests: capped.map((r) => requestJson(r, state)) });
}

/**
 * Body of POST /transactions/index. `chainId` is a number in docs/relay-contract.md "POST /transactions/index" and a
 * decimal string in the live API's published OpenAPI, which is what the official SDK sends (`"8453"`); both
 * are accepted, anything else is refused naming the field. Other fields (`requestId`, `referrer`) are ignored.
 */
const IndexBodySchema = z.object({
  chainId: z.union(
    [
      z.number().int().positive(),
      z
        .string()
        .regex(/^[1-9][0-9]*$/)
        .transform(Number),
    ],
    {
      error: 'expected a chain id: a positive integer number (or its decimal string)',
    },
  ),
  txHash: z.string().min(1, 'expected a transaction hash'),
});

const EVM_TX_HASH_RE = /^0x[0-9a-fA-F]{64}$/;
const BITCOIN_TXID_RE = /^[0-9a-fA-F]{64}$/;

/** True when `value` is base58 of a 64-byte Solana signature. */
function isSolanaSignature(value: string): boolean {
  try {
    return base58.decode(value).length === 64;
  } catch {
    return false;
  }
}

/**
 * POST /transactions/index `{chainId, txHash}`: re-scans the transaction for depository deposits. `txHash` is
 * an EVM transaction hash (0x + 64 hex digits), a Solana signature (base58, 64 bytes) or a Bitcoin txid (64 hex
 * digits), by the chain's VM.
 *
 * @returns 200 `{message, deposits}`; 404 `{message}` when the chain has no such transaction (Bitcoin: not yet
 *   in a block, docs/relay-contract.md "POST /transactions/index")
 * @throws SandboxApiError 400 `{message}` naming each bad field or an unknown chain, 503 `{message}` when the
 *   solver is not running
 */
export async function postTransactionsIndex(state: SandboxState, body: unknown): Promise<RouteResult> {
  const parsed = IndexBodySchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    throw new SandboxApiError(400, null, `Invalid body: ${issues.join('; ')}; send {chainId: number, txHash: string}`);
  }
  const { chainId, txHash } = parsed.data;
  const vmChain = state.vm?.chains.find((c) => c.chainId === chainId);
  if (!vmChain && !state.chains.some((c) => c.chainId === chainId)) {
    throw new SandboxApiError(400, null, `chainId ${chainId} is not a sandbox chain; see GET /chains`);
  }
  const badHash = (expected: string) =>
    new SandboxApiError(400, null, `Invalid body: txHash: expected ${expected}; send {chainId: number, txHash: string}`);
  if (!vmChain && !EVM_TX_HASH_RE.test(txHash)) throw badHash('a 0x-prefixed 32-byte hex transaction hash');
  if (vmChain?.vmType === 'svm' && !isSolanaSignature(txHash)) throw badHash('a Solana transaction signature (base58, 64 bytes)');
  if (vmChain?.vmType === 'bvm' && !BITCOIN_TXID_RE.test(txHash)) throw badHash('a Bitcoin txid (64 hex digits)');
  const indexer = state.indexer;
  if (!indexer) throw new SandboxApiError(503, null, 'the solver is not running; retry shortly');
  let deposits: number | null;
  if (!vmChain)
    deposits = await indexer.indexTransaction(chainId, txHash as Hex); // EVM_TX_HASH_RE checked the shape
  else if (indexer.indexVmTransaction)
    deposits = await indexer.indexVmTransaction(chainId, vmChain.vmType === 'bvm' ? txHash.toLowerCase() : txHash);
  else throw new SandboxApiError(503, null, 'the solver does not watch this chain yet; retry shortly');
  if (deposits === null) {
    const why = vmChain?.vmType === 'bvm' ? 'is not in a block on' : 'not found on';
    return { status: 404, body: { message: `Transaction ${txHash} ${why} chain ${chainId}` } };
  }
  return ok({ message: 'Transaction indexed', deposits });
}

/** GET /_sandbox/faults. */
export function getFaults(state: SandboxState): RouteResult {
  return ok(state.faults.get());
}

/**
 * POST /_sandbox/faults with a partial faults object (see `SandboxFaultsPatchSchema`).
 *
 * @throws SandboxApiError 400 naming the bad knob
 */
export function postFaults(state: SandboxState, body: unknown): RouteResult {
  const parsed = SandboxFaultsPatchSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    throw new SandboxApiError(400, null, `Invalid faults: ${issues.join('; ')}`);
  }
  state.logger.warn({ faults: parsed.data }, 'sandbox faults changed');
  return ok(state.faults.set(parsed.data));
}

/** POST /_sandbox/faults/reset. */
export function resetFaults(state: SandboxState): RouteResult {
  return ok(state.faults.reset());
}

/** GET /_sandbox/solana-quotes: the routing fields of every Solana-origin quote request, in arrival order. */
export function getSolanaQuoteLog(state: SandboxState): RouteResult {
  return ok({ requests: state.vm?.solanaQuoteLog ?? [] });
}

/** GET /_sandbox/requests: every request record, newest first, with its status record. */
export function getAllRequests(state: SandboxState): RouteResult {
  return ok({ requests: state.requests.all().map((r) => ({ ...requestJson(r, state), statusRecord: statusJson(r) })) });
}
