/**
 * Execution steps of a sandbox quote (docs/relay-contract.md "Step", "Step item"): an `approve` step for ERC-20 origins
 * (`approve(depository, amount)` on the token, no `check`) and a `deposit` step calling the depository's
 * `depositErc20(user, token, amount, orderId)` or payable `depositNative(user, orderId)` (docs/relay-contract.md "Local
 * quote verification" 5–7; ABI from relayprotocol/relay-depository), with a status `check`.
 */
import { encodeFunctionData, erc20Abi, type Address, type Hex } from 'viem';
import { depositoryAbi } from '@ballast/protocol/protocol/depositoryAbi.ts';
import type { SandboxCurrency } from './chainTable.ts';
import type { StepJson } from './types.ts';

/** EIP-1559 fee fields of a chain, in wei. */
export interface FeeData {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * Gas limits put on the steps, in gas units. Generous fixed estimates: the deposit cannot be simulated
 * before the approval is mined, and a limit that is too low would make the user's transaction revert.
 */
export const STEP_GAS = { approve: 80_000n, depositErc20: 150_000n, depositNative: 80_000n } as const;

/** What the step builders need. */
export interface StepParams {
  requestId: Hex;
  chainId: number;
  user: Address;
  depository: Address;
  currencyIn: SandboxCurrency;
  amountIn: bigint;
  orderId: Hex;
  outputSymbol: string;
  fee: FeeData;
}

/** Endpoint a client polls to track a request (docs/relay-contract.md "GET /intents/status/v3"). */
export function statusCheckEndpoint(requestId: Hex): string {
  return `/intents/status/v3?requestId=${requestId}`;
}

/**
 * The `deposit` step every origin VM ends with: one `incomplete` item carrying `data` (EVM call, Solana
 * instructions or Bitcoin PSBT) and a status `check` on {@link statusCheckEndpoint}.
 *
 * @param requestId the quote's request id
 * @param outputSymbol symbol of the output currency (for the description)
 * @param data the item's VM-specific step data
 */
export function depositStep<D>(requestId: Hex, outputSymbol: string, data: D): StepJson<D> {
  return {
    id: 'deposit',
    action: 'Confirm transaction in your wallet',
    description: `Depositing funds to the relayer to execute the swap for ${outputSymbol}`,
    kind: 'transaction',
    requestId,
    depositAddress: '',
    items: [{ status: 'incomplete', data, check: { endpoint: statusCheckEndpoint(requestId), method: 'GET' } }],
  };
}

/** Calldata of `depositErc20(depositor, token, amount, id)` or `depositNative(depositor, id)`. */
export function depositCalldata(native: boolean, depositor: Address, token: Address, amount: bigint, id: Hex): Hex {
  return native
    ? encodeFunctionData({ abi: depositoryAbi, functionName: 'depositNative', args: [depositor, id] })
    : encodeFunctionData({ abi: depositoryAbi, functionName: 'depositErc20', args: [depositor, token, amount, id] });
}

/** Calldata of ERC-20 `approve(spender, amount)`. */
export function approveCalldata(spender: Address, amount: bigint): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] });
}

/**
 * Builds the steps of a quote.
 *
 * @returns `[approve, deposit]` for an ERC-20 input, `[deposit]` for a native input
 */
export function buildSteps(p: StepParams): StepJson[] {
  const fee = { maxFeePerGas: p.fee.maxFeePerGas.toString(), maxPriorityFeePerGas: p.fee.maxPriorityFeePerGas.toString() };
  const native = p.currencyIn.isNative;
  const deposit: StepJson = depositStep(p.requestId, p.outputSymbol, {
    from: p.user,
    to: p.depository,
    data: depositCalldata(native, p.user, p.currencyIn.address, p.amountIn, p.orderId),
    value: native ? p.amountIn.toString() : '0',
    chainId: p.chainId,
    gas: (native ? STEP_GAS.depositNative : STEP_GAS.depositErc20).toString(),
    ...fee,
  });
  if (native) return [deposit];
  const approve: StepJson = {
    id: 'approve',
    action: 'Confirm transaction in your wallet',
    description: `Sign an approval for ${p.currencyIn.symbol}`,
    kind: 'transaction',
    requestId: p.requestId,
    items: [
      {
        status: 'incomplete',
        data: {
          from: p.user,
          to: p.currencyIn.address,
          data: approveCalldata(p.depository, p.amountIn),
          value: '0',
          chainId: p.chainId,
          gas: STEP_GAS.approve.toString(),
          ...fee,
        },
      },
    ],
  };
  return [approve, deposit];
}
