/**
 * The sandbox solver: watches the depository of every chain it serves — EVM deposit events (eth_getLogs
 * polling), Solana depository deposits (the node's `listDeposits`), Bitcoin payments to the depository address
 * (the node's `listPayments`, mempool included) — matches each deposit to a quoted order and fills it on the
 * destination chain from the solver's wallet there (`depositHandler.ts`; one `SolverLeg` per chain). Bitcoin
 * deposits turn `pending` when seen in the mempool and are processed after 1 confirmation, 2 from the
 * high-value threshold on (docs/relay-contract.md "States and transitions", Bitcoin 1–2).
 */
import { setMaxListeners } from 'node:events';
import type { Account, Address, Chain, Hex, PublicClient, Transport, WalletClient } from 'viem';
import type { ObservedDeposit } from '../api/requestStore.ts';
import type { SandboxState, TransactionIndexer } from '../api/state.ts';
import type { BitcoinSandboxNode } from '../bvm/startEsploraNode.ts';
import type { BitcoinCoin } from '../quote/bvmSteps.ts';
import type { SolanaSandboxNode } from '../svm/startSolanaNode.ts';
import type { BtcKeyWallet } from './btcWallet.ts';
import { createBvmLeg } from './bvmLeg.ts';
import { bitcoinDeposit, requiredConfirmations, waitConfirmations, watchBitcoin } from './bvmWatch.ts';
import { createDepositHandler, type DepositReadiness } from './depositHandler.ts';
import { followHeads } from './evmHeads.ts';
import { createEvmLeg } from './evmLeg.ts';
import { evmTransactionDeposits, watchEvm } from './evmWatch.ts';
import type { SolverLeg } from './legs.ts';
import { SerialQueue } from './serialQueue.ts';
import { createSvmLeg } from './svmLeg.ts';
import { solanaDeposit, watchSolana } from './svmWatch.ts';

/** An EVM chain the solver works on. */
export interface SolverChain {
  chainId: number;
  depository: Address;
  publicClient: PublicClient<Transport, Chain>;
  /** Wallet client of the solver account on this chain. */
  walletClient: WalletClient<Transport, Chain, Account>;
  /** The node's WebSocket endpoint: the watch follows its new heads (evmHeads.ts); absent: it polls the head. */
  wsUrl?: string;
}

/** The Bitcoin side of the solver. Amounts in satoshis. */
export interface SolverBitcoin {
  node: BitcoinSandboxNode;
  /** The solver's own wallet (fills). */
  wallet: BtcKeyWallet;
  /** The depository address's key (refunds). */
  depository: BtcKeyWallet;
  /** Deposits of at least this many satoshis wait for 2 confirmations, smaller ones for 1. */
  highValueSats: bigint;
  /** Unspent outputs of an address, mempool ones included. */
  coins(address: string): Promise<BitcoinCoin[]>;
  /** Fee rate, sat/vB. */
  feeRate(): Promise<bigint>;
}

/** Options of {@link startSolver}. Times in milliseconds. */
export interface SolverOptions {
  state: SandboxState;
  chains: SolverChain[];
  /** The Solana node, when the sandbox serves Solana (its chain entry is in `state.vm`). */
  solana?: { node: SolanaSandboxNode };
  /** The Bitcoin node and keys, when the sandbox serves Bitcoin (its chain entry is in `state.vm`). */
  bitcoin?: SolverBitcoin;
  /** Polling period of every watch (default 200). */
  pollMs?: number;
  /** Longest single wait for a sent EVM transaction's receipt before it is retried (default 10 000). */
  receiptTimeoutMs?: number;
}

/** A running solver. `indexTransaction` / `indexVmTransaction` back POST /transactions/index. */
export interface Solver extends TransactionIndexer {
  /** Stops polling, cancels pending fill delays and waits, and waits for in-flight work to settle. */
  stop(): Promise<void>;
}

/**
 * Starts the solver. EVM deposits in blocks up to the current head and Solana deposits up to the current slot
 * are ignored (the watch starts after them); older ones can still be picked up through POST
 * /transactions/index. Every payment to the Bitcoin depository is considered.
 *
 * @throws viem errors when a chain's block number cannot be read at start; Error when `solana` / `bitcoin` is
 *   given but `state.vm` lists no such chain
 */
export async function startSolver(opts: SolverOptions): Promise<Solver> {
  const { state } = opts;
  const pollMs = opts.pollMs ?? 200;
  const log = state.logger.child({ component: 'sandbox-solver' });
  const abort = new AbortController();
  // Every pending leg sleeps on this one signal; more than 10 at once is normal, not a listener leak.
  setMaxListeners(0, abort.signal);
  const queue = new SerialQueue();
  const nowSec = () => Math.floor(state.nowMs() / 1000);
  const ctx = {
    queue,
    signal: abort.signal,
    log,
    ...(opts.receiptTimeoutMs !== undefined ? { receiptTimeoutMs: opts.receiptTimeoutMs } : {}),
  };
  const legs = new Map<number, SolverLeg>(opts.chains.map((c) => [c.chainId, createEvmLeg(c, ctx)]));
  const vmChain = (vm: 'svm' | 'bvm') => {
    const chain = state.vm?.chains.find((c) => c.vmType === vm);
    if (!chain) throw new Error(`the solver was given a ${vm} node but state.vm lists no ${vm} chain`);
    return chain;
  };
  const solana = opts.solana ? { ...opts.solana, chain: vmChain('svm') } : null;
  const bitcoin = opts.bitcoin ? { ...opts.bitcoin, chain: vmChain('bvm') } : null;
  if (solana) legs.set(solana.chain.chainId, createSvmLeg(solana.node, solana.chain.chainId, queue, nowSec));
  if (bitcoin) {
    legs.set(
      bitcoin.chain.chainId,
      createBvmLeg({ ...bitcoin, chainId: bitcoin.chain.chainId, queue, signal: abort.signal, pollMs, nowSec }),
    );
  }
  const handler = createDepositHandler({ state, legs, signal: abort.signal, log });

  /** Bitcoin: the confirmation rule as a readiness wait, resolving the deposit with its block height. */
  const bitcoinReadiness = (deposit: ObservedDeposit): DepositReadiness | undefined => {
    if (!bitcoin) return undefined;
    return async () => {
      const needed = requiredConfirmations(deposit.amount, bitcoin.highValueSats);
      if (!(await waitConfirmations(bitcoin.node, deposit.txHash, needed, abort.signal, pollMs))) return null;
      const now = bitcoin.node.listPayments(bitcoin.chain.depository).find((p) => p.txid === deposit.txHash && p.vout === deposit.logIndex);
      return now ? bitcoinDeposit(deposit.chainId, now, nowSec()) : deposit;
    };
  };

  const heads = await Promise.all(opts.chains.map((c) => c.publicClient.getBlockNumber({ cacheTime: 0 })));
  const followers = opts.chains.map((c, i) =>
    c.wsUrl === undefined ? undefined : followHeads(c.wsUrl, c.publicClient.chain, heads[i] ?? 0n, log),
  );
  const loops: Promise<void>[] = opts.chains.map((c, i) => {
    const follower = followers[i];
    return watchEvm({
      chain: c,
      startBlock: (heads[i] ?? 0n) + 1n,
      signal: abort.signal,
      pollMs,
      beforePoll: () => handler.retryFor(c.chainId),
      onDeposit: (d) => handler.handle(d),
      log,
      ...(follower ? { heads: follower } : {}),
    });
  });
  if (solana) {
    const chainId = solana.chain.chainId;
    loops.push(
      watchSolana({
        node: solana.node,
        chainId,
        fromSlot: solana.node.slot() + 1,
        signal: abort.signal,
        pollMs,
        nowSec,
        onDeposit: (d) => handler.handle(d),
        log,
      }),
    );
  }
  if (bitcoin) {
    loops.push(
      watchBitcoin({
        node: bitcoin.node,
        chainId: bitcoin.chain.chainId,
        depository: bitcoin.chain.depository,
        signal: abort.signal,
        pollMs,
        nowSec,
        onDeposit: (d) => handler.handle(d, bitcoinReadiness(d)),
        log,
      }),
    );
  }
  log.info({ chains: [...legs.keys()] }, 'solver watching depositories');

  return {
    async indexTransaction(chainId, txHash: Hex) {
      const c = opts.chains.find((x) => x.chainId === chainId);
      if (!c) throw new Error(`solver has no client for chain ${chainId}`); // chains come from the same table
      const deposits = await evmTransactionDeposits(c, txHash);
      if (deposits === null) return null;
      for (const d of deposits) handler.handle(d);
      return deposits.length;
    },
    async indexVmTransaction(chainId, txId) {
      if (solana && chainId === solana.chain.chainId) {
        const found = solana.node.listDeposits().filter((d) => d.signature === txId);
        for (const d of found) handler.handle(solanaDeposit(chainId, d, nowSec()));
        return found.length > 0 ? found.length : (await solanaSignatureKnown(solana.node.rpcUrl, txId)) ? 0 : null;
      }
      if (bitcoin && chainId === bitcoin.chain.chainId) {
        if ((bitcoin.node.confirmations(txId) ?? 0) < 1) return null; // docs/relay-contract.md "Errors": 404 until mined
        const found = bitcoin.node.listPayments(bitcoin.chain.depository).filter((p) => p.txid === txId);
        for (const p of found) {
          const d = bitcoinDeposit(chainId, p, nowSec());
          handler.handle(d, bitcoinReadiness(d));
        }
        return found.length;
      }
      throw new Error(`solver serves no Solana or Bitcoin chain ${chainId}`);
    },
    async stop() {
      abort.abort();
      for (const f of followers) f?.close();
      await Promise.allSettled(loops);
      await handler.settled();
    },
  };
}

/** Whether the Solana node knows a signature (JSON-RPC `getSignatureStatuses` with history). */
async function solanaSignatureKnown(rpcUrl: string, signature: string): Promise<boolean> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignatureStatuses',
      params: [[signature], { searchTransactionHistory: true }],
    }),
  });
  const body = (await res.json()) as { result?: { value?: unknown[] } }; // JSON-RPC answer; only `result.value[0]` is read
  return (body.result?.value?.[0] ?? null) !== null;
}
