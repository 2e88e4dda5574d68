/**
 * Builds a POST /quote/v2 response for a route that touches Solana or Bitcoin (EVM → Solana, Solana → EVM,
 * EVM → Bitcoin, Bitcoin → EVM, Solana ⇄ Bitcoin): the order and response from `quoteCore.ts` around the
 * origin VM's step — EVM approve + deposit calls, a Solana deposit instruction, or a Bitcoin deposit PSBT.
 * No I/O: fee data, balances and the Bitcoin user's coins are passed in.
 */
import type { QuotedOrder } from './buildQuote.ts';
import { lower } from './chainTable.ts';
import { buildBvmSteps, buildDepositPsbt, type BitcoinCoin } from './bvmSteps.ts';
import { SandboxApiError } from './errors.ts';
import { DEFAULT_SANDBOX_PRICING, type SandboxPricing } from './fees.ts';
import { assembleQuote, priceOrder, type QuoteCoreInput } from './quoteCore.ts';
import type { QuoteRoute } from './request.ts';
import { STEP_GAS, type StepFees } from '@ballast/protocol/protocol/quoteParts.ts';
import { buildSteps } from './steps.ts';
import { buildSvmSteps } from './svmSteps.ts';
import type { BvmStepDataJson, SandboxQuoteResponse, SvmStepDataJson } from './types.ts';
import { evmCurrencyOf } from './vmChains.ts';

/** Network fee of a Solana transaction with one signature, lamports (5000 per signature). */
export const SOLANA_SIGNATURE_FEE_LAMPORTS = 5_000n;

/** Inputs of {@link buildVmQuote}: those of `quoteCore.ts` (pricing optional) plus the origin's chain reads. */
export interface BuildVmQuoteInput extends Omit<QuoteCoreInput, 'pricing'> {
  /** The resolved route (`resolveQuoteRoute` with the non-EVM chains). */
  route: QuoteRoute;
  /** Fee model; default `DEFAULT_SANDBOX_PRICING`. */
  pricing?: SandboxPricing;
  /** EVM origin: EIP-1559 fee data for the steps (required then). */
  originFeeData?: StepFees;
  /** Bitcoin origin: the user's confirmed unspent outputs and the fee rate, sat/vB (required then). */
  bitcoinOrigin?: { coins: readonly BitcoinCoin[]; feeRateSatPerVb: bigint };
}

/** Result of {@link buildVmQuote}: the order, and the response typed by the origin VM's step data. */
export type BuiltVmQuote = { order: QuotedOrder } & (
  | { originVm: 'evm'; response: SandboxQuoteResponse }
  | { originVm: 'svm'; response: SandboxQuoteResponse<SvmStepDataJson> }
  | { originVm: 'bvm'; response: SandboxQuoteResponse<BvmStepDataJson> }
);

/**
 * Builds the quote.
 *
 * @throws SandboxApiError 400 `AMOUNT_TOO_LOW`, `INSUFFICIENT_LIQUIDITY` (see `priceOrder`), `INSUFFICIENT_FUNDS`
 *   (Bitcoin origin: the coins do not cover amount + fee)
 * @throws Error when the origin's chain reads are missing (`originFeeData`, `bitcoinOrigin`): a caller bug
 */
export async function buildVmQuote(input: BuildVmQuoteInput): Promise<BuiltVmQuote> {
  const { route } = input;
  // extra fields (originFeeData, bitcoinOrigin) are ignored by priceOrder and assembleQuote
  const core: QuoteCoreInput = { ...input, pricing: input.pricing ?? DEFAULT_SANDBOX_PRICING };
  const priced = await priceOrder(core);
  const origin = route.origin;
  const outputSymbol = route.currencyOut.symbol;
  if (!('vmType' in origin)) {
    const fee = input.originFeeData;
    const currencyIn = evmCurrencyOf(origin, route.currencyIn);
    if (!fee || !currencyIn) throw new Error('an EVM origin needs its fee data and an EVM input currency');
    const steps = buildSteps({
      requestId: priced.requestId,
      chainId: origin.chainId,
      user: lower(route.user), // checked as an EVM address by resolveQuoteRoute; lower() types it
      depository: origin.depository,
      currencyIn,
      amountIn: route.amountIn,
      orderId: priced.orderId,
      outputSymbol,
      fee,
    });
    const originGas = (currencyIn.isNative ? STEP_GAS.depositNative : STEP_GAS.depositErc20 + STEP_GAS.approve) * fee.maxFeePerGas;
    return { originVm: 'evm', ...assembleQuote(core, priced, steps, originGas) };
  }
  if (origin.vmType === 'svm') {
    const steps = buildSvmSteps({
      requestId: priced.requestId,
      programId: origin.depository,
      user: route.user,
      currencyIn: route.currencyIn,
      amountIn: route.amountIn,
      orderId: priced.orderId,
      outputSymbol,
    });
    return { originVm: 'svm', ...assembleQuote(core, priced, steps, SOLANA_SIGNATURE_FEE_LAMPORTS) };
  }
  const btc = input.bitcoinOrigin;
  if (!btc) throw new Error('a Bitcoin origin needs the user coins and a fee rate');
  if (!route.currencyIn.isNative) throw new SandboxApiError(400, 'UNSUPPORTED_CURRENCY', 'Bitcoin deposits are native BTC only');
  const psbt = buildDepositPsbt({
    coins: btc.coins,
    user: route.user,
    depository: origin.depository,
    amount: route.amountIn,
    orderId: priced.orderId,
    feeRateSatPerVb: btc.feeRateSatPerVb,
  });
  const steps = buildBvmSteps(priced.requestId, psbt.psbtHex, outputSymbol);
  return { originVm: 'bvm', ...assembleQuote(core, priced, steps, psbt.feeSat) };
}
