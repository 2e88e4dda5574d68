/**
 * POST /quote/v2 of the sandbox (docs/relay-contract.md "POST /quote/v2", "Authentication" 1): checks the API key when one
 * is required, validates the body, reads fee data and balances from the chains, builds and records the quote
 * (EVM → EVM here; routes touching Solana or Bitcoin in `vmQuoteHandler.ts`), then applies a tamper fault if
 * one is armed (after signing, so local verification must catch it).
 */
import { timingSafeEqual } from 'node:crypto';
import { TAMPER_KINDS, type AnyTamperKind, type TamperKind } from '../faults.ts';
import { buildQuote } from '../quote/buildQuote.ts';
import { lower } from '../quote/chainTable.ts';
import { SandboxApiError } from '../quote/errors.ts';
import { asEvmRoute, parseQuoteRequest, resolveQuoteRoute } from '../quote/request.ts';
import { tamperQuote } from '../quote/tamper.ts';
import type { AnyStepDataJson, SandboxQuoteResponse } from '../quote/types.ts';
import type { SandboxState } from './state.ts';
import { buildVmQuoteFor, tamperBuiltVmQuote } from './vmQuoteHandler.ts';

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks `x-api-key` against the configured key.
 *
 * @throws SandboxApiError 401 `UNAUTHORIZED` when a key is required and the header is missing or wrong
 */
export function checkApiKey(state: SandboxState, header: string | string[] | undefined): void {
  if (state.apiKey === undefined) return;
  const given = Array.isArray(header) ? header[0] : header;
  if (given === undefined || !sameKey(given, state.apiKey)) {
    throw new SandboxApiError(401, 'UNAUTHORIZED', 'Invalid or missing API key; send it in the x-api-key header');
  }
}

/**
 * The `blockedWallets` fault: quote-time address screening (https://docs.relay.link/security/transaction-screening
 * screens the depositor, the recipient and `refundTo`). EVM addresses compare case-insensitively.
 *
 * @throws SandboxApiError 400 `BLOCKED_WALLET_ADDRESS` when one of them is listed
 */
function checkScreening(
  state: SandboxState,
  request: { user: string; recipient?: string | undefined; refundTo?: string | undefined },
): void {
  const listed = state.faults.get().blockedWallets ?? [];
  if (listed.length === 0) return;
  const canon = (a: string) => (/^0x[0-9a-fA-F]{40}$/.test(a) ? a.toLowerCase() : a);
  const blocked = new Set(listed.map(canon));
  const hit = [request.user, request.recipient, request.refundTo].find((a) => a !== undefined && blocked.has(canon(a)));
  if (hit !== undefined) {
    state.logger.warn({ address: hit }, 'quote refused: address on the sandbox screening blocklist (fault)');
    throw new SandboxApiError(400, 'BLOCKED_WALLET_ADDRESS', `Address ${hit} is blocked by screening`);
  }
}

function kindIsEvm(kind: AnyTamperKind): kind is TamperKind {
  return (TAMPER_KINDS as readonly string[]).includes(kind);
}

/**
 * Handles one quote request body.
 *
 * @returns the quote JSON to serve (possibly tampered per the faults)
 * @throws SandboxApiError 400 for requests the sandbox cannot quote (codes in `resolveQuoteRoute`,
 *   `computeFees`, `buildQuote`)
 */
export async function handleQuote(state: SandboxState, body: unknown): Promise<SandboxQuoteResponse<AnyStepDataJson>> {
  const request = parseQuoteRequest(body);
  checkScreening(state, request);
  const anyRoute = resolveQuoteRoute(request, state.chains, state.pricing.defaultSlippageBps, state.vm?.chains ?? []);
  const route = asEvmRoute(anyRoute);
  if (!route) {
    const built = await buildVmQuoteFor(state, request, anyRoute);
    state.requests.addQuote(built.order, state.nowMs());
    const log = state.logger.child({ requestId: built.order.requestId, orderId: built.order.orderId });
    log.info(
      {
        originChainId: built.order.originChainId,
        destinationChainId: built.order.destinationChainId,
        amount: built.order.amountIn.toString(),
      },
      'quote served',
    );
    return tamperBuiltVmQuote(state, built, log);
  }
  const [origin, destination, userIn, solverOut] = await Promise.all([
    state.io.feeData(route.origin.chainId),
    state.io.feeData(route.destination.chainId),
    state.io.balanceOf(route.origin.chainId, route.currencyIn, lower(route.user)),
    state.io.balanceOf(route.destination.chainId, route.currencyOut, state.solver.address),
  ]);
  const nowMs = state.nowMs();
  const nowSec = Math.floor(nowMs / 1000);
  const built = await buildQuote({
    request,
    chains: state.chains,
    prices: state.prices,
    solver: state.solver,
    nowSec,
    faults: state.faults.get(),
    pricing: state.pricing,
    feeData: { origin, destination },
    balances: { userIn, solverOut },
  });
  state.requests.addQuote(built.order, nowMs);
  const log = state.logger.child({ requestId: built.order.requestId, orderId: built.order.orderId });
  log.info(
    {
      originChainId: built.order.originChainId,
      destinationChainId: built.order.destinationChainId,
      amount: built.order.amountIn.toString(),
    },
    'quote served',
  );
  const kind = state.faults.nextTamper();
  if (kind === null) return built.response;
  const tampered = kindIsEvm(kind)
    ? await tamperQuote(built.response, kind, { chains: state.chains, solver: state.solver, nowSec })
    : { response: built.response, applied: false, reason: `${kind} tampers Solana or Bitcoin deposits` };
  if (!tampered.applied) {
    log.warn({ tamper: kind, reason: tampered.reason }, 'tamper fault not applicable to this quote; served untampered');
    return built.response;
  }
  state.faults.tamperApplied();
  log.warn({ tamper: kind }, 'served a tampered quote (fault)');
  return tampered.response;
}
