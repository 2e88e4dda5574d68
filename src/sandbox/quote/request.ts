/**
 * POST /quote/v2 request handling for the sandbox: the accepted body (spec "POST /quote/v2" request table,
 * plus `appFees` and `slippageTolerance` as POST /price defines them) and its resolution against the
 * sandbox chain table into a route the builder can price.
 */
import { isAddress, type Address } from 'viem';
import { z } from 'zod';
import { QuoteRequestSchema } from '../../relay/schemas.ts';
import { findChain, findCurrency, lower, type SandboxChainInfo, type SandboxChainTable, type SandboxCurrency } from './chainTable.ts';
import { SandboxApiError } from './errors.ts';

const EvmAddress = z.string().regex(/^0x[a-fA-F0-9]{40}$/);

/**
 * Body accepted by the sandbox's POST /quote/v2: Ballast's own request schema widened to every field the
 * spec shows (recipient optional, both trade types, protocol data optional, txs, deposit addresses, app
 * fees, sponsorship). Unknown fields are dropped.
 */
export const SandboxQuoteRequestSchema = QuoteRequestSchema.extend({
  recipient: z.string().min(1).optional(),
  tradeType: z.enum(['EXACT_INPUT', 'EXACT_OUTPUT']),
  includeProtocolData: z.boolean().optional(),
  txs: z.array(z.object({ to: EvmAddress, value: z.string(), data: z.string().regex(/^0x[a-fA-F0-9]*$/) })).optional(),
  useDepositAddress: z.boolean().optional(),
  appFees: z.array(z.object({ recipient: EvmAddress, fee: z.string().regex(/^[0-9]+$/) })).optional(),
  subsidizeFees: z.boolean().optional(),
  sponsoredFeeComponents: z.array(z.string()).optional(),
  includedOriginSwapSources: z.array(z.string()).optional(),
  maxRouteLength: z.number().int().optional(),
  usePermit: z.boolean().optional(),
});
/** A validated sandbox quote request. */
export type SandboxQuoteRequest = z.infer<typeof SandboxQuoteRequestSchema>;

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

/** A request resolved against the chain table: everything the quote builder prices. */
export interface QuoteRoute {
  origin: SandboxChainInfo;
  destination: SandboxChainInfo;
  currencyIn: SandboxCurrency;
  currencyOut: SandboxCurrency;
  user: Address;
  recipient: Address;
  /** Where refunds go on the origin chain (`refundTo`, else `user`). */
  refundTo: Address;
  /** Input amount, origin-currency base units. */
  amountIn: bigint;
  /** Slippage tolerance in bps (request value, else the default). */
  slippageBps: number;
  /** Sum of `appFees[].fee`, bps. */
  appBps: number;
  includeProtocolData: boolean;
  referrer: string | undefined;
}

function evmAddress(value: string, field: string): Address {
  if (!isAddress(value, { strict: false })) {
    throw new SandboxApiError(400, 'INVALID_ADDRESS', `${field} must be a 0x EVM address on the sandbox chains`, field);
  }
  return lower(value);
}

/**
 * Resolves a validated request against the sandbox chain table.
 *
 * @param defaultSlippageBps slippage used when the request has no `slippageTolerance`
 * @throws SandboxApiError 400 with `UNSUPPORTED_CHAIN`, `UNSUPPORTED_CURRENCY`, `INVALID_ADDRESS`,
 *   `EXTRA_TXS_NOT_SUPPORTED` (destination calls), `UNSUPPORTED_ROUTE` (deposit addresses, same currency on the
 *   same chain) or `AMOUNT_TOO_LOW` (amount 0); message-only 400 for what the sandbox does not quote although
 *   the live API may (EXACT_OUTPUT) and for app fees above 10000 bps
 */
export function resolveQuoteRoute(
  request: SandboxQuoteRequest,
  table: SandboxChainTable,
  defaultSlippageBps: number,
): QuoteRoute {
  if (request.tradeType !== 'EXACT_INPUT') {
    throw new SandboxApiError(400, null, 'The sandbox quotes EXACT_INPUT only; set tradeType to EXACT_INPUT');
  }
  const origin = findChain(table, request.originChainId);
  if (!origin) {
    throw new SandboxApiError(400, 'UNSUPPORTED_CHAIN', `originChainId ${request.originChainId} is not a sandbox chain; see GET /chains`);
  }
  const destination = findChain(table, request.destinationChainId);
  if (!destination) {
    throw new SandboxApiError(
      400,
      'UNSUPPORTED_CHAIN',
      `destinationChainId ${request.destinationChainId} is not a sandbox chain; see GET /chains`,
    );
  }
  const currencyIn = findCurrency(origin, request.originCurrency);
  if (!currencyIn) {
    throw new SandboxApiError(
      400,
      'UNSUPPORTED_CURRENCY',
      `originCurrency ${request.originCurrency} is not supported on ${origin.slug}; see GET /chains`,
    );
  }
  const currencyOut = findCurrency(destination, request.destinationCurrency);
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
  const user = evmAddress(request.user, 'user');
  const recipient = request.recipient === undefined ? user : evmAddress(request.recipient, 'recipient');
  const refundTo = request.refundTo === undefined ? user : evmAddress(request.refundTo, 'refundTo');
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
