/**
 * An in-memory stand-in for one chain as the solver sees it: a head block number, depository deposit logs
 * (ABI-encoded like the real events), block timestamps, a solver wallet that records what it sends, and
 * receipts that follow a script (`success`, `reverted`, or an RPC `error`).
 */
import { encodeAbiParameters, encodeEventTopics, type Address, type Hex, type Log, type TransactionReceipt } from 'viem';
import { depositoryAbi } from '../../../../packages/protocol/src/protocol/depositoryAbi.ts';
import type { SolverChain } from '../../../../packages/sandbox/src/solver/solver.ts';

/** A transaction the fake solver wallet sent. */
export interface SentTx {
  hash: Hex;
  functionName: string;
  args: readonly unknown[];
  to: Address;
}

/** What a receipt wait does: resolve with that status, or reject as an RPC error would. */
export type ReceiptStep = 'success' | 'reverted' | 'error';

/** The fake chain and the handles a test drives it with. */
export interface FakeChain {
  chain: SolverChain;
  sent: SentTx[];
  /** Consumed one per receipt wait; `success` once empty. */
  receiptPlan: ReceiptStep[];
  receiptWaits: number;
  /** How many times the head was read (eth_blockNumber). */
  headReads: number;
  /** Mines a block holding one RelayErc20Deposit event, with the given block timestamp (unix seconds). */
  depositErc20(d: { from: Address; token: Address; amount: bigint; id: Hex }, timestampSec: number): Hex;
}

let txCounter = 0;
const nextHash = (): Hex => {
  txCounter += 1;
  return `0x${txCounter.toString(16).padStart(64, 'c')}`;
};

/** Creates a fake chain whose head starts at block 1. */
export function fakeChain(chainId: number, depository: Address): FakeChain {
  let head = 1n;
  const logs: Log[] = [];
  const timestamps = new Map<bigint, bigint>([[1n, 1n]]);
  const fake: FakeChain = {
    sent: [],
    receiptPlan: [],
    receiptWaits: 0,
    headReads: 0,
    depositErc20(d, timestampSec) {
      head += 1n;
      timestamps.set(head, BigInt(timestampSec));
      const hash = nextHash();
      logs.push({
        address: depository,
        topics: encodeEventTopics({ abi: depositoryAbi, eventName: 'RelayErc20Deposit' }) as [Hex],
        data: encodeAbiParameters(
          [{ type: 'address' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }],
          [d.from, d.token, d.amount, d.id],
        ),
        blockNumber: head,
        blockHash: `0x${head.toString(16).padStart(64, '0')}`,
        transactionHash: hash,
        transactionIndex: 0,
        logIndex: 0,
        removed: false,
      });
      return hash;
    },
    chain: undefined as unknown as SolverChain, // set below
  };
  const send = (to: Address, functionName: string, args: readonly unknown[]): Promise<Hex> => {
    const hash = nextHash();
    fake.sent.push({ hash, functionName, args, to });
    return Promise.resolve(hash);
  };
  const publicClient = {
    getBlockNumber: async () => {
      fake.headReads += 1;
      return head;
    },
    getLogs: async ({ fromBlock, toBlock }: { fromBlock: bigint; toBlock: bigint }) =>
      logs.filter((l) => l.blockNumber !== null && l.blockNumber >= fromBlock && l.blockNumber <= toBlock),
    getBlock: async ({ blockNumber }: { blockNumber: bigint }) => ({ number: blockNumber, timestamp: timestamps.get(blockNumber) ?? 0n }),
    getTransactionReceipt: async ({ hash }: { hash: Hex }) => ({
      transactionHash: hash,
      logs: logs.filter((l) => l.transactionHash === hash),
    }),
    waitForTransactionReceipt: async ({ hash }: { hash: Hex }) => {
      fake.receiptWaits += 1;
      const step = fake.receiptPlan.shift() ?? 'success';
      if (step === 'error') throw new Error('HTTP request failed (fake RPC outage)');
      // the fields the solver reads: outcome, block, and the fee parts (gas used × effective gas price)
      return {
        transactionHash: hash,
        status: step,
        blockNumber: head,
        gasUsed: 21_000n,
        effectiveGasPrice: 2n,
      } as unknown as TransactionReceipt;
    },
  };
  const walletClient = {
    writeContract: (p: { address: Address; functionName: string; args: readonly unknown[] }) => send(p.address, p.functionName, p.args),
    sendTransaction: (p: { to: Address; value: bigint }) => send(p.to, 'native', [p.value]),
  };
  // The solver only calls the methods above; the casts stand in for viem's full client types.
  fake.chain = {
    chainId,
    depository,
    publicClient: publicClient as unknown as SolverChain['publicClient'],
    walletClient: walletClient as unknown as SolverChain['walletClient'],
  };
  return fake;
}
