/**
 * The two fee views of a sandbox quote that are plain re-statements of the fee model ({@link FeeQuote}) in
 * input-currency Currency amounts, shaped like the genuine quote fixture:
 * - the deprecated fee set `fees` (docs/relay-contract.md "Deprecated fee set"): `relayerGas` is the destination fill gas
 *   only, `relayerService` the rest of the solver's fee (0.02 USD flat execution fee, swap and platform fees),
 *   `relayer` their sum, `app` the app fee, `subsidized` what a sponsor pays (nothing in the sandbox);
 * - `feeSponsorship.quoted` (docs/relay-contract.md "feeSponsorship (quote response)"): per component its total, sponsored
 *   part and user-paid part. The sandbox sponsors nothing, so no component is selected, every sponsored amount
 *   is 0 and the user pays every total.
 */
import type { FeeComponent, FeeQuote } from './fees.ts';
import type { SandboxVmCurrency } from './vmChains.ts';
import { currencyAmountJson } from './currencyJson.ts';
import type { CurrencyAmountJson, DeprecatedFeeKey, FeeSponsorshipJson, PlainCurrencyAmountJson } from './types.ts';

/** A chain's currency with its USD price (micro-USD per whole unit). */
export interface PricedChainCurrency {
  chainId: number;
  currency: SandboxVmCurrency;
  priceMicros: bigint;
}

/**
 * Builds the deprecated fee set.
 *
 * @param input the input currency on the origin chain (every member except `gas` is in it)
 * @param originNative the origin's native currency (`gas`)
 * @param originGasWei the user's origin gas estimate for the quote's steps, wei
 * @returns members as Currency amounts; `relayer = relayerGas + relayerService` exactly in base units
 */
export function deprecatedFeesJson(
  fees: FeeQuote,
  input: PricedChainCurrency,
  originNative: PricedChainCurrency,
  originGasWei: bigint,
): Record<DeprecatedFeeKey, CurrencyAmountJson> {
  const inAmt = (amount: bigint) => currencyAmountJson(input.chainId, input.currency, amount, input.priceMicros);
  const relayer = fees.execution.amount + fees.swap.amount + fees.platform.amount;
  const relayerGas = fees.executionGas.amount;
  return {
    gas: currencyAmountJson(originNative.chainId, originNative.currency, originGasWei, originNative.priceMicros),
    relayer: inAmt(relayer),
    relayerGas: inAmt(relayerGas),
    relayerService: inAmt(relayer - relayerGas),
    app: inAmt(fees.app.amount),
    subsidized: inAmt(0n),
  };
}

function plainAmount(input: PricedChainCurrency, amount: bigint): PlainCurrencyAmountJson {
  const { currency, ...rest } = currencyAmountJson(input.chainId, input.currency, amount, input.priceMicros);
  const { metadata: _metadata, ...plain } = currency;
  return { ...rest, currency: plain };
}

/**
 * Builds `feeSponsorship` (the `quoted` half; `actual` only exists once a request is filled).
 *
 * @param platformKey key of the platform component (`relay` like the live API, or `service` of docs/relay-contract.md "Full
 * fee breakdown")
 */
export function feeSponsorshipJson(fees: FeeQuote, input: PricedChainCurrency, platformKey: 'relay' | 'service'): FeeSponsorshipJson {
  const component = (c: FeeComponent) => ({
    selected: false,
    total: plainAmount(input, c.amount),
    sponsored: plainAmount(input, 0n),
    userPays: plainAmount(input, c.amount),
  });
  return {
    quoted: {
      selectedComponents: [],
      capHit: false,
      components: {
        execution: component(fees.execution),
        swap: component(fees.swap),
        [platformKey]: component(fees.platform),
        app: component(fees.app),
      },
      sponsoredTotal: plainAmount(input, 0n),
      userPaysTotal: plainAmount(input, fees.totalAmount),
    },
  };
}
