/**
 * Sandbox fee model (docs/relay-contract.md "Fee components" and "Limits"), pure bigint math:
 * - execution = 0.02 USD flat + destination fill gas (gas units × gas price × native USD price, or a non-EVM
 *   chain's fill cost in its native currency) + extra;
 * - swap = configurable bps (0 for same-symbol bridges by default) + extra;
 * - platform = bps by pair type (0 / 1 / 6 / 15) + extra;
 * - app = request `appFees` bps + extra.
 * Every component is charged in the input currency (rounded up); the remaining input converts into the
 * output currency at USD prices (rounded down).
 */
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { ExtraFees } from '../faults.ts';
import { SandboxApiError } from './errors.ts';
import { classifyPair, PLATFORM_BPS_BY_PAIR, type PairType } from './pairType.ts';
import { bpsOfCeil, convertAmount, fromUsdMicrosCeil, toUsdMicros } from './prices.ts';

/** Pricing knobs of the sandbox. Basis points are integers; gas values are gas units. */
export interface SandboxPricing {
  /** Flat execution fee, USD decimal string (docs/relay-contract.md "Limits": 0.02 USD). */
  executionFlatUsd: string;
  /** Swap fee for same-symbol bridges, bps. */
  swapBpsBridge: number;
  /** Swap fee for pairs of different symbols, bps. */
  swapBpsSwap: number;
  /** Gas units of an ERC-20 transfer fill on the destination. */
  fillGasErc20: bigint;
  /** Gas units of a native transfer fill on the destination. */
  fillGasNative: bigint;
  /** Slippage applied when the request gives no `slippageTolerance`, bps. */
  defaultSlippageBps: number;
}

/** Default pricing: 0.02 USD flat, swap 0 bps for bridges and 3 bps for swaps, 50 bps slippage. */
export const DEFAULT_SANDBOX_PRICING: Readonly<SandboxPricing> = Object.freeze({
  executionFlatUsd: '0.02',
  swapBpsBridge: 0,
  swapBpsSwap: 3,
  fillGasErc20: 65_000n,
  fillGasNative: 21_000n,
  defaultSlippageBps: 50,
});

/** A currency with what pricing needs. `priceMicros` is micro-USD per whole unit. */
export interface PricedCurrency {
  symbol: string;
  decimals: number;
  priceMicros: bigint;
}

/** Inputs of {@link computeFees}. Amounts in base units; gas price in wei. */
export interface FeeInput {
  amountIn: bigint;
  currencyIn: PricedCurrency;
  currencyOut: PricedCurrency;
  /** Destination native currency (pays the fill's gas). */
  destinationNative: PricedCurrency;
  /** Destination gas price in wei (the chain's maxFeePerGas: an upper bound of what the fill pays). */
  destinationGasPriceWei: bigint;
  /** True when the output is the destination's native currency (native transfer fill). */
  nativeOut: boolean;
  /**
   * What the fill costs on a non-EVM destination, in its native base units (lamports, satoshis); replaces
   * `fill gas × destinationGasPriceWei` when given.
   */
  destinationFillCostNative?: bigint;
  pricing: SandboxPricing;
  extra?: ExtraFees | undefined;
  /** App fee from the request's `appFees`, bps. */
  appBps?: number;
}

/** One fee component: `amount` in input-currency base units and its value in micro-USD. */
export interface FeeComponent {
  amount: bigint;
  usdMicros: bigint;
}

/** Result of {@link computeFees}. */
export interface FeeQuote {
  pairType: PairType;
  bps: { swap: number; platform: number; app: number };
  execution: FeeComponent;
  /**
   * The destination fill gas part of `execution` (the deprecated set's `relayerGas`); the rest of
   * `execution` (0.02 USD flat fee and any extra) is service fee. `executionGas.amount ≤ execution.amount`.
   */
  executionGas: FeeComponent;
  swap: FeeComponent;
  platform: FeeComponent;
  app: FeeComponent;
  /** Sum of the components' amounts, input-currency base units. */
  totalAmount: bigint;
  /** Sum of the components' USD values, micro-USD. */
  totalUsdMicros: bigint;
  /** Value of the whole input, micro-USD. */
  inputUsdMicros: bigint;
  /** Input left after fees, input base units. */
  netIn: bigint;
  /** Expected output, output-currency base units. */
  expectedOut: bigint;
  /** Value of the expected output, micro-USD. */
  outputUsdMicros: bigint;
}

function bpsComponent(amountIn: bigint, bps: number, cur: PricedCurrency): FeeComponent {
  const amount = bpsOfCeil(amountIn, bps);
  return { amount, usdMicros: toUsdMicros(amount, cur.decimals, cur.priceMicros) };
}

/**
 * Prices a transfer.
 *
 * @throws SandboxApiError 400 `AMOUNT_TOO_LOW` when the fees consume the whole input or the output rounds
 *   to zero (errorData names the fee total in input base units)
 */
export function computeFees(input: FeeInput): FeeQuote {
  const { amountIn, currencyIn: cin, currencyOut: cout, pricing } = input;
  const extra = input.extra ?? {};
  if (amountIn <= 0n) {
    throw new SandboxApiError(400, 'AMOUNT_TOO_LOW', 'amount must be greater than 0', 'amount=0');
  }
  const pairType = classifyPair(cin.symbol, cout.symbol);
  const bps = {
    swap: (pairType === 'bridge' ? pricing.swapBpsBridge : pricing.swapBpsSwap) + (extra.swapBps ?? 0),
    platform: PLATFORM_BPS_BY_PAIR[pairType] + (extra.platformBps ?? 0),
    app: (input.appBps ?? 0) + (extra.appBps ?? 0),
  };

  const fillGas = input.nativeOut ? pricing.fillGasNative : pricing.fillGasErc20;
  const gasUsd = toUsdMicros(
    input.destinationFillCostNative ?? fillGas * input.destinationGasPriceWei,
    input.destinationNative.decimals,
    input.destinationNative.priceMicros,
  );
  const executionUsd = parseUsdMicros(pricing.executionFlatUsd) + gasUsd + (extra.executionUsd ? parseUsdMicros(extra.executionUsd) : 0n);
  const execution: FeeComponent = {
    amount: fromUsdMicrosCeil(executionUsd, cin.decimals, cin.priceMicros),
    usdMicros: executionUsd,
  };
  // Rounded up like `execution`; a smaller USD value never rounds to more base units.
  const executionGas: FeeComponent = { amount: fromUsdMicrosCeil(gasUsd, cin.decimals, cin.priceMicros), usdMicros: gasUsd };
  const swap = bpsComponent(amountIn, bps.swap, cin);
  const platform = bpsComponent(amountIn, bps.platform, cin);
  const app = bpsComponent(amountIn, bps.app, cin);

  const totalAmount = execution.amount + swap.amount + platform.amount + app.amount;
  const totalUsdMicros = execution.usdMicros + swap.usdMicros + platform.usdMicros + app.usdMicros;
  const tooLow = () =>
    new SandboxApiError(
      400,
      'AMOUNT_TOO_LOW',
      `amount ${amountIn} ${cin.symbol} base units does not cover the fees of ${totalAmount}; send more`,
      `fees=${totalAmount}`,
    );
  if (totalAmount >= amountIn) throw tooLow();
  const netIn = amountIn - totalAmount;
  const expectedOut = convertAmount(netIn, cin, cout);
  if (expectedOut <= 0n) throw tooLow();
  return {
    pairType,
    bps,
    execution,
    executionGas,
    swap,
    platform,
    app,
    totalAmount,
    totalUsdMicros,
    inputUsdMicros: toUsdMicros(amountIn, cin.decimals, cin.priceMicros),
    netIn,
    expectedOut,
    outputUsdMicros: toUsdMicros(expectedOut, cout.decimals, cout.priceMicros),
  };
}

/**
 * Guaranteed output after slippage: `expected × (10000 − slippageBps) / 10000`, rounded down.
 *
 * @param expectedOut expected output, base units
 * @param slippageBps 0..10000
 */
export function minimumAfterSlippage(expectedOut: bigint, slippageBps: number): bigint {
  return (expectedOut * BigInt(10_000 - slippageBps)) / 10_000n;
}
