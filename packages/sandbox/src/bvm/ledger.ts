/**
 * The in-memory chain behind the sandbox's Bitcoin node: blocks, confirmed transactions, the mempool and an
 * index of which transaction spends which output. Broadcasts go through {@link UtxoLedger.accept}, which
 * applies the shape, standardness and finality policy, resolves every input against the chain and the
 * mempool, checks the minimum relay fee, applies replace-by-fee (BIP-125 under full-RBF, as Bitcoin Core 28
 * does by default; see `replacement.ts`) and verifies every signature before the transaction enters the
 * mempool, evicting what it replaces. {@link UtxoLedger.evict} drops a mempool transaction (expiry, a fee
 * spike) while it stays valid to broadcast again.
 *
 * The chain starts at Bitcoin regtest's genesis header (so `/block-height/0` answers regtest's genesis hash,
 * 0f9188f1…2206, which clients check to know which network a server serves; its coinbase is not held).
 * Blocks made by `mine()` hold the mempool and no coinbase; blocks made by `fund()` hold one coinbase-like
 * funding transaction and nothing else (the mempool is left alone). Block headers are real 80-byte headers
 * (regtest `bits`), so block hashes are double-SHA256 like Bitcoin's. Coinbase maturity is not enforced.
 * Pure: no I/O and no clock (callers pass `nowSec`).
 */
import { Block, script as btcScript, Transaction } from 'bitcoinjs-lib';
import { BitcoinNodeError, BitcoinTxRejectedError } from './errors.ts';
import { checkFinal, checkStandard, checkTxShape, MAX_MONEY_SATS } from './policy.ts';
import { checkMempoolReplacement, signalsOptInRbf, type MempoolView } from './replacement.ts';
import { verifyInputSignatures, type Prevout } from './verifyInputs.ts';

/** A transaction the ledger holds (confirmed or in the mempool). */
export interface LedgerTx {
  /** Transaction id (big-endian hex, as explorers show it). */
  readonly txid: string;
  readonly tx: Transaction;
  /** Serialized transaction, witness included. */
  readonly hex: string;
  /** The output each input spends; null for the coinbase input of a funding transaction. */
  readonly prevouts: readonly (Prevout | null)[];
  /** Fee in satoshis (inputs − outputs); 0 for funding transactions. */
  readonly fee: bigint;
  readonly isCoinbase: boolean;
  /** When the ledger first saw it, unix seconds. */
  readonly firstSeenSec: number;
  /** Arrival order, increasing. */
  readonly seq: number;
}

/** A block of the ledger's chain. */
export interface LedgerBlock {
  /** Block hash (big-endian hex). */
  readonly hash: string;
  readonly height: number;
  /** Hash of the previous block; 64 zeros for genesis. */
  readonly prevHash: string;
  /** Header timestamp, unix seconds. */
  readonly timestampSec: number;
  /** Transactions in block order. */
  readonly txids: readonly string[];
  readonly version: number;
  /** Merkle root (big-endian hex). */
  readonly merkleRoot: string;
  readonly bits: number;
  readonly nonce: number;
  /** The 80-byte header, hex. */
  readonly headerHex: string;
  /** Serialized size in bytes and weight in weight units. */
  readonly size: number;
  readonly weight: number;
}

/** Who spends an output: the spending transaction and its input index. */
export interface Spender {
  txid: string;
  vin: number;
}

/** What {@link UtxoLedger.invalidateTip} undid. */
export interface InvalidatedBlock {
  /** Hash and height of the removed block. */
  hash: string;
  height: number;
  /** Its transactions now back in the mempool, in block order. */
  returnedToMempool: string[];
  /** Transactions gone for good: the block's funding (coinbase) transactions and everything spending them. */
  removed: string[];
}

/** Options of {@link UtxoLedger}. */
export interface UtxoLedgerOptions {
  /**
   * Minimum relay fee rate, satoshis per virtual byte (default 1, Core's `-minrelaytxfee`; 0 accepts
   * fee-less transactions). A transaction paying less than this × its vsize is refused.
   */
  minFeeRateSatPerVb?: bigint;
  /** Incremental relay fee rate a replacement pays on top, satoshis per virtual byte (default 1, Core's `-incrementalrelayfee`). */
  incrementalRelayFeeSatPerVb?: bigint;
  /**
   * Full replace-by-fee (default true, Core 28's `-mempoolfullrbf=1`): any mempool transaction can be
   * replaced. When false only transactions signalling BIP-125 (an input nSequence ≤ 0xfffffffd) can.
   */
  fullRbf?: boolean;
}

/** What {@link UtxoLedger.accept} did. */
export interface AcceptResult {
  txid: string;
  /** True when the transaction was already in the mempool (nothing changed). */
  known: boolean;
  /** Mempool transactions it replaced and evicted (direct conflicts and their descendants); empty when none. */
  replaced: string[];
}

const REGTEST_BITS = 0x207fffff;
/** Header fields of Bitcoin regtest's genesis block (hash 0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206). */
const REGTEST_GENESIS = {
  version: 1,
  /** Merkle root (big-endian hex) of the genesis coinbase, shared by every Bitcoin network. */
  merkleRoot: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
  timestampSec: 1_296_688_602,
  nonce: 2,
} as const;
const BLOCK_VERSION = 0x20000000;
const ZERO_HASH = '0'.repeat(64);

/** Big-endian hex of a little-endian 32-byte hash (how txids and block hashes are displayed). */
function displayHex(internal: Uint8Array): string {
  return Buffer.from(internal).reverse().toString('hex');
}

function outpointKey(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}

function varIntSize(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5;
}

/** Mutable in-memory chain + mempool; see the file comment. */
export class UtxoLedger {
  readonly #txs = new Map<string, LedgerTx>();
  readonly #blocks: LedgerBlock[] = [];
  readonly #blockByHash = new Map<string, LedgerBlock>();
  readonly #heightOf = new Map<string, number>();
  /** Mempool txids in arrival order (parents before children). */
  #mempool = new Set<string>();
  readonly #spends = new Map<string, Spender>();
  readonly #minFeeRate: bigint;
  readonly #incrementalFeeRate: bigint;
  readonly #fullRbf: boolean;
  #seq = 0;
  #nonce = 0;

  /** @throws RangeError when a fee rate is negative */
  constructor(opts: UtxoLedgerOptions = {}) {
    this.#minFeeRate = opts.minFeeRateSatPerVb ?? 1n;
    this.#incrementalFeeRate = opts.incrementalRelayFeeSatPerVb ?? 1n;
    if (this.#minFeeRate < 0n || this.#incrementalFeeRate < 0n) {
      throw new RangeError('UtxoLedger: minFeeRateSatPerVb and incrementalRelayFeeSatPerVb must be ≥ 0 sat/vB');
    }
    this.#fullRbf = opts.fullRbf ?? true;
    this.#appendBlock([], REGTEST_GENESIS.timestampSec, REGTEST_GENESIS);
  }

  /** The current tip block. */
  get tip(): LedgerBlock {
    return this.#blocks[this.#blocks.length - 1]!; // genesis always exists
  }

  /** The block at `height` on the current chain, if any. */
  blockAt(height: number): LedgerBlock | undefined {
    return this.#blocks[height];
  }

  /** A block of the current chain by hash, if any. */
  blockByHash(hash: string): LedgerBlock | undefined {
    return this.#blockByHash.get(hash);
  }

  /** A confirmed or mempool transaction by txid, if any. */
  tx(txid: string): LedgerTx | undefined {
    return this.#txs.get(txid);
  }

  /** The block holding a confirmed transaction; undefined while it is in the mempool (or unknown). */
  blockOf(txid: string): LedgerBlock | undefined {
    const height = this.#heightOf.get(txid);
    return height === undefined ? undefined : this.#blocks[height];
  }

  /** The transaction spending output `vout` of `txid` (confirmed or in the mempool), if any. */
  spenderOf(txid: string, vout: number): Spender | undefined {
    return this.#spends.get(outpointKey(txid, vout));
  }

  /** Mempool txids, oldest first. */
  mempoolTxids(): string[] {
    return [...this.#mempool];
  }

  /** Every transaction the ledger holds: confirmed ones by height then block position, then the mempool. */
  *allTxs(): Generator<LedgerTx> {
    for (const block of this.#blocks) for (const txid of block.txids) yield this.#txs.get(txid)!; // block txids are held
    for (const txid of this.#mempool) yield this.#txs.get(txid)!; // mempool txids are held
  }

  /**
   * Validates a broadcast and adds it to the mempool. A transaction already in the mempool is accepted
   * again without change (`known: true`), as bitcoind's sendrawtransaction does. Checks, in Core's order:
   * shape, standardness, finality (nLockTime), inputs (missing or spent in a block; spent in the mempool by
   * a transaction that may not be replaced), value, minimum relay fee (integer satoshis against
   * rate × vsize), then for a transaction spending what mempool transactions spend, the BIP-125 rules
   * (`replacement.ts`), then signatures. An accepted replacement evicts its conflicts and their descendants.
   *
   * @param nowSec current time, unix seconds (recorded as first-seen)
   * @returns the txid, whether it was already in the mempool, and what it replaced
   * @throws BitcoinTxRejectedError with the first reason found (see {@link BitcoinTxRejectedError})
   */
  accept(tx: Transaction, nowSec: number): AcceptResult {
    const txid = tx.getId();
    if (this.#mempool.has(txid)) return { txid, known: true, replaced: [] };
    if (this.#heightOf.has(txid)) {
      throw new BitcoinTxRejectedError('BTC_TX_ALREADY_CONFIRMED', { reason: 'Transaction already in block chain', rpcCode: -27 });
    }
    checkTxShape(tx);
    checkStandard(tx);
    checkFinal(tx, this.tip.height, this.tip.timestampSec);
    const conflicts = new Set<string>();
    const prevouts = tx.ins.map((input, inputIndex): Prevout => {
      const prevTxid = displayHex(input.hash);
      const spender = this.#spends.get(outpointKey(prevTxid, input.index));
      const prevOut = this.#txs.get(prevTxid)?.tx.outs[input.index];
      if (spender !== undefined && this.#mempool.has(spender.txid) && prevOut !== undefined) {
        const original = this.#txs.get(spender.txid)!; // mempool txids are held
        if (!this.#fullRbf && !signalsOptInRbf(original.tx)) {
          throw new BitcoinTxRejectedError(
            'BTC_TX_MEMPOOL_CONFLICT',
            { reason: 'txn-mempool-conflict', inputIndex },
            `${prevTxid}:${input.index} is already spent by mempool transaction ${spender.txid}, which does not signal BIP-125 replaceability`,
          );
        }
        conflicts.add(spender.txid);
        return { script: prevOut.script, value: prevOut.value };
      }
      if (spender !== undefined || prevOut === undefined) {
        throw new BitcoinTxRejectedError(
          'BTC_TX_INPUT_MISSING_OR_SPENT',
          { reason: 'bad-txns-inputs-missingorspent', rpcCode: -25, inputIndex },
          spender !== undefined ? `${prevTxid}:${input.index} is spent by ${spender.txid}` : `${prevTxid}:${input.index} does not exist`,
        );
      }
      return { script: prevOut.script, value: prevOut.value };
    });
    const valueIn = prevouts.reduce((sum, p) => sum + p.value, 0n);
    const valueOut = tx.outs.reduce((sum, o) => sum + o.value, 0n);
    if (valueOut > valueIn) {
      throw new BitcoinTxRejectedError('BTC_TX_IN_BELOW_OUT', {
        reason: `bad-txns-in-belowout, value in (${valueIn}) < value out (${valueOut})`,
      });
    }
    const fee = valueIn - valueOut;
    const minFee = BigInt(tx.virtualSize()) * this.#minFeeRate;
    if (fee < minFee) {
      throw new BitcoinTxRejectedError(
        'BTC_TX_FEE_TOO_LOW',
        { reason: `min relay fee not met, ${fee} < ${minFee}` },
        `pay at least ${this.#minFeeRate} sat/vB`,
      );
    }
    if (conflicts.size > 0) {
      const view: MempoolView = {
        tx: (id) => this.#txs.get(id),
        spenderOf: (id, vout) => this.spenderOf(id, vout),
        inMempool: (id) => this.#mempool.has(id),
      };
      checkMempoolReplacement(view, { tx, txid, fee }, conflicts, this.#incrementalFeeRate);
    }
    verifyInputSignatures(tx, prevouts);
    const replaced: string[] = [];
    for (const conflict of conflicts) this.#remove(conflict, replaced);
    this.#insert({ txid, tx, hex: tx.toHex(), prevouts, fee, isCoinbase: false, firstSeenSec: nowSec, seq: ++this.#seq });
    this.#mempool.add(txid);
    return { txid, known: false, replaced };
  }

  /**
   * Drops a mempool transaction and its mempool descendants, as a node does when they expire or are evicted
   * in a fee spike: they are forgotten (no longer served), their inputs are unspent again, and each stays a
   * valid transaction that can be broadcast again and mined.
   *
   * @returns the evicted txids, descendants before their parents
   * @throws BitcoinNodeError `BTC_NODE_NOT_IN_MEMPOOL` when `txid` is not in the mempool (unknown or mined)
   */
  evict(txid: string): string[] {
    if (!this.#mempool.has(txid)) {
      throw new BitcoinNodeError(
        'BTC_NODE_NOT_IN_MEMPOOL',
        `${txid} is not in the mempool (${this.#heightOf.has(txid) ? 'it is mined' : 'unknown'}); only mempool transactions can be evicted`,
      );
    }
    const removed: string[] = [];
    this.#remove(txid, removed);
    return removed;
  }

  /**
   * Mines `count` blocks; the first takes the whole mempool, the rest are empty.
   *
   * @returns the new tip height
   */
  mine(count: number, nowSec: number): number {
    for (let i = 0; i < count; i++) {
      const txids = [...this.#mempool];
      this.#mempool = new Set();
      this.#appendBlock(txids, nowSec);
    }
    return this.tip.height;
  }

  /**
   * Creates a coinbase-like transaction paying `sats` to `script` and mines it alone in a new block.
   *
   * @param sats amount in satoshis, 1 to 21 000 000 BTC
   * @returns the funding outpoint (vout is always 0)
   * @throws BitcoinNodeError `BTC_NODE_BAD_AMOUNT` when `sats` is out of range
   */
  fund(script: Uint8Array, sats: bigint, nowSec: number): { txid: string; vout: number } {
    if (sats <= 0n || sats > MAX_MONEY_SATS) {
      throw new BitcoinNodeError('BTC_NODE_BAD_AMOUNT', `faucet amount must be 1..${MAX_MONEY_SATS} sat, got ${sats}`);
    }
    const height = this.tip.height + 1;
    const tag = Buffer.alloc(4);
    tag.writeUInt32LE(++this.#seq);
    const tx = new Transaction();
    tx.version = 2;
    tx.addInput(new Uint8Array(32), 0xffffffff, 0xffffffff, btcScript.compile([btcScript.number.encode(height), tag]));
    tx.addOutput(script, sats);
    const txid = tx.getId();
    this.#insert({ txid, tx, hex: tx.toHex(), prevouts: [null], fee: 0n, isCoinbase: true, firstSeenSec: nowSec, seq: this.#seq });
    this.#appendBlock([txid], nowSec);
    return { txid, vout: 0 };
  }

  /**
   * Disconnects the tip block (a one-block reorg): its transactions go back to the front of the mempool,
   * except funding (coinbase) transactions, which disappear together with every transaction spending them.
   *
   * @throws BitcoinNodeError `BTC_NODE_NO_BLOCK_TO_INVALIDATE` at genesis
   */
  invalidateTip(): InvalidatedBlock {
    const block = this.tip;
    if (block.height === 0)
      throw new BitcoinNodeError('BTC_NODE_NO_BLOCK_TO_INVALIDATE', 'the tip is the genesis block; mine or fund first');
    this.#blocks.pop();
    this.#blockByHash.delete(block.hash);
    for (const txid of block.txids) this.#heightOf.delete(txid);
    const returned = block.txids.filter((txid) => !this.#txs.get(txid)?.isCoinbase);
    this.#mempool = new Set([...returned, ...this.#mempool]);
    const removed: string[] = [];
    for (const txid of block.txids) if (this.#txs.get(txid)?.isCoinbase) this.#remove(txid, removed);
    return { hash: block.hash, height: block.height, returnedToMempool: returned.filter((t) => this.#txs.has(t)), removed };
  }

  #insert(entry: LedgerTx): void {
    this.#txs.set(entry.txid, entry);
    if (entry.isCoinbase) return;
    entry.tx.ins.forEach((input, vin) => this.#spends.set(outpointKey(displayHex(input.hash), input.index), { txid: entry.txid, vin }));
  }

  /** Removes a transaction and, first, everything spending its outputs. */
  #remove(txid: string, removed: string[]): void {
    const entry = this.#txs.get(txid);
    if (entry === undefined) return;
    entry.tx.outs.forEach((_out, vout) => {
      const spender = this.#spends.get(outpointKey(txid, vout));
      if (spender !== undefined) this.#remove(spender.txid, removed);
    });
    if (!entry.isCoinbase) for (const input of entry.tx.ins) this.#spends.delete(outpointKey(displayHex(input.hash), input.index));
    this.#txs.delete(txid);
    this.#mempool.delete(txid);
    this.#heightOf.delete(txid);
    removed.push(txid);
  }

  /** Appends a block of `txids`; `genesis` gives the fixed header fields of the first block. */
  #appendBlock(txids: string[], nowSec: number, genesis?: typeof REGTEST_GENESIS): void {
    const prev = this.#blocks[this.#blocks.length - 1];
    const txs = txids.map((txid) => this.#txs.get(txid)!.tx); // callers pass held txids
    const header = new Block();
    header.version = genesis?.version ?? BLOCK_VERSION;
    header.prevHash = Buffer.from(prev?.hash ?? ZERO_HASH, 'hex').reverse();
    header.merkleRoot = genesis
      ? Buffer.from(genesis.merkleRoot, 'hex').reverse()
      : txs.length > 0
        ? Block.calculateMerkleRoot(txs)
        : new Uint8Array(32);
    header.timestamp = Math.max(Math.floor(nowSec), prev?.timestampSec ?? 0);
    header.bits = REGTEST_BITS;
    header.nonce = genesis?.nonce ?? this.#nonce++;
    const block: LedgerBlock = {
      hash: header.getId(),
      height: this.#blocks.length,
      prevHash: prev?.hash ?? ZERO_HASH,
      timestampSec: header.timestamp,
      txids,
      version: header.version,
      merkleRoot: displayHex(header.merkleRoot),
      bits: header.bits,
      nonce: header.nonce,
      headerHex: header.toHex(true),
      size: 80 + varIntSize(txs.length) + txs.reduce((sum, tx) => sum + tx.byteLength(), 0),
      weight: 4 * (80 + varIntSize(txs.length)) + txs.reduce((sum, tx) => sum + tx.weight(), 0),
    };
    this.#blocks.push(block);
    this.#blockByHash.set(block.hash, block);
    for (const txid of txids) this.#heightOf.set(txid, block.height);
  }
}
