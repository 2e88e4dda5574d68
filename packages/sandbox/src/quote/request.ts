/**
 * POST /quote/v2 request handling for the sandbox: the accepted body (docs/relay-contract.md "POST /quote/v2" request table,
 * plus `appFees` and `slippageTolerance` as POST /price defines them) and its resolution against the
 * sandbox chains (EVM, Solana, Bitcoin) into a route the builders can price.
 */
import { SandboxQuoteRequestSchema, type SandboxQuoteRequest } from '../api/wire/quoteRequest.ts';
import type { SandboxChainInfo, SandboxChainTable, SandboxCurrency } from './chainTable.ts';
import { SandboxApiError } from './errors.ts';
import { checkVmAddress } from './vmAddress.ts';
import {
  evmCurrencyOf,
  findAnyChain,
  findAnyCurrency,
  isEvmChain,
  vmTypeOf,
  type SandboxAnyChain,
  type SandboxNonEvmChain,
  type SandboxVmCurrency,
} from './vmChains.ts';

/** The accepted body and its parsed form (defined in src/api/wire/quoteRequest.ts). */
export { SandboxQuoteRequestSchema, type SandboxQuoteRequest };

/**
 * Validates a request body.
 *
 * @throws SandboxApiError 400 `INVALID_SLIPPAGE_TOLERANCE` (errorData: the value) when `slippageTolerance` is
 *   not an integer string of 0..10000 bps; otherwise 400 `{message}` naming every bad field as `path: problem`
 */
export function parseQuoteRequest(body: unknown): SandboxQuoteRequest {
  const parsed = SandboxQuoteRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
  const slippage = parsed.error.issues.find((i) => i.path[0] === 'slippageTolerance');
  if (slippage !== undefined) {
    const given = (body as { slippageTolerance?: unknown }).slippageTolerance; // the issue proves body is an object with the key
    throw new SandboxApiError(
      400,
      'INVALID_SLIPPAGE_TOLERANCE',
      'slippageTolerance must be an integer string of basis points from 0 to 10000',
      JSON.stringify(given) ?? 'undefined',
    );
  }
  throw new SandboxApiError(400, null, `Invalid quote request: ${issues.join('; ')}`);
}

/** A request resolved against the chain tables: everything the quote builders price. Addresses in their chain's form. */
export interface QuoteRoute<O extends SandboxAnyChain = SandboxAnyChain, D extends SandboxAnyChain = SandboxAnyChain> {
  origin: O;
  destination: D;
  currencyIn: SandboxVmCurrency;
  currencyOut: SandboxVmCurrency;
  /** Depositing wallet on the origin chain (EVM lower-case; Solana and Bitcoin exactly as sent). */
  user: string;
  /** Receiving wallet on the destination chain. */
  recipient: string;
  /**
   * The request's `refundTo`: where refunds are paid on the origin chain; null when the request named none, and
   * then automatic refund is disabled (https://docs.relay.link/references/api/api_core_concepts/refunds).
   */
  refundTo: string | null;
  /** Input amount, origin-currency base units. */
  amountIn: bigint;
  /** Slippage tolerance in bps (request value, else the default). */
  slippageBps: number;
  /** Sum of `appFees[].fee`, bps. */
  appBps: number;
  includeProtocolData: boolean;
  referrer: string | undefined;
}

/** A route between two EVM chains of the chain table (what `buildQuote` prices). */
export type EvmQuoteRoute = QuoteRoute<SandboxChainInfo, SandboxChainInfo> & { currencyIn: SandboxCurrency; currencyOut: SandboxCurrency };

/**
 * Resolves a validated request against the sandbox chains: the EVM chain table and, when served, the
 * Solana and Bitcoin chains. Addresses are checked against the VM of their chain (`user`, `refundTo`: origin;
 * `recipient`: destination); `recipient` defaults to `user` only when both chains share a VM.
 *
 * @param defaultSlippageBps slippage used when the request has no `slippageTolerance`
 * @param vmChains the non-EVM chains the sandbox serves (default none)
 * @throws SandboxApiError 400 with `UNSUPPORTED_CHAIN`, `UNSUPPORTED_CURRENCY`, `INVALID_ADDRESS`,
 *   `EXTRA_TXS_NOT_SUPPORTED` (destination calls), `UNSUPPORTED_ROUTE` (deposit addresses, same currency on the
 *   same chain, a non-EVM chain to itself) or `AMOUNT_TOO_LOW` (amount 0); message-only 400 for what the
 *   sandbox does not quote although the live API may (EXACT_OUTPUT) and for app fees above 10000 bps
 */
export function resolveQuoteRoute(
  request: SandboxQuoteRequest,
  table: SandboxChainTable,
  defaultSlippageBps: number,
  vmChains: readonly SandboxNonEvmChain[] = [],
): QuoteRoute {
  if (request.tradeType !== 'EXACT_INPUT') {
    throw new SandboxApiError(400, null, 'The sandbox quotes EXACT_INPUT only; set tradeType to EXACT_INPUT');
  }
  const origin = findAnyChain(table, vmChains, request.originChainId);
  if (!origin) {
    throw new SandboxApiError(400, 'UNSUPPORTED_CHAIN', `originChainId ${request.originChainId} is not a sandbox chain; see GET /chains`);
  }
  const destination = findAnyChain(table, vmChains, request.destinationChainId);
  if (!destination) {
    throw new SandboxApiError(
      400,
      'UNSUPPORTED_CHAIN',
      `destinationChainId ${request.destinationChainId} is not a sandbox chain; see GET /chains`,
    );
  }
  const currencyIn = findAnyCurrency(origin, request.originCurrency);
  if (!currencyIn) {
    throw new SandboxApiError(
      400,
      'UNSUPPORTED_CURRENCY',
      `originCurrency ${request.originCurrency} is not supported on ${origin.slug}; see GET /chains`,
    );
  }
  const currencyOut = findAnyCurrency(destination, request.destinationCurrency);
  if (!currencyOut) {
    throw new SandboxApiError(
      400,
      'UNSUPPORTED_CURRENCY',
      `destinationCurrency ${request.destinationCurrency} is not supported on ${destination.slug}; see GET /chains`,
    );
  }
  if (request.txs && request.txs.length > 0) {
    throw new SandboxApiError(400, 'EXTRA_TXS_NOT_SUPPORTED', 'The sandbox does not execute destination calls; omit txs');
  }
  if (request.useDepositAddress) {
    throw new SandboxApiError(400, 'UNSUPPORTED_ROUTE', 'The sandbox does not issue deposit addresses; omit useDepositAddress');
  }
  if (origin.chainId === destination.chainId && currencyIn.address === currencyOut.address) {
    throw new SandboxApiError(400, 'UNSUPPORTED_ROUTE', 'Origin and destination are the same currency on the same chain');
  }
  const originVm = vmTypeOf(origin);
  const destinationVm = vmTypeOf(destination);
  if (originVm !== 'evm' && origin.chainId === destination.chainId) {
    throw new SandboxApiError(400, 'UNSUPPORTED_ROUTE', `The sandbox does not swap on ${origin.slug}; pick another destination chain`);
  }
  const user = checkVmAddress(request.user, originVm, 'user', { spender: true });
  let recipient: string;
  if (request.recipient !== undefined) recipient = checkVmAddress(request.recipient, destinationVm, 'recipient');
  else if (originVm === destinationVm) recipient = user;
  else {
    throw new SandboxApiError(
      400,
      'INVALID_ADDRESS',
      `recipient is required: the destination ${destination.slug} (${destinationVm}) does not use the user's ${originVm} address form`,
      'recipient',
    );
  }
  const refundTo = request.refundTo === undefined ? null : checkVmAddress(request.refundTo, originVm, 'refundTo');
  const amountIn = BigInt(request.amount); // schema checked ^[0-9]+$
  if (amountIn === 0n) {
    throw new SandboxApiError(400, 'AMOUNT_TOO_LOW', 'amount must be greater than 0', 'amount=0');
  }
  const appBps = (request.appFees ?? []).reduce((sum, f) => sum + Number(f.fee), 0);
  if (appBps > 10_000) {
    throw new SandboxApiError(400, null, `appFees add up to ${appBps} bps, more than 10000 bps`);
  }
  return {
    origin,
    destination,
    currencyIn,
    currencyOut,
    user,
    recipient,
    refundTo,
    amountIn,
    slippageBps: request.slippageTolerance === undefined ? defaultSlippageBps : Number(request.slippageTolerance),
    appBps,
    includeProtocolData: request.includeProtocolData === true,
    referrer: request.referrer,
  };
}

/**
 * Narrows a route to EVM on both sides (with EVM currency records), or returns null.
 */
export function asEvmRoute(route: QuoteRoute): EvmQuoteRoute | null {
  const { origin, destination } = route;
  if (!isEvmChain(origin) || !isEvmChain(destination)) return null;
  const currencyIn = evmCurrencyOf(origin, route.currencyIn);
  const currencyOut = evmCurrencyOf(destination, route.currencyOut);
  if (!currencyIn || !currencyOut) return null;
  return { ...route, origin, destination, currencyIn, currencyOut };
}
