/**
 * Execution steps of a sandbox EVM-origin quote: the shared builder of `@ballast/protocol` (protocol/quoteParts.ts:
 * an `approve` step for ERC-20 origins, then the `deposit` step with a status `check`) fed from the sandbox's
 * currency table.
 */
import type { Address, Hex } from 'viem';
import { evmDepositSteps, type QuoteStep, type StepFees } from '@ballast/protocol/protocol/quoteParts.ts';
import type { SandboxCurrency } from './chainTable.ts';

/** What the step builder needs. `amountIn` in base units of `currencyIn`. */
export interface StepParams {
  requestId: Hex;
  chainId: number;
  user: Address;
  depository: Address;
  currencyIn: SandboxCurrency;
  amountIn: bigint;
  orderId: Hex;
  outputSymbol: string;
  fee: StepFees;
}

/**
 * Builds the steps of a quote.
 *
 * @returns `[approve, deposit]` for an ERC-20 input, `[deposit]` for a native input
 */
export function buildSteps(p: StepParams): QuoteStep[] {
  const { address, symbol, isNative } = p.currencyIn;
  return evmDepositSteps({ ...p, currencyIn: { address, symbol, isNative } });
}
