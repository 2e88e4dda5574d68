/**
 * One process's view of an in-memory chain (src/sim/chain.ts) through the PublicClient methods Ballast calls (getChainId,
 * getBlockNumber, getBlock, getBalance, getTransactionCount, estimateGas, estimateFeesPerGas, readContract, multicall,
 * sendRawTransaction, getTransaction, getTransactionReceipt, waitForTransactionReceipt, getLogs, and
 * `chain.contracts.multicall3`). Signed transactions are decoded and their sender recovered; lookups answer
 * viem's own not-found errors only for what the node does not know, and any other failure with another error.
 * The world's faults are applied per call; every call fails once the process is dead. Used by `ballast simulate`
 * and by the model tests.
 */
import {
  BlockNotFoundError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  WaitForTransactionReceiptTimeoutError,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionSerialized,
} from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { MULTICALL3_ADDRESS } from '../chains/evm/client.ts';
import { lowerHex, type Block, type ChainTx, type InMemoryChain, type MinedTx, type ReorgMode } from './chain.ts';

/**
 * A lookup fault: an error answer, a not-found answer, a backend `blocks` behind the head, or a reorg applied by
 * the world before the lookup is answered.
 */
/** What getBalance answers for every account, wei: gas is not modelled, transactions cost nothing. */
const NATIVE_BALANCE = 10n ** 24n;

export type LookupFault =
  | { kind: 'error' }
  | { kind: 'notFound' }
  | { kind: 'lag'; blocks: number }
  | { kind: 'reorg'; chain: string; depth: number; mode: ReorgMode };

/**
 * A broadcast fault: `lost` (an error answer, the node never took it), `repeat` (taken, then a transport retry
 * answers `already known`), `evict` (taken, then forgotten before it is mined), `slow` (taken, mined only after
 * a while), `speedUp`/`cancel` (the operator replaces it at once).
 */
export type SendFault = 'lost' | 'repeat' | 'evict' | 'slow' | 'speedUp' | 'cancel';

/** EIP-1559 fee fields a node estimates with, wei. */
export interface NodeFees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * Who the node takes for the operator: the treasury's own key (its signatures are recognised without a public-key
 * recovery; it replaces transactions on `speedUp`/`cancel` faults), and the fees every estimate answers.
 */
export interface NodeIdentity {
  operator: LocalAccount;
  fees: NodeFees;
}

/**
 * What a node needs of its world: the virtual clock, time passing while it waits, and the fault of each call.
 * A simulation world is one; so are the model tests' worlds.
 */
export interface NodeWorld {
  readonly nowMs: number;
  advance(ms: number): void;
  nextLookupFault(method: string): LookupFault | undefined;
  nextSendFault(): SendFault | undefined;
}

/** A running process: its handles refuse every call once `alive` is false (it crashed). */
export interface ProcessHandle {
  id: number;
  alive: boolean;
}

/** How long a `slow` broadcast stays unmined, ms. */
const STUCK_MS = 5 * 60_000;
const lower = (a: string): Address => lowerHex(a);

/**
 * The sender of a signed transaction. ECDSA signing here is deterministic (RFC 6979), so a transaction the
 * treasury key signed is exactly the one that key signs again: when re-signing the unsigned fields with it gives
 * the same bytes, the treasury is the sender, at the cost of one signature (fixed-base point multiplications)
 * instead of a public-key recovery. Any other signature is recovered as before.
 */
async function senderOf(operator: LocalAccount, tx: ReturnType<typeof parseTransaction>, raw: Hex): Promise<Address> {
  if (tx.type === 'eip1559') {
    const { r: _r, s: _s, v: _v, yParity: _y, ...unsigned } = tx;
    if ((await operator.signTransaction(unsigned)) === raw) return lower(operator.address);
  }
  return lower(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized })); // parsed by the caller
}

/** Decodes a signed EIP-1559 transaction of `chain` and recovers its sender. */
async function decodeSigned(operator: LocalAccount, chain: InMemoryChain, raw: Hex): Promise<ChainTx> {
  const tx = parseTransaction(raw);
  if (tx.chainId !== chain.chainId) throw new Error(`invalid chain id ${tx.chainId} for chain ${chain.chainId}`);
  if (tx.nonce === undefined || !tx.to) throw new Error('invalid transaction: no nonce or no recipient');
  const from = await senderOf(operator, tx, raw);
  return {
    hash: keccak256(raw),
    from,
    nonce: tx.nonce,
    to: lower(tx.to),
    data: tx.data ?? '0x',
    value: tx.value ?? 0n,
    maxFeePerGas: tx.maxFeePerGas ?? 0n,
    notBeforeMs: 0,
  };
}

function txView(tx: ChainTx, block: Block | null) {
  return {
    hash: tx.hash,
    from: tx.from,
    to: tx.to,
    nonce: tx.nonce ?? 0,
    input: tx.data,
    value: tx.value,
    blockNumber: block?.number ?? null,
    blockHash: block?.hash ?? null,
  };
}

function receiptView(block: Block, mined: MinedTx) {
  return {
    transactionHash: mined.tx.hash,
    transactionIndex: mined.index,
    blockNumber: block.number,
    blockHash: block.hash,
    from: mined.tx.from,
    to: mined.tx.to,
    status: mined.status,
    logs: mined.logs.map((l) => logView(block, mined, l)),
    // The in-memory chain charges no gas: the ledger records a gas cost of 0.
    gasUsed: 0n,
    cumulativeGasUsed: 0n,
    effectiveGasPrice: 0n,
  };
}

function logView(block: Block, mined: MinedTx, l: MinedTx['logs'][number]) {
  return {
    address: l.address,
    topics: l.topics,
    data: l.data,
    logIndex: l.logIndex,
    blockNumber: block.number,
    blockHash: block.hash,
    transactionHash: mined.tx.hash,
    transactionIndex: mined.index,
    removed: false,
  };
}

/**
 * Builds the node. `chain` is the process-independent chain; `proc` the process using it; `identity` the operator's
 * key and the fees estimates answer.
 *
 * @returns an object with the PublicClient methods Ballast uses, typed as a PublicClient
 */
export function inMemoryNode(world: NodeWorld, chain: InMemoryChain, proc: ProcessHandle, identity: NodeIdentity): PublicClient {
  const { operator, fees } = identity;
  const alive = () => {
    if (!proc.alive) throw new Error(`process ${proc.id} has ended; no RPC call`);
  };
  /** Applies the next lookup fault: the head this call answers at, and whether it is a lagging backend. */
  const enter = (method: string): { head: bigint; lagged: boolean; fault: LookupFault | undefined } => {
    alive();
    const fault = world.nextLookupFault(method);
    if (fault?.kind === 'error') throw new Error(`${method} failed: upstream request timed out (model fault)`);
    if (fault?.kind === 'notFound' && method !== 'getTransaction' && method !== 'getTransactionReceipt') {
      throw new Error(`${method} failed: transaction indexing is in progress (model fault)`);
    }
    const head = chain.head();
    if (fault?.kind === 'lag') return { head: head > BigInt(fault.blocks) ? head - BigInt(fault.blocks) : 0n, lagged: true, fault };
    return { head, lagged: false, fault };
  };
  const read = (functionName: string, address: string, args: readonly unknown[], at: bigint): bigint | number => {
    const a = args.map((x) => String(x));
    if (functionName === 'getEthBalance') return 10n ** 21n;
    const token = chain.contracts.tokens.find((t) => t.address === address.toLowerCase());
    if (!token) throw new Error(`execution reverted: no contract at ${address}`);
    if (functionName === 'decimals') return token.decimals ?? 6;
    if (functionName === 'balanceOf') return chain.balanceOf(address, a[0]!, at);
    if (functionName === 'allowance') return chain.allowance(address, a[0]!, a[1]!, at);
    throw new Error(`execution reverted: ${functionName} not modelled`);
  };

  const node = {
    chain: { id: chain.chainId, name: chain.name, contracts: { multicall3: { address: MULTICALL3_ADDRESS } } },
    async getChainId() {
      enter('getChainId');
      return chain.chainId;
    },
    async getBlockNumber() {
      return enter('getBlockNumber').head;
    },
    async getBlock({ blockNumber }: { blockNumber: bigint }) {
      const v = enter('getBlock');
      const block = blockNumber <= v.head ? chain.blocks[Number(blockNumber)] : undefined;
      if (!block) throw new BlockNotFoundError({ blockNumber });
      return { number: block.number, hash: block.hash, timestamp: BigInt(Math.floor(block.timestampMs / 1000)) };
    },
    /** Native balance: gas is not modelled on these chains (transactions cost nothing), so every account holds plenty. */
    async getBalance(_args: { address: Address; blockNumber?: bigint }) {
      enter('getBalance');
      return NATIVE_BALANCE;
    },
    async getTransactionCount({ address, blockTag }: { address: Address; blockTag?: string }) {
      const v = enter('getTransactionCount');
      return blockTag === 'pending' && !v.lagged ? chain.pendingNonce(address) : chain.nonceAt(address, v.head);
    },
    async estimateGas({ account, to, data, value }: { account: Address | { address: Address }; to: Address; data?: Hex; value?: bigint }) {
      enter('estimateGas');
      const from = lower(typeof account === 'string' ? account : account.address);
      if (!chain.simulate({ from, to: lower(to), data: data ?? '0x', value: value ?? 0n }))
        throw new Error('execution reverted (estimateGas)');
      return 60_000n;
    },
    async estimateFeesPerGas() {
      enter('estimateFeesPerGas');
      return { ...fees };
    },
    async readContract({
      address,
      functionName,
      args,
      blockNumber,
    }: {
      address: Address;
      functionName: string;
      args?: readonly unknown[];
      blockNumber?: bigint;
    }) {
      const v = enter('readContract');
      return read(functionName, address, args ?? [], blockNumber ?? v.head);
    },
    async multicall({
      contracts,
      blockNumber,
    }: {
      contracts: readonly { address: Address; functionName: string; args?: readonly unknown[] }[];
      blockNumber?: bigint;
    }) {
      const v = enter('multicall');
      const at = blockNumber ?? v.head;
      if (at > v.head) throw new Error(`multicall failed: header not found (block ${at})`);
      return contracts.map((c) => {
        try {
          return { status: 'success' as const, result: read(c.functionName, c.address, c.args ?? [], at) };
        } catch (error) {
          return { status: 'failure' as const, error: error as Error, result: undefined };
        }
      });
    },
    async sendRawTransaction({ serializedTransaction }: { serializedTransaction: Hex }) {
      alive();
      const fault: SendFault | undefined = world.nextSendFault();
      const tx = await decodeSigned(operator, chain, serializedTransaction);
      alive();
      if (fault === 'lost') throw new Error('sendRawTransaction failed: request timed out (model fault)');
      if (fault === 'slow') tx.notBeforeMs = world.nowMs + STUCK_MS;
      chain.submit(tx);
      if (fault === 'repeat') throw new Error('already known');
      if (fault === 'evict') chain.evict(tx.hash);
      if (fault === 'speedUp' || fault === 'cancel') await replaceByOperator(identity, chain, tx, fault);
      return tx.hash;
    },
    async getTransaction({ hash }: { hash: Hex }) {
      const v = enter('getTransaction');
      const mined = chain.minedTx(hash, v.head);
      if (v.fault?.kind !== 'notFound') {
        if (mined) return txView(mined.mined.tx, mined.block);
        const pending = chain.mempool.get(lowerHex(hash));
        if (pending && !v.lagged) return txView(pending, null);
      }
      throw new TransactionNotFoundError({ hash });
    },
    async getTransactionReceipt({ hash }: { hash: Hex }) {
      const v = enter('getTransactionReceipt');
      const mined = chain.minedTx(hash, v.head);
      if (mined && v.fault?.kind !== 'notFound') return receiptView(mined.block, mined.mined);
      throw new TransactionReceiptNotFoundError({ hash });
    },
    async waitForTransactionReceipt({ hash, timeout }: { hash: Hex; timeout?: number }) {
      const v = enter('waitForTransactionReceipt');
      if (v.fault?.kind === 'notFound') throw new Error('waitForTransactionReceipt failed: upstream request timed out (model fault)');
      const started = world.nowMs;
      const limit = timeout ?? 180_000;
      // Like viem: the transaction is looked up once so a replacement (same sender and nonce) is recognised.
      const original = chain.knownTx(hash);
      for (;;) {
        alive();
        const mined = chain.minedTx(hash);
        if (mined) return receiptView(mined.block, mined.mined);
        const replaced = original?.nonce != null ? chain.minedByNonce(original.from, original.nonce) : undefined;
        if (replaced) return receiptView(replaced.block, replaced.mined);
        const waited = world.nowMs - started;
        if (waited >= limit) throw new WaitForTransactionReceiptTimeoutError({ hash });
        world.advance(Math.min(1_000, limit - waited));
      }
    },
    async getLogs({ address, fromBlock, toBlock }: { address: Address; fromBlock?: bigint; toBlock?: bigint | 'latest' }) {
      const v = enter('getLogs');
      const to = toBlock === undefined || toBlock === 'latest' || toBlock > v.head ? v.head : toBlock;
      return chain.logs(address, fromBlock ?? 0n, to).map(({ block, mined, log }) => logView(block, mined, log));
    },
  };
  // Ballast calls only the methods above on a chain's PublicClient (src/cycle, src/executor, src/chains/evm).
  return node as unknown as PublicClient;
}

/** The operator replaces a pending transaction: same call at twice the fee, or a 0-value transfer to itself. */
async function replaceByOperator(identity: NodeIdentity, chain: InMemoryChain, tx: ChainTx, kind: 'speedUp' | 'cancel'): Promise<void> {
  const cancel = kind === 'cancel';
  const raw = await identity.operator.signTransaction({
    type: 'eip1559',
    chainId: chain.chainId,
    nonce: tx.nonce!, // our own signed transactions always carry a nonce
    to: cancel ? tx.from : tx.to,
    data: cancel ? '0x' : tx.data,
    value: cancel ? 0n : tx.value,
    gas: 100_000n,
    maxFeePerGas: tx.maxFeePerGas * 2n,
    maxPriorityFeePerGas: identity.fees.maxPriorityFeePerGas * 2n,
  });
  chain.submit(await decodeSigned(identity.operator, chain, raw));
}
