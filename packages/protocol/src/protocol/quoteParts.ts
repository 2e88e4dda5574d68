/**
 * The parts of a quote every local Relay service builds the same way (the sandbox's and `ballast simulate`'s): the
 * canonical order of a one-input bridge (docs/relay-contract.md "protocol.v2" orderData; docs/design.md "Real
 * orderData") and the EVM execution steps that pay it into the depository (docs/relay-contract.md "Step", "Step
 * item"; ABI from relayprotocol/relay-depository). Pure: no I/O, no clock; amounts are bigint base units, written
 * as integer strings.
 */
import { encodeFunctionData, erc20Abi, type Address, type Hex } from 'viem';
import { depositoryAbi } from './depositoryAbi.ts';

/** One chain of an order: its protocol slug, the currency on it and the leg's `extraData` (0x hex). */
export type OrderLeg = {
  slug: string;
  currency: string;
  extraData: string;
};

/** What a one-input bridge order says. Amounts: `amountIn` origin base units, outputs destination base units. */
export type BridgeOrderInput = {
  solverChainId: string;
  solver: string;
  salt: string;
  origin: OrderLeg;
  destination: OrderLeg;
  amountIn: bigint;
  /** Who each refund pays: on the origin chain, and on the destination chain. */
  refundTo: { origin: string; destination: string };
  recipient: string;
  expectedOut: bigint;
  minimumOut: bigint;
  /** The output deadline and every refund's, unix seconds. */
  deadlineSec: number;
};

/**
 * The order, version `v1`, as real one-input quotes carry it. Type aliases (not interfaces), so a built order is
 * also a plain record for the order-id encoding.
 */
export type BridgeOrderData = {
  version: 'v1';
  solverChainId: string;
  solver: string;
  salt: string;
  inputs: {
    payment: { chainId: string; currency: string; amount: string; weight: string };
    refunds: { chainId: string; recipient: string; currency: string; minimumAmount: string; deadline: number; extraData: string }[];
  }[];
  output: {
    chainId: string;
    payments: { recipient: string; currency: string; minimumAmount: string; expectedAmount: string }[];
    calls: string[];
    deadline: number;
    extraData: string;
  };
  fees: { recipientChainId: string; recipient: string; currencyChainId: string; currency: string; amount: string }[];
};

/**
 * Builds the order of a one-input bridge: payment weight "1"; two refunds with `minimumAmount` "0" and the output
 * deadline, one on the origin in the input currency and one on the destination in the output currency; one output
 * payment; no calls and no hub fees.
 */
export function bridgeOrderData(i: BridgeOrderInput): BridgeOrderData {
  const deadline = i.deadlineSec;
  const refund = (leg: OrderLeg, recipient: string) => ({
    chainId: leg.slug,
    recipient,
    currency: leg.currency,
    minimumAmount: '0',
    deadline,
    extraData: leg.extraData,
  });
  return {
    version: 'v1',
    solverChainId: i.solverChainId,
    solver: i.solver,
    salt: i.salt,
    inputs: [
      {
        payment: { chainId: i.origin.slug, currency: i.origin.currency, amount: i.amountIn.toString(), weight: '1' },
        refunds: [refund(i.origin, i.refundTo.origin), refund(i.destination, i.refundTo.destination)],
      },
    ],
    output: {
      chainId: i.destination.slug,
      payments: [
        {
          recipient: i.recipient,
          currency: i.destination.currency,
          minimumAmount: i.minimumOut.toString(),
          expectedAmount: i.expectedOut.toString(),
        },
      ],
      calls: [],
      deadline,
      extraData: i.destination.extraData,
    },
    fees: [],
  };
}

/** EVM step data (docs/relay-contract.md "Step item" `data`): the call, value in wei and gas fields as integer strings. */
export type EvmStepData = {
  from: Address;
  to: Address;
  data: Hex;
  value: string;
  chainId: number;
  gas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
};

/** A step of a quote (docs/relay-contract.md "Step"); `D` is the origin VM's transaction data. */
export type QuoteStep<D = EvmStepData> = {
  id: string;
  action: string;
  description: string;
  kind: 'transaction';
  requestId: Hex;
  depositAddress?: string;
  items: { status: 'incomplete'; data: D; check?: { endpoint: string; method: 'GET' } }[];
};

/**
 * Gas limits put on the EVM steps, gas units. Generous fixed estimates: the deposit cannot be simulated before the
 * approval is mined, and a limit that is too low would make the user's transaction revert.
 */
export const STEP_GAS = { approve: 80_000n, depositErc20: 150_000n, depositNative: 80_000n } as const;

/** EIP-1559 fee fields of a chain, wei. */
export type StepFees = {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
};

/** Endpoint a client polls to track a request (docs/relay-contract.md "GET /intents/status/v3"). */
export function statusCheckEndpoint(requestId: Hex): string {
  return `/intents/status/v3?requestId=${requestId}`;
}

/**
 * The `deposit` step every origin VM ends with: one `incomplete` item carrying `data` (EVM call, Solana
 * instructions or Bitcoin PSBT) and a status `check` on {@link statusCheckEndpoint}.
 *
 * @param outputSymbol symbol of the output currency (for the description)
 */
export function depositStep<D>(requestId: Hex, outputSymbol: string, data: D): QuoteStep<D> {
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

/** What {@link evmDepositSteps} needs. `amountIn` in base units of the input currency. */
export type EvmStepsInput = {
  requestId: Hex;
  chainId: number;
  user: Address;
  depository: Address;
  currencyIn: { address: Address; symbol: string; isNative: boolean };
  amountIn: bigint;
  orderId: Hex;
  outputSymbol: string;
  fee: StepFees;
};

/**
 * The EVM steps that pay an order into the depository: an `approve` step for an ERC-20 input (`approve(depository,
 * amount)` on the token, no `check`), then a `deposit` step calling `depositErc20` or payable `depositNative`.
 *
 * @returns `[approve, deposit]` for an ERC-20 input, `[deposit]` for a native input
 */
export function evmDepositSteps(p: EvmStepsInput): QuoteStep[] {
  const fee = { maxFeePerGas: p.fee.maxFeePerGas.toString(), maxPriorityFeePerGas: p.fee.maxPriorityFeePerGas.toString() };
  const native = p.currencyIn.isNative;
  const deposit = depositStep<EvmStepData>(p.requestId, p.outputSymbol, {
    from: p.user,
    to: p.depository,
    data: depositCalldata(native, p.user, p.currencyIn.address, p.amountIn, p.orderId),
    value: native ? p.amountIn.toString() : '0',
    chainId: p.chainId,
    gas: (native ? STEP_GAS.depositNative : STEP_GAS.depositErc20).toString(),
    ...fee,
  });
  if (native) return [deposit];
  const approve: QuoteStep = {
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
