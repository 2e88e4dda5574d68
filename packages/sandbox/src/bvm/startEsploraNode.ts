/**
 * The sandbox's Bitcoin node (docs/design.md "The local Relay sandbox"): an Esplora-compatible HTTP server on
 * 127.0.0.1 over an in-memory UTXO set that verifies every input signature (P2WPKH, P2TR key path), plus an
 * in-process control API for tests and the sandbox solver: faucet, mining, balances, deposit listing,
 * events, a one-block reorg, and fault hooks. Its mempool follows Bitcoin Core 28's policy where Ballast's
 * money path depends on it: the minimum relay fee, nLockTime finality, full replace-by-fee (BIP-125 rules
 * 2–6) and eviction (`evict`, `evictNextBroadcasts`).
 *
 * Pointing Relay's Bitcoin wallet adapter here: `@relayprotocol/relay-bitcoin-wallet-adapter` broadcasts
 * with relay-sdk's exported `axios` instance to the fixed URL `https://mempool.space/api/tx` (raw hex body,
 * txid text answer) and makes no other call. Its URL is not configurable, but an axios request interceptor
 * can swap the origin: `axios.interceptors.request.use((c) => ({ ...c, url: c.url?.replace('https://mempool.space', node.url) }))`
 * — this server also answers under `/api/…`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transaction } from 'bitcoinjs-lib';
import { pino, type Logger } from 'pino';
import { addressToScript, type BitcoinNetworkName } from './address.ts';
import { addressActivity, listPayments, specBalance, totalBalance, type BitcoinPayment } from './addressIndex.ts';
import { BitcoinTxRejectedError } from './errors.ts';
import { routeEsplora, type EsploraRouteContext } from './esploraRoutes.ts';
import { UtxoLedger, type InvalidatedBlock } from './ledger.ts';
import { EsploraFaults } from './nodeFaults.ts';

/** Options of {@link startEsploraNode}. */
export interface StartEsploraNodeOptions {
  /** Interface to bind; loopback only. */
  host?: '127.0.0.1';
  /** TCP port; 0 or omitted picks a free one. */
  port?: number;
  /** Parent logger (default silent); the node logs under `{component: 'sandbox-esplora'}`. */
  logger?: Logger;
  /** Network in which responses write addresses (default `regtest`: `bcrt1…`). Queries accept every network's form. */
  network?: BitcoinNetworkName;
  /** Minimum relay fee rate, satoshis per virtual byte (default 1n; 0n accepts fee-less transactions). */
  minFeeRateSatPerVb?: bigint;
  /** Incremental relay fee rate a replacement pays on top of what it replaces, satoshis per vbyte (default 1n). */
  incrementalRelayFeeSatPerVb?: bigint;
  /**
   * Full replace-by-fee (default true, as Bitcoin Core 28): any mempool transaction can be replaced by one
   * paying more (BIP-125 rules 2–6). When false only transactions signalling BIP-125 (an input nSequence
   * ≤ 0xfffffffd) can; a conflict with another is refused `txn-mempool-conflict`.
   */
  fullRbf?: boolean;
  /** Clock in unix seconds, for the times of mined blocks and first-seen times (default the system clock). */
  nowSec?: () => number;
}

/** What the node reports to {@link BitcoinSandboxNode.onEvent} listeners. */
export type BitcoinNodeEvent =
  | { type: 'mempool'; txid: string }
  | { type: 'block'; height: number; hash: string; txids: readonly string[] }
  | { type: 'reorg'; height: number; hash: string; returnedToMempool: readonly string[]; removed: readonly string[] }
  /** Transactions gone from the mempool: replaced by `by` (BIP-125), or evicted (expiry, fee spike, fault). */
  | { type: 'removed'; reason: 'replaced' | 'evicted'; txids: readonly string[]; by?: string };

/** A running sandbox Bitcoin node. */
export interface BitcoinSandboxNode {
  /** Base URL of the Esplora API, e.g. `http://127.0.0.1:40123` (also served under `<url>/api`). */
  url: string;
  port: number;
  network: BitcoinNetworkName;
  /** Height of the current tip (genesis is 0). */
  tipHeight(): number;
  /**
   * Mines `blocks` blocks (default 1); the first takes the whole mempool.
   *
   * @returns the new tip height
   */
  mine(blocks?: number): number;
  /**
   * Pays `sats` to `address` in a coinbase-like transaction mined alone in a new block (the mempool is left
   * as it is). Any network's form of the address works (`bcrt1q…`, `bc1p…`, …): the output script counts.
   *
   * @param sats amount in satoshis
   * @returns the funding outpoint
   * @throws BitcoinNodeError `BTC_NODE_BAD_ADDRESS` or `BTC_NODE_BAD_AMOUNT`
   */
  faucet(address: string, sats: bigint): { txid: string; vout: number };
  /**
   * Broadcasts a raw transaction in-process, with the same checks as POST /tx (fault hooks do not apply).
   *
   * @returns the txid
   * @throws BitcoinTxRejectedError with the reason
   */
  broadcast(rawHex: string): string;
  /** funded − spent over confirmed and mempool transactions, in satoshis. @throws BitcoinNodeError `BTC_NODE_BAD_ADDRESS` */
  balance(address: string): bigint;
  /**
   * The Bitcoin balance of docs/relay-contract.md "POST /quote/v2": confirmed funded − confirmed spent − mempool (pending)
   * spent, in satoshis.
   *
   * @throws BitcoinNodeError `BTC_NODE_BAD_ADDRESS`
   */
  specBalance(address: string): bigint;
  /** Every output paying `address`, oldest first (see `BitcoinPayment`). @throws BitcoinNodeError `BTC_NODE_BAD_ADDRESS` */
  listPayments(address: string): BitcoinPayment[];
  /** Confirmations of a transaction: null when unknown, 0 in the mempool, else tip − height + 1. */
  confirmations(txid: string): number | null;
  /** Txids in the mempool, oldest first. */
  mempoolTxids(): string[];
  /** Subscribes to node events; returns the unsubscribe function. Listener errors are logged, not rethrown. */
  onEvent(listener: (event: BitcoinNodeEvent) => void): () => void;
  /** The next `n` POST /tx are answered with the txid but the transaction is not kept. */
  dropNextBroadcasts(n: number): void;
  /** The next `n` requests whose path (without `/api`) starts with `pathPrefix` answer 503. */
  failNextRequests(pathPrefix: string, n: number): void;
  /**
   * Evicts a mempool transaction and its mempool descendants (as after an expiry or a fee spike): GET
   * /tx/:txid answers 404, its inputs are unspent again, the address stats drop it, and it stays valid to
   * broadcast again and mine later.
   *
   * @returns the evicted txids, descendants first
   * @throws BitcoinNodeError `BTC_NODE_NOT_IN_MEMPOOL` when it is not in the mempool
   */
  evict(txid: string): string[];
  /** The next `n` POST /tx that the mempool accepts are answered with the txid, then evicted at once. */
  evictNextBroadcasts(n: number): void;
  /** The next `n` GET /tx/:txid… reads of a mempool transaction answer 404 (a backend that has not seen it). */
  forgetMempoolReads(n: number): void;
  /** Fault counts still pending. */
  pendingFaults(): { dropNextBroadcasts: number; evictNextBroadcasts: number; forgetMempoolReads: number };
  /**
   * Drops the tip block; its transactions go back to the mempool (funding transactions and their spenders
   * vanish).
   *
   * @throws BitcoinNodeError `BTC_NODE_NO_BLOCK_TO_INVALIDATE` at genesis
   */
  invalidateTip(): InvalidatedBlock;
  /** Replaces what GET /fee-estimates answers (confirmation target → sat/vB). */
  setFeeEstimates(estimates: Record<string, number>): void;
  /** Stops the HTTP server (drops open connections). Idempotent. */
  close(): Promise<void>;
}

/** Largest POST body, bytes (a maximal standard transaction is 400 000 weight units, 800 kB of hex at most). */
const MAX_BODY_BYTES = 2_000_000;

/** Default fee estimates, sat/vB, for Esplora's confirmation targets. */
const DEFAULT_FEE_ESTIMATES: Record<string, number> = Object.fromEntries(
  [...Array.from({ length: 25 }, (_v, i) => i + 1), 144, 504, 1008].map((target) => [
    String(target),
    target <= 2 ? 2 : target <= 6 ? 1.5 : 1,
  ]),
);

async function readText(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer; // node:http yields Buffers when no encoding is set
    size += buf.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendJson(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Parses a raw transaction.
 *
 * @throws BitcoinTxRejectedError `BTC_TX_DECODE_FAILED` (RPC -22) when the text is not hex or not a transaction
 */
function decodeTx(rawHex: string): Transaction {
  try {
    if (!/^([0-9a-fA-F]{2})+$/.test(rawHex)) throw new Error('body is not hex');
    return Transaction.fromHex(rawHex);
  } catch (error) {
    throw new BitcoinTxRejectedError(
      'BTC_TX_DECODE_FAILED',
      { reason: 'TX decode failed', rpcCode: -22 },
      'send the raw transaction as hex',
      { cause: error },
    );
  }
}

/**
 * Starts the node with regtest's genesis block at height 0 (`/block-height/0` answers its hash) and an empty
 * mempool.
 *
 * @returns the running node (see {@link BitcoinSandboxNode})
 * @throws the listen error when `port` is taken
 * @example
 * const node = await startEsploraNode();
 * const { txid } = node.faucet('bcrt1q…', 100_000n);
 * const height = await fetch(`${node.url}/blocks/tip/height`).then((r) => r.text()); // "1"
 * await node.close();
 */
export async function startEsploraNode(opts: StartEsploraNodeOptions = {}): Promise<BitcoinSandboxNode> {
  const log = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'sandbox-esplora' });
  const nowSec = opts.nowSec ?? (() => Math.floor(Date.now() / 1000));
  const network = opts.network ?? 'regtest';
  const ledger = new UtxoLedger({
    ...(opts.minFeeRateSatPerVb !== undefined ? { minFeeRateSatPerVb: opts.minFeeRateSatPerVb } : {}),
    ...(opts.incrementalRelayFeeSatPerVb !== undefined ? { incrementalRelayFeeSatPerVb: opts.incrementalRelayFeeSatPerVb } : {}),
    ...(opts.fullRbf !== undefined ? { fullRbf: opts.fullRbf } : {}),
  });
  const faults = new EsploraFaults();
  const listeners = new Set<(event: BitcoinNodeEvent) => void>();
  let feeEstimates = { ...DEFAULT_FEE_ESTIMATES };

  const emit = (event: BitcoinNodeEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        log.error({ err: error, event: event.type }, 'bitcoin node event listener failed');
      }
    }
  };

  const evict = (txid: string, why: string): string[] => {
    const txids = ledger.evict(txid);
    log.info({ txid, evicted: txids }, why);
    emit({ type: 'removed', reason: 'evicted', txids });
    return txids;
  };

  /** Accepts into the mempool; `known` when it was there already. */
  const accept = (rawHex: string): { txid: string; known: boolean } => {
    const tx = decodeTx(rawHex);
    try {
      const { txid, known, replaced } = ledger.accept(tx, nowSec());
      if (replaced.length > 0) {
        log.debug({ txid, replaced }, 'transaction replaced mempool transactions');
        emit({ type: 'removed', reason: 'replaced', txids: replaced, by: txid });
      }
      if (!known) {
        log.debug({ txid }, 'transaction accepted into the mempool');
        emit({ type: 'mempool', txid });
      }
      return { txid, known };
    } catch (error) {
      if (error instanceof BitcoinTxRejectedError)
        log.debug({ code: error.code, reason: error.reason, inputIndex: error.inputIndex }, 'transaction rejected');
      throw error;
    }
  };
  const broadcast = (rawHex: string): string => accept(rawHex).txid;

  const ctx: EsploraRouteContext = {
    ledger,
    network,
    feeEstimates: () => feeEstimates,
    broadcast: (rawHex) => {
      const txid = decodeTx(rawHex).getId();
      if (faults.takeDrop()) {
        log.info({ txid }, 'fault: broadcast answered but dropped');
        return txid;
      }
      const accepted = accept(rawHex);
      if (!accepted.known && faults.takeEvict()) evict(accepted.txid, 'fault: broadcast accepted then evicted from the mempool');
      return accepted.txid;
    },
  };
  /** GET /tx/:txid… of a mempool transaction while a forgotten-read fault is pending. */
  const forgetsRead = (method: string | undefined, path: string): boolean => {
    const txid = method === 'GET' ? /^\/tx\/([0-9a-fA-F]{64})(?:\/|$)/.exec(path)?.[1]?.toLowerCase() : undefined;
    return txid !== undefined && ledger.tx(txid) !== undefined && ledger.blockOf(txid) === undefined && faults.takeForgetRead();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.startsWith('/api/') ? url.pathname.slice(4) : url.pathname;
    const body = req.method === 'POST' ? await readText(req) : '';
    if (body === null) {
      sendText(res, 413, `request body is larger than ${MAX_BODY_BYTES} bytes`);
      return;
    }
    if (faults.takeFailure(path)) {
      log.info({ method: req.method, path }, 'fault: answering 503');
      sendText(res, 503, 'Service Unavailable');
      return;
    }
    if (forgetsRead(req.method, path)) {
      log.info({ path }, 'fault: mempool transaction read answered 404');
      sendText(res, 404, 'Transaction not found');
      return;
    }
    const answer = routeEsplora(ctx, req.method ?? 'GET', url.pathname, body);
    if ('json' in answer) sendJson(res, answer.json);
    else sendText(res, answer.status, answer.text);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.error({ err: error, method: req.method, url: req.url }, 'esplora handler failed');
      if (!res.headersSent) sendText(res, 500, 'Internal Server Error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port; // listening on TCP, so address() is an AddressInfo
  const url = `http://127.0.0.1:${port}`;
  log.info({ url, network }, 'esplora node listening');

  const scriptHex = (address: string): string => Buffer.from(addressToScript(address)).toString('hex');
  let closing: Promise<void> | undefined;

  return {
    url,
    port,
    network,
    tipHeight: () => ledger.tip.height,
    mine(blocks = 1) {
      if (!Number.isSafeInteger(blocks) || blocks < 1) throw new RangeError(`mine: blocks must be a positive integer, got ${blocks}`);
      const first = ledger.tip.height + 1;
      const height = ledger.mine(blocks, nowSec());
      for (let h = first; h <= height; h++) {
        const block = ledger.blockAt(h)!; // h ≤ new tip
        emit({ type: 'block', height: h, hash: block.hash, txids: block.txids });
      }
      return height;
    },
    faucet(address, sats) {
      const outpoint = ledger.fund(addressToScript(address), sats, nowSec());
      emit({ type: 'block', height: ledger.tip.height, hash: ledger.tip.hash, txids: ledger.tip.txids });
      return outpoint;
    },
    broadcast,
    balance: (address) => totalBalance(addressActivity(ledger, scriptHex(address))),
    specBalance: (address) => specBalance(addressActivity(ledger, scriptHex(address))),
    listPayments: (address) => listPayments(ledger, scriptHex(address), network),
    confirmations(txid) {
      if (!ledger.tx(txid)) return null;
      const block = ledger.blockOf(txid);
      return block ? ledger.tip.height - block.height + 1 : 0;
    },
    mempoolTxids: () => ledger.mempoolTxids(),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dropNextBroadcasts: (n) => faults.dropNextBroadcasts(n),
    failNextRequests: (prefix, n) => faults.failNextRequests(prefix, n),
    evict: (txid) => evict(txid, 'mempool transaction evicted'),
    evictNextBroadcasts: (n) => faults.evictNextBroadcasts(n),
    forgetMempoolReads: (n) => faults.forgetMempoolReads(n),
    pendingFaults: () => faults.pending(),
    invalidateTip() {
      const undone = ledger.invalidateTip();
      emit({ type: 'reorg', ...undone });
      return undone;
    },
    setFeeEstimates(estimates) {
      feeEstimates = { ...estimates };
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
