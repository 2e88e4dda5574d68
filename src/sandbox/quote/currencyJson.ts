/**
 * Builders for the currency records of a quote (spec "Currency", "Currency amount").
 */
import { formatUnits } from 'viem';
import { formatUsdMicros } from '../../core/units.ts';
import type { SandboxCurrency } from './chainTable.ts';
import { toUsdMicros } from './prices.ts';
import type { CurrencyAmountJson, CurrencyJson } from './types.ts';

/** Spec "Currency" record of a sandbox currency on a chain. */
export function currencyJson(chainId: number, c: SandboxCurrency): CurrencyJson {
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
  c: SandboxCurrency,
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
