/**
 * Builders for the currency records of a quote (docs/relay-contract.md "Currency", "Currency amount").
 */
import { formatUnits } from 'viem';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import type { SandboxVmCurrency } from './vmChains.ts';
import { toUsdMicros } from './prices.ts';
import type { CurrencyAmountJson, CurrencyJson } from './types.ts';

/** Spec "Currency" record of a sandbox currency on a chain. */
export function currencyJson(chainId: number, c: SandboxVmCurrency): CurrencyJson {
  return {
    chainId,
    address: c.address,
    symbol: c.symbol,
    name: c.name,
    decimals: c.decimals,
    metadata: { logoURI: '', verified: true, isNative: c.isNative },
  };
}

/**
 * Spec "Currency amount".
 *
 * @param amount base units (may be negative only in the deprecated fee set)
 * @param priceMicros micro-USD per whole unit, for `amountUsd`
 * @param minimumAmount base units; defaults to `amount`
 */
export function currencyAmountJson(
  chainId: number,
  c: SandboxVmCurrency,
  amount: bigint,
  priceMicros: bigint,
  minimumAmount: bigint = amount,
): CurrencyAmountJson {
  return {
    currency: currencyJson(chainId, c),
    amount: amount.toString(),
    amountFormatted: formatUnits(amount, c.decimals),
    amountUsd: formatUsdMicros(toUsdMicros(amount, c.decimals, priceMicros)),
    minimumAmount: minimumAmount.toString(),
  };
}

/**
 * One input unit expressed in output units (docs/relay-contract.md "details": rate), with 18 fractional digits, rounded
 * down.
 *
 * @param amountIn input, base units (> 0)
 * @param amountOut output, base units
 */
export function rateString(amountIn: bigint, decimalsIn: number, amountOut: bigint, decimalsOut: number): string {
  const scaled = (amountOut * 10n ** BigInt(decimalsIn) * 10n ** 18n) / (amountIn * 10n ** BigInt(decimalsOut));
  return formatUnits(scaled, 18);
}
