/**
 * Builds a full POST /quote/v2 response for the sandbox (spec "Quote response", "protocol.v2", "Fee
 * components"), shaped like a live response: approve + deposit steps, the deprecated fee set, `details`
 * with `expandedPriceImpact`, and `protocol.v2` with a real order id (EIP-712 struct hash) and the solver's
 * EIP-191 signature over it. No I/O: chain reads (fee data, balances) are passed in, `nowSec` is given.
 */
import { bytesToHex, type Address, type Hex, type LocalAccount } from 'viem';
import { formatUsdMicros } from '../../core/units.ts';
import { computeOrderId } from '../../protocol/orderId.ts';
import { signOrderId } from '../../protocol/orderSignature.ts';
import type { OrderData } from '../../relay/schemas.ts';
import type { SandboxFaults } from '../faults.ts';
import { lower, routerExtraData, sandboxSlugVmTypes, type SandboxChainTable, type SandboxCurrency } from './chainTable.ts';
import { currencyAmountJson, rateString } from './currencyJson.ts';
import { SandboxApiError } from './errors.ts';
import { deprecatedFeesJson, feeSponsorshipJson } from './feeSets.ts';
import { computeFees, DEFAULT_SANDBOX_PRICING, minimumAfterSlippage, type FeeQuote, type SandboxPricing } from './fees.ts';
import { formatPercent, priceOf, toUsdMicros, type UsdPrices } from './prices.ts';
import { resolveQuoteRoute, type QuoteRoute, type SandboxQuoteRequest } from './request.ts';
import { buildSteps, STEP_GAS, type FeeData } from './steps.ts';
import type { SandboxQuoteResponse } from './types.ts';

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
  feeData: { origin: FeeData; destination: FeeData };
  /** User's balance of the input currency on the origin; solver's balance of the output on the destination. */
  balances: { userIn: bigint; solverOut: bigint };
  /** Source of 32 random bytes (request id, salt); defaults to `crypto.getRandomValues`. */
  random?: () => Hex;
}

/** What the sandbox remembers about a quote so the solver can match and fill its deposit. */
export interface QuotedOrder {
  requestId: Hex;
  orderId: Hex;
  orderData: OrderData;
  user: Address;
  recipient: Address;
  refundTo: Address;
  originChainId: number;
  destinationChainId: number;
  currencyIn: SandboxCurrency;
  currencyOut: SandboxCurrency;
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

function neg(usdMicros: bigint): string {
  return formatUsdMicros(-usdMicros);
}

/**
 * The canonical order (spec "protocol.v2" orderData) shaped like real quotes (fixture
 * `quote-v2-base-usdc-to-arbitrum-usdt.json`): payment weight "1"; two refund options, both to the refund
 * recipient with `minimumAmount` "0" and the output deadline — one on the origin chain in the payment currency,
 * one on the destination chain in the output currency — each with `extraData` = that chain's v3 `erc20Router`
 * left-padded to 32 bytes; `output.extraData` likewise the destination's v3 router.
 */
function buildOrderData(route: QuoteRoute, solver: Address, salt: Hex, min: bigint, exp: bigint, deadline: number): OrderData {
  return {
    version: 'v1',
    solverChainId: route.origin.slug,
    solver,
    salt,
    inputs: [
      {
        payment: {
          chainId: route.origin.slug,
          currency: route.currencyIn.address,
          amount: route.amountIn.toString(),
          weight: '1',
        },
        refunds: [
          {
            chainId: route.origin.slug,
            recipient: route.refundTo,
            currency: route.currencyIn.address,
            minimumAmount: '0',
            deadline,
            extraData: routerExtraData(route.origin),
          },
          {
            chainId: route.destination.slug,
            recipient: route.refundTo,
            currency: route.currencyOut.address,
            minimumAmount: '0',
            deadline,
            extraData: routerExtraData(route.destination),
          },
        ],
      },
    ],
    output: {
      chainId: route.destination.slug,
      payments: [
        {
          recipient: route.recipient,
          currency: route.currencyOut.address,
          minimumAmount: min.toString(),
          expectedAmount: exp.toString(),
        },
      ],
      calls: [],
      deadline,
      extraData: routerExtraData(route.destination),
    },
    fees: [],
  };
}

/**
 * Builds a quote.
 *
 * @returns the response JSON (with `protocol.v2` when the request set `includeProtocolData`) and the order
 * @throws SandboxApiError 400 for a request the sandbox cannot quote (see `resolveQuoteRoute`,
 *   `computeFees`), and `INSUFFICIENT_LIQUIDITY` when the solver holds less than the expected output
 * @throws SandboxPriceError when a currency has no USD price
 */
export async function buildQuote(input: BuildQuoteInput): Promise<BuiltQuote> {
  const pricing = input.pricing ?? DEFAULT_SANDBOX_PRICING;
  const random = input.random ?? randomBytes32;
  const route = resolveQuoteRoute(input.request, input.chains, pricing.defaultSlippageBps);
  const { origin, destination, currencyIn, currencyOut } = route;
  const priceIn = priceOf(input.prices, currencyIn.symbol);
  const priceOut = priceOf(input.prices, currencyOut.symbol);
  const priceOriginNative = priceOf(input.prices, origin.native.symbol);
  const priceDestNative = priceOf(input.prices, destination.native.symbol);

  const fees = computeFees({
    amountIn: route.amountIn,
    currencyIn: { ...currencyIn, priceMicros: priceIn },
    currencyOut: { ...currencyOut, priceMicros: priceOut },
    destinationNative: { ...destination.native, priceMicros: priceDestNative },
    destinationGasPriceWei: input.feeData.destination.maxFeePerGas,
    nativeOut: currencyOut.isNative,
    pricing,
    extra: input.faults.extraFees,
    appBps: route.appBps,
  });
  const expectedOut = fees.expectedOut;
  if (input.balances.solverOut < expectedOut) {
    throw new SandboxApiError(
      400,
      'INSUFFICIENT_LIQUIDITY',
      `Solver liquidity of ${currencyOut.symbol} on ${destination.slug} is below the output ${expectedOut}; lower the amount`,
      `available=${input.balances.solverOut}`,
    );
  }
  const minimumOut = minimumAfterSlippage(expectedOut, route.slippageBps);
  const deadlineSec = input.nowSec + input.faults.quoteDeadlineSec;
  const requestId = random();
  const solverAddress = lower(input.solver.address);
  const orderData = buildOrderData(route, solverAddress, random(), minimumOut, expectedOut, deadlineSec);
  const orderId = computeOrderId(orderData, sandboxSlugVmTypes(input.chains));
  const orderSignature = await signOrderId(input.solver, orderId);

  const steps = buildSteps({
    requestId,
    chainId: origin.chainId,
    user: route.user,
    depository: origin.depository,
    currencyIn,
    amountIn: route.amountIn,
    orderId,
    outputSymbol: currencyOut.symbol,
    fee: input.feeData.origin,
  });

  const pricedIn = { chainId: origin.chainId, currency: currencyIn, priceMicros: priceIn };
  const inAmt = (amount: bigint) => currencyAmountJson(origin.chainId, currencyIn, amount, priceIn);
  const outAmt = currencyAmountJson(destination.chainId, currencyOut, expectedOut, priceOut, minimumOut);
  const originGas =
    (currencyIn.isNative ? STEP_GAS.depositNative : STEP_GAS.depositErc20 + STEP_GAS.approve) *
    input.feeData.origin.maxFeePerGas;
  const slippageValue = expectedOut - minimumOut;
  const platformKey = input.faults.platformKey;
  // Like the live API: totalImpact is the value lost to fees; swapImpact adds back what a sponsor paid
  // (totalImpact.usd + expandedPriceImpact.sponsored.usd), which is nothing in the sandbox.
  const sponsoredUsdMicros = 0n;
  const totalImpactMicros = -fees.totalUsdMicros;
  const swapImpactMicros = totalImpactMicros + sponsoredUsdMicros;

  const response: SandboxQuoteResponse = {
    requestId,
    steps,
    fees: deprecatedFeesJson(
      fees,
      pricedIn,
      { chainId: origin.chainId, currency: origin.native, priceMicros: priceOriginNative },
      originGas,
    ),
    feeSponsorship: feeSponsorshipJson(fees, pricedIn, platformKey),
    details: {
      operation: currencyIn.symbol === currencyOut.symbol ? 'bridge' : 'swap',
      sender: route.user,
      recipient: route.recipient,
      currencyIn: inAmt(route.amountIn),
      currencyOut: outAmt,
      refundCurrency: inAmt(route.amountIn),
      totalImpact: { usd: formatUsdMicros(totalImpactMicros), percent: formatPercent(totalImpactMicros, fees.inputUsdMicros) },
      swapImpact: { usd: formatUsdMicros(swapImpactMicros), percent: formatPercent(swapImpactMicros, fees.inputUsdMicros) },
      expandedPriceImpact: {
        swap: { usd: neg(fees.swap.usdMicros) },
        execution: { usd: neg(fees.execution.usdMicros) },
        [platformKey]: { usd: neg(fees.platform.usdMicros) },
        app: { usd: neg(fees.app.usdMicros) },
        sponsored: { usd: formatUsdMicros(sponsoredUsdMicros) },
      },
      rate: rateString(route.amountIn, currencyIn.decimals, expectedOut, currencyOut.decimals),
      slippageTolerance: {
        origin: { usd: '0', value: '0', percent: '0.00' },
        destination: {
          usd: formatUsdMicros(toUsdMicros(slippageValue, currencyOut.decimals, priceOut)),
          value: slippageValue.toString(),
          percent: formatPercent(BigInt(route.slippageBps), 10_000n),
        },
      },
      timeEstimate: Math.max(1, Math.ceil(input.faults.fillDelayMs / 1000) + 1),
      userBalance: input.balances.userIn.toString(),
      isFixedRate: false,
      // No swap on either side: the origin leg keeps the input, the destination leg pays the output.
      route: {
        origin: { inputCurrency: inAmt(route.amountIn), outputCurrency: inAmt(route.amountIn), router: 'relay' },
        destination: { inputCurrency: outAmt, outputCurrency: outAmt, router: 'relay' },
      },
    },
  };
  if (route.includeProtocolData) {
    response.protocol = {
      v2: {
        orderId,
        hubType: 'onchain',
        orderData,
        orderSignature,
        paymentDetails: {
          chainId: origin.slug,
          depository: origin.depository,
          currency: currencyIn.address,
          amount: route.amountIn.toString(),
        },
      },
    };
  }
  const order: QuotedOrder = {
    requestId,
    orderId,
    orderData,
    user: route.user,
    recipient: route.recipient,
    refundTo: route.refundTo,
    originChainId: origin.chainId,
    destinationChainId: destination.chainId,
    currencyIn,
    currencyOut,
    amountIn: route.amountIn,
    expectedOut,
    minimumOut,
    deadlineSec,
    slippageBps: route.slippageBps,
    fees,
    quotedAtSec: input.nowSec,
    referrer: route.referrer,
  };
  return { response, order };
}
