/**
 * Quotes of the simulated Relay service (docs/relay-contract.md "Quote response", "protocol.v2", "Fee components"):
 * an EVM → EVM bridge of the simulated token, shaped like a live response (approve + deposit steps, the
 * deprecated fee set, `feeSponsorship`, `details` with `expandedPriceImpact`, and `protocol.v2` with a real order
 * id and the solver's signature over it), priced with the route's fee model. The order and the steps are the
 * sandbox's own (`@ballast/protocol` protocol/quoteParts.ts); the rest is priced here. No I/O: time and ids are
 * given.
 */
import { formatUnits, type Address, type Hex } from 'viem';
import { formatUsdMicros, parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { computeOrderId } from '@ballast/protocol/protocol/orderId.ts';
import { signOrderId } from '@ballast/protocol/protocol/orderSignature.ts';
import { bridgeOrderData, evmDepositSteps, STEP_GAS } from '@ballast/protocol/protocol/quoteParts.ts';
import type { QuoteRequest } from '@ballast/protocol/relay/schemas.ts';
import { routerExtraData, type SimChain, type SimIdentity, type SimToken } from './identity.ts';
import type { NodeFees } from './node.ts';

/** A route's fee model: a proportional fee in bps of the input and a flat fee in USD (decimal string). */
export interface RouteFees {
  bps: number;
  flatUsd: string;
}

/**
 * A window in which a route quotes other fees (a fee spike): inside `[fromMs, toMs)` (ms after the start) its quotes
 * carry `fees` instead of the route's normal ones.
 */
export interface FeeSpike {
  fromMs: number;
  toMs: number;
  fees: RouteFees;
}

/** The fees a route quotes `elapsedMs` after the start: the first spike whose window holds that time, else `normal`. */
export function routeFeesAt(normal: RouteFees, spikes: readonly FeeSpike[] | undefined, elapsedMs: number): RouteFees {
  return (spikes ?? []).find((w) => elapsedMs >= w.fromMs && elapsedMs < w.toMs)?.fees ?? normal;
}

/**
 * The fee a route takes from `amountIn` (base units of the token): `flat` (the USD fee in token units, rounded up)
 * plus `proportional` (`bps` of the input, rounded down); `total` their sum.
 */
export function simFeeOf(token: SimToken, fees: RouteFees, amountIn: bigint): { flat: bigint; proportional: bigint; total: bigint } {
  const flat = unitsOfUsd(token, parseUsdMicros(fees.flatUsd));
  const proportional = (amountIn * BigInt(fees.bps)) / 10_000n;
  return { flat, proportional, total: flat + proportional };
}

/** A quoted order, as the service remembers it. Amounts in base units; deadline unix seconds. */
export interface SimOrder {
  requestId: Hex;
  orderId: Hex;
  user: string;
  recipient: string;
  refundTo: string | null;
  originChainId: number;
  destinationChainId: number;
  amountIn: bigint;
  expectedOut: bigint;
  minimumOut: bigint;
  /** Fees the quote charged, base units of the token. */
  feeAmount: bigint;
  deadlineSec: number;
}

/** Seconds from quote time to the order's deadline. */
const QUOTE_DEADLINE_SEC = 600;

/** What {@link buildSimQuote} needs. */
export interface SimQuoteInput {
  request: QuoteRequest;
  origin: SimChain;
  destination: SimChain;
  token: SimToken;
  id: SimIdentity;
  fees: RouteFees;
  gas: NodeFees;
  nowSec: number;
  /** The user's balance of the token on the origin, base units. */
  userBalance: bigint;
  /** Two fresh 32-byte values: the request id and the order's salt. */
  requestId: Hex;
  salt: Hex;
}

/** Micro-USD value of `amount` base units of the token. */
function usdMicros(token: SimToken, amount: bigint): bigint {
  return (amount * parseUsdMicros(token.priceUsd)) / 10n ** BigInt(token.decimals);
}

/** Base units of the token worth `micros` micro-USD, rounded up. */
function unitsOfUsd(token: SimToken, micros: bigint): bigint {
  const price = parseUsdMicros(token.priceUsd);
  if (price === 0n) return 0n;
  const scaled = micros * 10n ** BigInt(token.decimals);
  return (scaled + price - 1n) / price;
}

/** Percent of `num / den` with two decimals, rounded half up. */
function percent(num: bigint, den: bigint): string {
  if (den <= 0n) return '0.00';
  const neg = num < 0n;
  const hundredths = ((neg ? -num : num) * 20_000n + den) / (2n * den);
  return `${neg && hundredths > 0n ? '-' : ''}${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

/**
 * Builds the quote of a request between two simulated chains.
 *
 * @returns the response JSON and the order the service remembers
 * @throws Error when the fees would take the whole input
 */
export async function buildSimQuote(input: SimQuoteInput): Promise<{ response: Record<string, unknown>; order: SimOrder }> {
  const { request, origin, destination, token, id } = input;
  const amountIn = BigInt(request.amount);
  const { flat, proportional, total: feeAmount } = simFeeOf(token, input.fees, amountIn);
  if (feeAmount >= amountIn) throw new Error(`AMOUNT_TOO_LOW: fees ${feeAmount} take the whole input ${amountIn}`);
  const expectedOut = amountIn - feeAmount;
  const slippageBps = BigInt(request.slippageTolerance ?? '50');
  const minimumOut = expectedOut - (expectedOut * slippageBps) / 10_000n;
  const deadlineSec = input.nowSec + QUOTE_DEADLINE_SEC;
  const refundTo = request.refundTo ?? request.user;
  const extra = routerExtraData(id);
  const orderData = bridgeOrderData({
    solverChainId: origin.slug,
    solver: id.solver.address.toLowerCase(),
    salt: input.salt,
    origin: { slug: origin.slug, currency: token.address, extraData: extra },
    destination: { slug: destination.slug, currency: token.address, extraData: extra },
    amountIn,
    refundTo: { origin: refundTo, destination: refundTo },
    recipient: request.recipient,
    expectedOut,
    minimumOut,
    deadlineSec,
  });
  const orderId = computeOrderId(orderData, { [origin.slug]: 'ethereum-vm', [destination.slug]: 'ethereum-vm' });
  const orderSignature = await signOrderId(id.solver, orderId);
  const user = request.user.toLowerCase() as Address; // the cycle sends its own EVM address
  const steps = evmDepositSteps({
    requestId: input.requestId,
    chainId: origin.chainId,
    user,
    depository: id.depository,
    currencyIn: { address: token.address, symbol: token.symbol, isNative: false },
    amountIn,
    orderId,
    outputSymbol: token.symbol,
    fee: input.gas,
  });
  const currency = (chainId: number) => ({
    chainId,
    address: token.address,
    symbol: token.symbol,
    name: token.symbol,
    decimals: token.decimals,
    metadata: { logoURI: '', verified: true, isNative: false },
  });
  const amt = (chainId: number, amount: bigint, minimum = amount) => ({
    currency: currency(chainId),
    amount: amount.toString(),
    amountFormatted: formatUnits(amount, token.decimals),
    amountUsd: formatUsdMicros(usdMicros(token, amount)),
    minimumAmount: minimum.toString(),
  });
  const plain = (amount: bigint) => {
    const { currency: c, ...rest } = amt(origin.chainId, amount);
    const { metadata: _metadata, ...plainCurrency } = c;
    return { ...rest, currency: plainCurrency };
  };
  const inAmt = (amount: bigint) => amt(origin.chainId, amount);
  const outAmt = amt(destination.chainId, expectedOut, minimumOut);
  const inputUsd = usdMicros(token, amountIn);
  const flatUsd = usdMicros(token, flat);
  const propUsd = usdMicros(token, proportional);
  const totalUsd = usdMicros(token, feeAmount);
  const originGas = (STEP_GAS.approve + STEP_GAS.depositErc20) * input.gas.maxFeePerGas;
  const nativeCurrency = {
    chainId: origin.chainId,
    address: '0x0000000000000000000000000000000000000000',
    symbol: 'ETH',
    name: 'Ether',
    decimals: 18,
    metadata: { logoURI: '', verified: true, isNative: true },
  };
  const component = (amount: bigint) => ({ selected: false, total: plain(amount), sponsored: plain(0n), userPays: plain(amount) });
  const slippageValue = expectedOut - minimumOut;
  const response: Record<string, unknown> = {
    requestId: input.requestId,
    steps,
    fees: {
      gas: {
        currency: nativeCurrency,
        amount: originGas.toString(),
        amountFormatted: formatUnits(originGas, 18),
        amountUsd: '0',
        minimumAmount: originGas.toString(),
      },
      relayer: inAmt(feeAmount),
      relayerGas: inAmt(flat),
      relayerService: inAmt(proportional),
      app: inAmt(0n),
      subsidized: inAmt(0n),
    },
    feeSponsorship: {
      quoted: {
        selectedComponents: [],
        capHit: false,
        components: { execution: component(flat), swap: component(0n), relay: component(proportional), app: component(0n) },
        sponsoredTotal: plain(0n),
        userPaysTotal: plain(feeAmount),
      },
    },
    details: {
      operation: 'bridge',
      sender: request.user,
      recipient: request.recipient,
      currencyIn: inAmt(amountIn),
      currencyOut: outAmt,
      refundCurrency: inAmt(amountIn),
      totalImpact: { usd: formatUsdMicros(-totalUsd), percent: percent(-totalUsd, inputUsd) },
      swapImpact: { usd: formatUsdMicros(-totalUsd), percent: percent(-totalUsd, inputUsd) },
      expandedPriceImpact: {
        swap: { usd: formatUsdMicros(0n) },
        execution: { usd: formatUsdMicros(-flatUsd) },
        relay: { usd: formatUsdMicros(-propUsd) },
        app: { usd: formatUsdMicros(0n) },
        sponsored: { usd: formatUsdMicros(0n) },
      },
      rate: formatUnits((expectedOut * 10n ** 18n) / amountIn, 18),
      slippageTolerance: {
        origin: { usd: '0', value: '0', percent: '0.00' },
        destination: {
          usd: formatUsdMicros(usdMicros(token, slippageValue)),
          value: slippageValue.toString(),
          percent: percent(slippageBps, 10_000n),
        },
      },
      timeEstimate: 1,
      userBalance: input.userBalance.toString(),
      isFixedRate: false,
      route: {
        origin: { inputCurrency: inAmt(amountIn), outputCurrency: inAmt(amountIn), router: 'relay' },
        destination: { inputCurrency: outAmt, outputCurrency: outAmt, router: 'relay' },
      },
    },
    protocol: {
      v2: {
        orderId,
        hubType: 'onchain',
        orderData,
        orderSignature,
        paymentDetails: { chainId: origin.slug, depository: id.depository, currency: token.address, amount: amountIn.toString() },
      },
    },
  };
  const order: SimOrder = {
    requestId: input.requestId,
    orderId,
    user: request.user,
    recipient: request.recipient,
    refundTo,
    originChainId: origin.chainId,
    destinationChainId: destination.chainId,
    amountIn,
    expectedOut,
    minimumOut,
    feeAmount,
    deadlineSec,
  };
  return { response, order };
}
