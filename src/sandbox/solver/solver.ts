/**
 * The sandbox solver: watches every chain's depository for deposits (eth_getLogs polling), matches each to a
 * quoted order and fills it on the destination chain from the solver wallet, or returns it on the origin
 * chain through the sandbox depository's owner-only withdraw functions. Drives the request status
 * waiting → pending → submitted → success (or failure / refund), forward only. Fault modes (read when the
 * deposit is seen): `fillDelayMs`, `neverFill`, `refund`, `failure`. Sends are serialized per chain.
 */
import type { Logger } from 'pino';
import {
  erc20Abi,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { sandboxDepositoryAbi } from '../contracts/abis.ts';
import type { ObservedDeposit, RequestRecord } from '../api/requestStore.ts';
import type { SandboxState, TransactionIndexer } from '../api/state.ts';
import { randomBytes32 } from '../quote/buildQuote.ts';
import { EVM_NATIVE_ADDRESS } from '../quote/chainTable.ts';
import { decodeDepositLogs } from './depositLogs.ts';
import { matchDeposit, type RefundReason } from './matchDeposit.ts';
import { SerialQueue } from './serialQueue.ts';

/** A chain the solver works on. */
export interface SolverChain {
  chainId: number;
  depository: Address;
  publicClient: PublicClient<Transport, Chain>;
  /** Wallet client of the solver account on this chain. */
  walletClient: WalletClient<Transport, Chain, Account>;
}

/** Options of {@link startSolver}. */
export interface SolverOptions {
  state: SandboxState;
  chains: SolverChain[];
  /** Log polling period, ms (default 200). */
  pollMs?: number;
}

/** A running solver. `indexTransaction` backs POST /transactions/index. */
export interface Solver extends TransactionIndexer {
  /** Stops polling, cancels pending fill delays and waits for in-flight work to settle. */
  stop(): Promise<void>;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Starts the solver. Deposits in blocks up to the current head are ignored (the watch starts at the next
 * block); older deposits can still be picked up through `indexTransaction`.
 *
 * @throws viem errors when a chain's block number cannot be read at start
 */
export async function startSolver(opts: SolverOptions): Promise<Solver> {
  const { state } = opts;
  const pollMs = opts.pollMs ?? 200;
  const log = state.logger.child({ component: 'sandbox-solver' });
  const abort = new AbortController();
  const queue = new SerialQueue();
  const seen = new Set<string>();
  const inflight = new Set<Promise<void>>();
  const byId = new Map(opts.chains.map((c) => [c.chainId, c]));
  const nowMs = () => state.nowMs();

  const chainOf = (chainId: number): SolverChain => {
    const c = byId.get(chainId);
    if (!c) throw new Error(`solver has no client for chain ${chainId}`); // chains come from the same table
    return c;
  };

  /** Sends a transaction from the solver wallet (serialized per chain) and waits for its receipt. */
  async function send(chainId: number, write: (c: SolverChain) => Promise<Hex>, onSent: (hash: Hex) => void): Promise<boolean> {
    const c = chainOf(chainId);
    const hash = await queue.run(chainId, () => write(c));
    onSent(hash);
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    return receipt.status === 'success';
  }

  async function refund(record: RequestRecord, deposit: ObservedDeposit, to: Address, reason: RefundReason | 'REFUND_REQUESTED') {
    const rlog = log.child({ requestId: record.requestId, orderId: deposit.id, chainId: deposit.chainId });
    const native = deposit.currency === EVM_NATIVE_ADDRESS;
    try {
      let hash: Hex | undefined;
      const ok = await send(
        deposit.chainId,
        (c) =>
          native
            ? c.walletClient.writeContract({
                address: c.depository,
                abi: sandboxDepositoryAbi,
                functionName: 'withdrawNative',
                args: [to, deposit.amount, deposit.id],
              })
            : c.walletClient.writeContract({
                address: c.depository,
                abi: sandboxDepositoryAbi,
                functionName: 'withdrawErc20',
                args: [deposit.currency, to, deposit.amount, deposit.id],
              }),
        (h) => (hash = h),
      );
      if (!hash) throw new Error('refund transaction hash missing'); // onSent ran before the receipt wait
      if (ok) state.requests.advance(record, 'refund', { txHashes: [hash], failReason: reason }, nowMs());
      else state.requests.advance(record, 'failure', { txHashes: [hash], failReason: 'REFUND_REVERTED' }, nowMs());
      rlog.info({ reason, txHash: hash, ok }, 'deposit returned on origin');
    } catch (error) {
      rlog.error({ err: error, reason }, 'refund failed');
      state.requests.advance(record, 'failure', { failReason: 'REFUND_FAILED' }, nowMs());
    }
  }

  async function fill(record: RequestRecord, deposit: ObservedDeposit) {
    const order = record.order;
    if (!order) return; // matchDeposit only fills records with an order
    const flog = log.child({ requestId: record.requestId, orderId: order.orderId, chainId: order.destinationChainId });
    state.requests.advance(record, 'pending', { inTxHashes: [deposit.txHash], deposit }, nowMs());
    const faults = state.faults.get();
    flog.info({ txHash: deposit.txHash }, 'deposit indexed; request pending');
    if (faults.neverFill) return;
    await sleep(faults.fillDelayMs, abort.signal);
    if (abort.signal.aborted) return;
    if (faults.failure) {
      state.requests.advance(record, 'failure', { failReason: 'SOLVER_FAILURE' }, nowMs());
      flog.warn('fill failed (fault mode)');
      return;
    }
    if (faults.refund) return refund(record, deposit, order.refundTo, 'REFUND_REQUESTED');
    try {
      const ok = await send(
        order.destinationChainId,
        (c) =>
          order.currencyOut.isNative
            ? c.walletClient.sendTransaction({ to: order.recipient, value: order.expectedOut })
            : c.walletClient.writeContract({
                address: order.currencyOut.address,
                abi: erc20Abi,
                functionName: 'transfer',
                args: [order.recipient, order.expectedOut],
              }),
        (hash) => state.requests.advance(record, 'submitted', { txHashes: [hash] }, nowMs()),
      );
      if (ok) state.requests.advance(record, 'success', { filledAmount: order.expectedOut }, nowMs());
      else state.requests.advance(record, 'failure', { failReason: 'FILL_REVERTED' }, nowMs());
      flog.info({ txHashes: record.txHashes, ok }, 'fill sent');
    } catch (error) {
      flog.error({ err: error }, 'fill failed');
      state.requests.advance(record, 'failure', { failReason: 'FILL_FAILED' }, nowMs());
    }
  }

  /** Handles one deposit once (keyed by chain, tx and log index). */
  function handle(deposit: ObservedDeposit): void {
    const key = `${deposit.chainId}:${deposit.txHash.toLowerCase()}:${deposit.logIndex}`;
    if (seen.has(key)) return;
    seen.add(key);
    const decision = matchDeposit(deposit, state.requests.byOrderId(deposit.id), Math.floor(nowMs() / 1000));
    let work: Promise<void>;
    if (decision.kind === 'fill') {
      work = fill(decision.record, deposit);
    } else {
      const record = decision.record ?? state.requests.addUnmatchedDeposit(randomBytes32(), deposit, nowMs());
      state.requests.advance(record, 'pending', { inTxHashes: [deposit.txHash], deposit }, nowMs());
      log.warn({ requestId: record.requestId, orderId: deposit.id, chainId: deposit.chainId, reason: decision.reason }, 'deposit refused');
      work = refund(record, deposit, decision.to, decision.reason);
    }
    const tracked = work.catch((error: unknown) => log.error({ err: error }, 'deposit handling failed'));
    inflight.add(tracked);
    void tracked.finally(() => inflight.delete(tracked));
  }

  async function watch(c: SolverChain, startBlock: bigint): Promise<void> {
    let next = startBlock;
    while (!abort.signal.aborted) {
      try {
        const head = await c.publicClient.getBlockNumber({ cacheTime: 0 });
        if (head >= next) {
          const logs = await c.publicClient.getLogs({ address: c.depository, fromBlock: next, toBlock: head });
          for (const d of decodeDepositLogs(c.chainId, c.depository, logs)) handle(d);
          next = head + 1n;
        }
      } catch (error) {
        if (!abort.signal.aborted) log.warn({ err: error, chainId: c.chainId }, 'deposit poll failed; retrying');
      }
      await sleep(pollMs, abort.signal);
    }
  }

  const heads = await Promise.all(opts.chains.map((c) => c.publicClient.getBlockNumber({ cacheTime: 0 })));
  const loops = opts.chains.map((c, i) => watch(c, (heads[i] ?? 0n) + 1n));
  log.info({ chains: opts.chains.map((c) => c.chainId) }, 'solver watching depositories');

  return {
    async indexTransaction(chainId, txHash) {
      const c = chainOf(chainId);
      let receipt;
      try {
        receipt = await c.publicClient.getTransactionReceipt({ hash: txHash });
      } catch (error) {
        if ((error as { name?: string }).name === 'TransactionReceiptNotFoundError') return null; // viem error class name
        throw error;
      }
      const deposits = decodeDepositLogs(chainId, c.depository, receipt.logs);
      for (const d of deposits) handle(d);
      return deposits.length;
    },
    async stop() {
      abort.abort();
      await Promise.allSettled(loops);
      await Promise.allSettled([...inflight]);
    },
  };
}
