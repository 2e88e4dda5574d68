/**
 * The sandbox solver: watches every chain's depository for deposits (eth_getLogs polling), matches each to a
 * quoted order and fills it on the destination chain from the solver wallet. Drives the request status
 * waiting → pending (→ delayed under the `delayed` fault) → submitted → success (or failure / refund), forward
 * only. Failed and refunded requests carry a published failReason (see `failReasons.ts`).
 *
 * A deposit that does not pay its order exactly (see `matchDeposit`) gets a request of its own that ends
 * `failure` with the reason; its funds stay in the depository, withdrawable by the depositor (spec "What the
 * service does" 5), and the order it named keeps waiting. Only the `refund` fault returns deposits on the
 * origin chain, through the sandbox depository's owner-only withdraw functions.
 *
 * Fault modes (read when the deposit is seen): `fillDelayMs`, `neverFill`, `refund`, `failure`, `failReason`,
 * `refundFailReason`, `delayed`, `fillAmount`.
 * Sends are serialized per chain. Once a transaction is broadcast its outcome is only taken from a mined
 * receipt (see `waitMined`). A deposit whose handling throws is retried on the next poll.
 */
import {
  erc20Abi,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem';
import { sandboxDepositoryAbi } from '../contracts/abis.ts';
import type { DepositEvent, ObservedDeposit, OutTx, RequestRecord } from '../api/requestStore.ts';
import type { FailReason } from '../failReasons.ts';
import type { SandboxState, TransactionIndexer } from '../api/state.ts';
import { randomBytes32 } from '../quote/buildQuote.ts';
import { EVM_NATIVE_ADDRESS } from '../quote/chainTable.ts';
import { waitMined } from './confirm.ts';
import { decodeDepositLogs } from './depositLogs.ts';
import { matchDeposit, type UnfilledReason } from './matchDeposit.ts';
import { minedOutTx, sentOutTx } from './outTx.ts';
import { SerialQueue } from './serialQueue.ts';
import { sleep } from './sleep.ts';

/** A chain the solver works on. */
export interface SolverChain {
  chainId: number;
  depository: Address;
  publicClient: PublicClient<Transport, Chain>;
  /** Wallet client of the solver account on this chain. */
  walletClient: WalletClient<Transport, Chain, Account>;
}

/** Options of {@link startSolver}. Times in milliseconds. */
export interface SolverOptions {
  state: SandboxState;
  chains: SolverChain[];
  /** Log polling period (default 200). */
  pollMs?: number;
  /** Longest single wait for a sent transaction's receipt before it is retried (default 10 000). */
  receiptTimeoutMs?: number;
}

/** A running solver. `indexTransaction` backs POST /transactions/index. */
export interface Solver extends TransactionIndexer {
  /** Stops polling, cancels pending fill delays and receipt waits, and waits for in-flight work to settle. */
  stop(): Promise<void>;
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
  /** Deposits whose handling threw, by key; retried on their chain's next poll. */
  const retry = new Map<string, ObservedDeposit>();
  const inflight = new Set<Promise<void>>();
  const byId = new Map(opts.chains.map((c) => [c.chainId, c]));
  const nowMs = () => state.nowMs();

  const chainOf = (chainId: number): SolverChain => {
    const c = byId.get(chainId);
    if (!c) throw new Error(`solver has no client for chain ${chainId}`); // chains come from the same table
    return c;
  };

  /** Waits for a broadcast transaction's receipt; null when the solver stops first. */
  function confirm(chainId: number, hash: Hex): Promise<TransactionReceipt | null> {
    return waitMined(chainOf(chainId).publicClient, hash, {
      signal: abort.signal,
      ...(opts.receiptTimeoutMs !== undefined ? { timeoutMs: opts.receiptTimeoutMs } : {}),
      onError: (error, attempt) => log.warn({ err: error, chainId, txHash: hash, attempt }, 'receipt not available yet; retrying'),
    });
  }

  /** Completes a sent transaction's record from its receipt (block, timestamp, fee, outcome). */
  const mined = (sent: OutTx, receipt: TransactionReceipt) => minedOutTx(chainOf(sent.chainId).publicClient, sent, receipt);

  /**
   * Returns a deposit on its chain to `to`; the request ends `refund` with `failReason`, or `failure` when that
   * cannot happen (`UNKNOWN` when it cannot be sent, `TRANSACTION_REVERTED` when it reverts). Under the
   * `refundFailReason` fault nothing is sent: the request ends `failure` with that refundFailReason.
   *
   * @param why the sandbox's own reason, for the logs
   */
  async function refund(record: RequestRecord, deposit: ObservedDeposit, to: Address, failReason: FailReason, why: string) {
    const rlog = log.child({ requestId: record.requestId, orderId: deposit.id, chainId: deposit.chainId });
    const refundFailReason = state.faults.get().refundFailReason;
    if (refundFailReason !== null) {
      state.requests.advance(record, 'failure', { failReason, refundFailReason }, nowMs());
      rlog.warn({ why, refundFailReason }, 'refund leg failed (fault mode); the deposit stays in the depository');
      return;
    }
    const native = deposit.currency === EVM_NATIVE_ADDRESS;
    let hash: Hex;
    try {
      hash = await queue.run(deposit.chainId, () => {
        const c = chainOf(deposit.chainId);
        return native
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
            });
      });
    } catch (error) {
      rlog.error({ err: error, why }, 'refund could not be sent');
      state.requests.advance(record, 'failure', { failReason: 'UNKNOWN' }, nowMs());
      return;
    }
    rlog.info({ why, txHash: hash, to }, 'refund sent');
    const receipt = await confirm(deposit.chainId, hash);
    if (!receipt) return;
    const outTx = await mined(sentOutTx(hash, deposit.chainId, 'refund'), receipt);
    const ok = receipt.status === 'success';
    if (ok) state.requests.advance(record, 'refund', { txHashes: [hash], outTxs: [outTx], failReason }, nowMs());
    else state.requests.advance(record, 'failure', { txHashes: [hash], outTxs: [outTx], failReason: 'TRANSACTION_REVERTED' }, nowMs());
    rlog.info({ why, txHash: hash, ok }, 'refund mined');
  }

  /** Fills a deposit that pays `record`'s order exactly. */
  async function fill(record: RequestRecord, deposit: ObservedDeposit) {
    const order = record.order;
    if (!order) return; // matchDeposit only fills records with an order
    const flog = log.child({ requestId: record.requestId, orderId: order.orderId, chainId: order.destinationChainId });
    state.requests.advance(record, 'pending', { inTxHashes: [deposit.txHash], deposit }, nowMs());
    const faults = state.faults.get();
    flog.info({ txHash: deposit.txHash }, 'deposit indexed; request pending');
    if (faults.delayed) {
      state.requests.advance(record, 'delayed', {}, nowMs());
      flog.warn('fill delayed (fault mode)');
    }
    if (faults.neverFill) return;
    await sleep(faults.fillDelayMs, abort.signal);
    if (abort.signal.aborted) return;
    if (faults.failure) {
      state.requests.advance(record, 'failure', { failReason: faults.failReason }, nowMs());
      flog.warn({ failReason: faults.failReason }, 'fill failed (fault mode); the deposit stays in the depository');
      return;
    }
    if (faults.refund) return refund(record, deposit, order.refundTo, faults.failReason, 'REFUND_REQUESTED');
    const amount = faults.fillAmount === 'minimum' ? order.minimumOut : order.expectedOut;
    let hash: Hex;
    try {
      hash = await queue.run(order.destinationChainId, () => {
        const c = chainOf(order.destinationChainId);
        return order.currencyOut.isNative
          ? c.walletClient.sendTransaction({ to: order.recipient, value: amount })
          : c.walletClient.writeContract({
              address: order.currencyOut.address,
              abi: erc20Abi,
              functionName: 'transfer',
              args: [order.recipient, amount],
            });
      });
    } catch (error) {
      flog.error({ err: error }, 'fill could not be sent');
      state.requests.advance(record, 'failure', { failReason: 'UNKNOWN' }, nowMs());
      return;
    }
    const sent = sentOutTx(hash, order.destinationChainId, 'fill');
    state.requests.advance(record, 'submitted', { txHashes: [hash], outTxs: [sent] }, nowMs());
    flog.info({ txHash: hash, amount: amount.toString() }, 'fill sent');
    const receipt = await confirm(order.destinationChainId, hash);
    if (!receipt) return;
    const outTx = await mined(sent, receipt);
    const ok = receipt.status === 'success';
    if (ok) state.requests.advance(record, 'success', { filledAmount: amount, outTxs: [outTx] }, nowMs());
    else state.requests.advance(record, 'failure', { failReason: 'TRANSACTION_REVERTED', outTxs: [outTx] }, nowMs());
    flog.info({ txHash: hash, ok }, 'fill mined');
  }

  /**
   * A deposit that pays no waiting order exactly: its own request, which ends `failure` with the deposit
   * left in the depository, or (refund fault) is returned to the named order's refund recipient, else the
   * depositor. Either way its failReason is the published one closest to `reason`.
   */
  async function unfilled(deposit: ObservedDeposit, reason: UnfilledReason, failReason: FailReason, refundTo: Address | null) {
    const record = state.requests.addUnmatchedDeposit(randomBytes32(), deposit, nowMs());
    const ulog = log.child({ requestId: record.requestId, orderId: deposit.id, chainId: deposit.chainId, reason, failReason });
    if (!state.faults.get().refund) {
      state.requests.advance(record, 'failure', { failReason }, nowMs());
      ulog.warn({ txHash: deposit.txHash }, 'deposit not filled; it stays in the depository, withdrawable by the depositor');
      return;
    }
    ulog.warn({ txHash: deposit.txHash }, 'deposit not filled; returning it (refund fault)');
    await refund(record, deposit, refundTo ?? deposit.from, failReason, reason);
  }

  /** Handles one deposit once (keyed by chain, tx and log index); on a throw it is queued for the next poll. */
  function handle(deposit: ObservedDeposit): void {
    const key = `${deposit.chainId}:${deposit.txHash.toLowerCase()}:${deposit.logIndex}`;
    if (seen.has(key)) return;
    let work: Promise<void>;
    try {
      const decision = matchDeposit(deposit, state.requests.byOrderId(deposit.id));
      work =
        decision.kind === 'fill'
          ? fill(decision.record, deposit)
          : unfilled(deposit, decision.reason, decision.failReason, decision.claimed?.refundTo ?? null);
    } catch (error) {
      log.error({ err: error, chainId: deposit.chainId, txHash: deposit.txHash }, 'deposit handling failed; retrying on the next poll');
      retry.set(key, deposit);
      return;
    }
    seen.add(key);
    retry.delete(key);
    const tracked = work.catch((error: unknown) => log.error({ err: error }, 'deposit handling failed'));
    inflight.add(tracked);
    void tracked.finally(() => inflight.delete(tracked));
  }

  /** Adds each event's block timestamp (one block read per distinct block). */
  async function withTimestamps(c: SolverChain, events: DepositEvent[]): Promise<ObservedDeposit[]> {
    const times = new Map<bigint, number>();
    const out: ObservedDeposit[] = [];
    for (const e of events) {
      let ts = times.get(e.blockNumber);
      if (ts === undefined) {
        ts = Number((await c.publicClient.getBlock({ blockNumber: e.blockNumber })).timestamp);
        times.set(e.blockNumber, ts);
      }
      out.push({ ...e, blockTimestamp: ts });
    }
    return out;
  }

  async function watch(c: SolverChain, startBlock: bigint): Promise<void> {
    let next = startBlock;
    while (!abort.signal.aborted) {
      for (const d of [...retry.values()]) if (d.chainId === c.chainId) handle(d);
      try {
        const head = await c.publicClient.getBlockNumber({ cacheTime: 0 });
        if (head >= next) {
          const logs = await c.publicClient.getLogs({ address: c.depository, fromBlock: next, toBlock: head });
          const deposits = await withTimestamps(c, decodeDepositLogs(c.chainId, c.depository, logs));
          for (const d of deposits) handle(d);
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
      const deposits = await withTimestamps(c, decodeDepositLogs(chainId, c.depository, receipt.logs));
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
