/**
 * Builds a full POST /quote/v2 response for an EVM → EVM route of the sandbox (docs/relay-contract.md "Quote response",
 * "protocol.v2", "Fee components"), shaped like a live response: approve + deposit steps, the deprecated fee
 * set, `details` with `expandedPriceImpact`, and `protocol.v2` with a real order id (EIP-712 struct hash) and
 * the solver's EIP-191 signature over it. Routes touching Solana or Bitcoin are built by `vmQuote.ts`; both
 * share `quoteCore.ts`. No I/O: chain reads (fee data, balances) are passed in, `nowSec` is given.
 */
import { bytesToHex, type Hex, type LocalAccount } from 'viem';
import type { OrderData } from '../api/wire/orderData.ts';
import type { SandboxFaults } from '../faults.ts';
import { lower, type SandboxChainTable } from './chainTable.ts';
import { SandboxApiError } from './errors.ts';
import { DEFAULT_SANDBOX_PRICING, type FeeQuote, type SandboxPricing } from './fees.ts';
import type { UsdPrices } from './prices.ts';
import { assembleQuote, priceOrder } from './quoteCore.ts';
import { asEvmRoute, resolveQuoteRoute, type SandboxQuoteRequest } from './request.ts';
import { STEP_GAS, type StepFees } from '@ballast/protocol/protocol/quoteParts.ts';
import { buildSteps } from './steps.ts';
import type { SandboxQuoteResponse } from './types.ts';
import type { SandboxVmCurrency } from './vmChains.ts';

/** Inputs of {@link buildQuote}. */
export interface BuildQuoteInput {
  request: SandboxQuoteRequest;
  chains: SandboxChainTable;
  prices: UsdPrices;
  /** Solver account: its address goes into the order, its key signs the order id. */
  solver: LocalAccount;
  /** Current time, unix seconds. */
  nowSec: number;
  faults: SandboxFaults;
  pricing?: SandboxPricing;
  /** EIP-1559 fee data of the origin (steps) and destination (fill gas estimate) chains. */
  feeData: { origin: StepFees; destination: StepFees };
  /** User's balance of the input currency on the origin; solver's balance of the output on the destination. */
  balances: { userIn: bigint; solverOut: bigint };
  /** Source of 32 random bytes (request id, salt); defaults to `crypto.getRandomValues`. */
  random?: () => Hex;
}

/**
 * What the sandbox remembers about a quote so the solver can match and fill its deposit. Addresses and
 * currencies in their chain's form (EVM lower-case 0x hex; Solana base58; Bitcoin bech32).
 */
export interface QuotedOrder {
  requestId: Hex;
  orderId: Hex;
  orderData: OrderData;
  user: string;
  recipient: string;
  /** The request's `refundTo` (origin chain); null: none was given, so nothing is refunded automatically. */
  refundTo: string | null;
  originChainId: number;
  destinationChainId: number;
  currencyIn: SandboxVmCurrency;
  currencyOut: SandboxVmCurrency;
  /** Input, origin base units. */
  amountIn: bigint;
  /** Expected and guaranteed output, destination base units. */
  expectedOut: bigint;
  minimumOut: bigint;
  /** `orderData.output.deadline`, unix seconds. */
  deadlineSec: number;
  /** Slippage tolerance the quote was priced with, bps. */
  slippageBps: number;
  fees: FeeQuote;
  quotedAtSec: number;
  referrer: string | undefined;
}

/** Result of {@link buildQuote}: the JSON to serve and the order to remember. */
export interface BuiltQuote {
  response: SandboxQuoteResponse;
  order: QuotedOrder;
}

/** 32 cryptographically random bytes as 0x hex. */
export function randomBytes32(): Hex {
  return bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * Builds a quote between two EVM chains of the table.
 *
 * @returns the response JSON (with `protocol.v2` when the request set `includeProtocolData`) and the order
 * @throws SandboxApiError 400 for a request the sandbox cannot quote (see `resolveQuoteRoute`,
 *   `computeFees`), and `INSUFFICIENT_LIQUIDITY` when the solver holds less than the expected output
 * @throws SandboxPriceError when a currency has no USD price
 */
export async function buildQuote(input: BuildQuoteInput): Promise<BuiltQuote> {
  const pricing = input.pricing ?? DEFAULT_SANDBOX_PRICING;
  const route = asEvmRoute(resolveQuoteRoute(input.request, input.chains, pricing.defaultSlippageBps));
  if (!route) throw new SandboxApiError(400, 'UNSUPPORTED_ROUTE', 'buildQuote prices EVM → EVM routes only');
  const core = {
    route,
    chains: input.chains,
    vmChains: [],
    prices: input.prices,
    solver: input.solver,
    nowSec: input.nowSec,
    faults: input.faults,
    pricing,
    destinationFill: { gasPriceWei: input.feeData.destination.maxFeePerGas },
    balances: input.balances,
    random: input.random ?? randomBytes32,
  };
  const priced = await priceOrder(core);
  const steps = buildSteps({
    requestId: priced.requestId,
    chainId: route.origin.chainId,
    user: lower(route.user), // resolveQuoteRoute checked an EVM address for an EVM origin; lower() types it
    depository: route.origin.depository,
    currencyIn: route.currencyIn,
    amountIn: route.amountIn,
    orderId: priced.orderId,
    outputSymbol: route.currencyOut.symbol,
    fee: input.feeData.origin,
  });
  const originGas =
    (route.currencyIn.isNative ? STEP_GAS.depositNative : STEP_GAS.depositErc20 + STEP_GAS.approve) * input.feeData.origin.maxFeePerGas;
  return assembleQuote(core, priced, steps, originGas);
}
