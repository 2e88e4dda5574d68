/**
 * Shape of the canonical order the sandbox builds into `protocol.v2.orderData` (docs/relay-contract.md
 * "protocol.v2"; https://docs.relay.link/references/protocol/guides/for-apps). Chain ids are protocol slugs,
 * amounts base-unit integer strings, deadlines unix seconds, `extraData` and `salt` 0x hex. Type aliases (not
 * interfaces) so that a built order is also a plain record for the shared order-id encoding.
 */

/** What the depositor pays on one origin chain. `weight` is "1" for a single input. */
export type SandboxOrderPayment = {
  chainId: string;
  currency: string;
  amount: string;
  weight: string;
};

/** One refund option of an input: paid to `recipient` on `chainId` if the order is not filled by `deadline`. */
export type SandboxOrderRefund = {
  chainId: string;
  recipient: string;
  currency: string;
  minimumAmount: string;
  deadline: number;
  extraData: string;
};

/** A payment the solver makes on the output chain: `minimumAmount` is the settlement floor, `expectedAmount` an estimate. */
export type SandboxOrderOutputPayment = {
  recipient: string;
  currency: string;
  minimumAmount: string;
  expectedAmount: string;
};

/** A hub fee of the order (the sandbox's orders carry none). */
export type SandboxOrderFee = {
  recipientChainId: string;
  recipient: string;
  currencyChainId: string;
  currency: string;
  amount: string;
};

/** The order, version `v1`: inputs with their refunds, the output leg (payments, calls, deadline) and fees. */
export type OrderData = {
  version: 'v1';
  solverChainId: string;
  solver: string;
  salt: string;
  inputs: { payment: SandboxOrderPayment; refunds: SandboxOrderRefund[] }[];
  output: {
    chainId: string;
    payments: SandboxOrderOutputPayment[];
    calls: string[];
    deadline: number;
    extraData: string;
  };
  fees: SandboxOrderFee[];
};
