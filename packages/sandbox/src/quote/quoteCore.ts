/**
 * The VM-independent part of a sandbox quote (docs/relay-contract.md "Quote response", "protocol.v2", "Fee components"):
 * prices the route, signs the order, and assembles the response around the origin VM's steps (EVM calls, Solana
 * instructions or a Bitcoin PSBT): the deprecated fee set, `feeSponsorship`, `details` with
 * `expandedPriceImpact`, and `protocol.v2`. No I/O: chain reads are passed in, `nowSec` is given.
 */
import type { Hex, LocalAccount } from 'viem';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { computeOrderId } from '@ballast/protocol/protocol/orderId.ts';
import { signOrderId } from '@ballast/protocol/protocol/orderSignature.ts';
import type { OrderData } from '../api/wire/orderData.ts';
import { extraFeesFor, type SandboxFaults } from '../faults.ts';
import type { QuotedOrder } from './buildQuote.ts';
import { lower, type SandboxChainTable } from './chainTable.ts';
import { currencyAmountJson, rateString } from './currencyJson.ts';
import { SandboxApiError } from './errors.ts';
import { deprecatedFeesJson, feeSponsorshipJson } from './feeSets.ts';
import { computeFees, minimumAfterSlippage, type FeeQuote, type SandboxPricing } from './fees.ts';
import { buildOrderData } from './orderData.ts';
import { formatPercent, priceOf, toUsdMicros, type UsdPrices } from './prices.ts';
import type { QuoteRoute } from './request.ts';
import type { SandboxQuoteResponse, StepJson } from './types.ts';
import { anySlugVmTypes, type SandboxNonEvmChain } from './vmChains.ts';

/** What the destination fill costs: an EVM gas price (wei), or a non-EVM chain's cost in its native base units. */
export type DestinationFillCost = { gasPriceWei: bigint } | { costNative: bigint };

/** Inputs shared by every origin VM. */
export interface QuoteCoreInput {
  route: QuoteRoute;
  chains: SandboxChainTable;
  vmChains: readonly SandboxNonEvmChain[];
  prices: UsdPrices;
  /** Solver account: its address goes into the order, its key signs the order id. */
  solver: LocalAccount;
  /** Current time, unix seconds. */
  nowSec: number;
  faults: SandboxFaults;
  pricing: SandboxPricing;
  destinationFill: DestinationFillCost;
  /** User's balance of the input currency on the origin; solver's balance of the output on the destination. */
  balances: { userIn: bigint; solverOut: bigint };
  /** Source of 32 random bytes (request id, salt). */
  random: () => Hex;
}

/** A priced and signed order, before its steps exist. Amounts in base units; deadline unix seconds. */
export interface PricedOrder {
  requestId: Hex;
  orderId: Hex;
  orderData: OrderData;
  orderSignature: Hex;
  fees: FeeQuote;
  expectedOut: bigint;
  minimumOut: bigint;
  deadlineSec: number;
}

/**
 * Prices a route and signs its order.
 *
 * @throws SandboxApiError 400 `AMOUNT_TOO_LOW` (see `computeFees`) and `INSUFFICIENT_LIQUIDITY` when the solver
 *   holds less than the expected output
 * @throws SandboxPriceError when a currency has no USD price
 */
export async function priceOrder(input: QuoteCoreInput): Promise<PricedOrder> {
  const { route, prices } = input;
  const { destination, currencyIn, currencyOut } = route;
  const fill = input.destinationFill;
  const fees = computeFees({
    amountIn: route.amountIn,
    currencyIn: { ...currencyIn, priceMicros: priceOf(prices, currencyIn.symbol) },
    currencyOut: { ...currencyOut, priceMicros: priceOf(prices, currencyOut.symbol) },
    destinationNative: { ...destination.native, priceMicros: priceOf(prices, destination.native.symbol) },
    destinationGasPriceWei: 'gasPriceWei' in fill ? fill.gasPriceWei : 0n,
    ...('costNative' in fill ? { destinationFillCostNative: fill.costNative } : {}),
    nativeOut: currencyOut.isNative,
    pricing: input.pricing,
    extra: extraFeesFor(input.faults, route.origin.slug),
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
  const bitcoinOrigin = 'vmType' in route.origin && route.origin.vmType === 'bvm';
  const deadlineSec = input.nowSec + (bitcoinOrigin ? input.faults.bitcoinQuoteDeadlineSec : input.faults.quoteDeadlineSec);
  const requestId = input.random();
  const orderData = buildOrderData(route, input.chains, {
    solver: lower(input.solver.address),
    salt: input.random(),
    minimumOut,
    expectedOut,
    deadlineSec,
  });
  const orderId = computeOrderId(orderData, anySlugVmTypes(input.chains, input.vmChains));
  const orderSignature = await signOrderId(input.solver, orderId);
  return { requestId, orderId, orderData, orderSignature, fees, expectedOut, minimumOut, deadlineSec };
}

/**
 * Assembles the response around the origin VM's steps, and the order the sandbox remembers.
 *
 * @param originGasNative the user's estimated origin network fee, origin native base units (deprecated `fees.gas`)
 * @throws SandboxPriceError when a currency has no USD price
 */
export function assembleQuote<D>(
  input: QuoteCoreInput,
  priced: PricedOrder,
  steps: StepJson<D>[],
  originGasNative: bigint,
): { response: SandboxQuoteResponse<D>; order: QuotedOrder } {
  const { route, prices } = input;
  const { origin, destination, currencyIn, currencyOut } = route;
  const { fees, expectedOut, minimumOut } = priced;
  const priceIn = priceOf(prices, currencyIn.symbol);
  const priceOut = priceOf(prices, currencyOut.symbol);
  const pricedIn = { chainId: origin.chainId, currency: currencyIn, priceMicros: priceIn };
  const inAmt = (amount: bigint) => currencyAmountJson(origin.chainId, currencyIn, amount, priceIn);
  const outAmt = currencyAmountJson(destination.chainId, currencyOut, expectedOut, priceOut, minimumOut);
  const slippageValue = expectedOut - minimumOut;
  const platformKey = input.faults.platformKey;
  const neg = (usdMicros: bigint) => formatUsdMicros(-usdMicros);
  // Like the live API: totalImpact is the value lost to fees; swapImpact adds back what a sponsor paid
  // (totalImpact.usd + expandedPriceImpact.sponsored.usd), which is nothing in the sandbox.
  const sponsoredUsdMicros = 0n;
  const totalImpactMicros = -fees.totalUsdMicros;
  const swapImpactMicros = totalImpactMicros + sponsoredUsdMicros;

  const response: SandboxQuoteResponse<D> = {
    requestId: priced.requestId,
    steps,
    fees: deprecatedFeesJson(
      fees,
      pricedIn,
      { chainId: origin.chainId, currency: origin.native, priceMicros: priceOf(prices, origin.native.symbol) },
      originGasNative,
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
        orderId: priced.orderId,
        hubType: 'onchain',
        orderData: priced.orderData,
        orderSignature: priced.orderSignature,
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
    requestId: priced.requestId,
    orderId: priced.orderId,
    orderData: priced.orderData,
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
    deadlineSec: priced.deadlineSec,
    slippageBps: route.slippageBps,
    fees,
    quotedAtSec: input.nowSec,
    referrer: route.referrer,
  };
  return { response, order };
}
