/**
 * An in-memory Bitcoin chain for the model tests: transactions parsed with bitcoinjs-lib (txid, outpoints,
 * outputs, vsize), blocks with heights and hashes, one node's mempool under Bitcoin Core's policy
 * (btcMempool.ts: the mempool minimum fee, full-RBF by BIP-125 rules 2–6, trimming by descendant score when the
 * minimum rises, blocks assembled by package fee rate against a clearing rate), eviction (the transaction stays
 * valid and can come back), and reorgs (the last blocks replaced; their transactions back to the mempool or
 * forgotten). Signatures are not checked: only Ballast signs, and its signer checks its own. Every read takes
 * a {@link View} so a lagging backend answers from an older height without the mempool. Pure: no I/O, no
 * clock (callers pass times). Amounts are satoshis.
 */
import { Transaction } from 'bitcoinjs-lib';
import { createHash } from 'node:crypto';
import { admit, assembleBlock, BtcRejectError, descendantsOf, nextToTrim, type PoolView } from './btcMempool.ts';

export { BtcRejectError };

/** Regtest's genesis block hash, which Ballast checks (`/block-height/0`) to know the network. */
export const REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
/** Clearing rate of the model's original flat market, sat/vB: what {@link BtcChain.mine} uses by default. */
export const LEGACY_CLEARING_SAT_PER_VB = 5n;

/** An output: script (hex) and value. */
export interface BtcOutput {
  script: string;
  value: bigint;
}

/** A parsed transaction. `coinbase`: a funding transaction whose input spends nothing. */
export interface BtcTx {
  txid: string;
  hex: string;
  inputs: { txid: string; vout: number }[];
  outputs: BtcOutput[];
  vsize: number;
  coinbase: boolean;
}

/** A block of the canonical chain. */
export interface BtcBlock {
  height: number;
  hash: string;
  timeMs: number;
  txids: string[];
}

/** What a read sees: blocks up to `height`, and the mempool or not (a lagging backend sees none of it). */
export interface View {
  height: number;
  mempool: boolean;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const key = (txid: string, vout: number) => `${txid}:${vout}`;

/** Parses a raw transaction (hex, witness included). @throws Error when it is not one */
export function parseBtcTx(hex: string, coinbase = false): BtcTx {
  const tx = Transaction.fromHex(hex);
  return {
    txid: tx.getId(),
    hex: tx.toHex(),
    inputs: tx.ins.map((i) => ({ txid: Buffer.from(i.hash).reverse().toString('hex'), vout: i.index })),
    outputs: tx.outs.map((o) => ({ script: Buffer.from(o.script).toString('hex'), value: BigInt(o.value) })),
    vsize: tx.virtualSize(),
    coinbase,
  };
}

/**
 * Builds an unsigned transaction (with a 72+33-byte dummy witness per input, so its vsize is a signed one's):
 * funding transactions (no inputs: one input spending nothing) and the solver's refunds.
 */
export function buildBtcTx(inputs: readonly { txid: string; vout: number }[], outputs: readonly BtcOutput[], label: string): BtcTx {
  const tx = new Transaction();
  tx.version = 2;
  const coinbase = inputs.length === 0;
  if (coinbase) tx.addInput(Buffer.from(sha(label), 'hex'), 0xffffffff);
  for (const i of inputs) tx.addInput(Buffer.from(i.txid, 'hex').reverse(), i.vout, 0xfffffffd);
  for (const o of outputs) tx.addOutput(Buffer.from(o.script, 'hex'), o.value);
  tx.ins.forEach((_, n) => tx.setWitness(n, [new Uint8Array(72), new Uint8Array(33)]));
  return parseBtcTx(tx.toHex(), coinbase);
}

/** The chain and one node's mempool. */
export class BtcChain implements PoolView {
  readonly blocks: BtcBlock[];
  /** Every transaction anyone ever broadcast or mined, by txid (valid or not: a replaced one stays here). */
  readonly txs = new Map<string, BtcTx>();
  /** The node's mempool: txid → the height before which it is not mined (a low fee stuck under the market). */
  readonly mempool = new Map<string, number>();
  /** The node's mempool minimum fee, sat/vB (1: the minimum relay fee only); see {@link setMinFee}. */
  minFeeSatPerVb = 1n;
  private minedAt = new Map<string, number>();
  private spentBy = new Map<string, string>();
  private salt = 0;

  constructor(genesisMs: number) {
    this.blocks = [{ height: 0, hash: REGTEST_GENESIS, timeMs: genesisMs, txids: [] }];
  }

  /** Height of the tip. */
  head(): number {
    return this.blocks.length - 1;
  }

  /** A transaction anyone broadcast or mined (PoolView). */
  tx(txid: string): BtcTx | undefined {
    return this.txs.get(txid);
  }

  /** Fee of a known transaction whose prevouts are known, satoshis (PoolView; 0 when one is not). */
  feeOf(txid: string): bigint {
    return this.fee(this.txs.get(txid)!) ?? 0n;
  }

  /** Whether the node's mempool holds a transaction. */
  inMempool(txid: string): boolean {
    return this.mempool.has(txid);
  }

  /** Whether a transaction is in a canonical block. */
  mined(txid: string): boolean {
    return this.minedAt.has(txid);
  }

  /** Txids in the node's mempool, oldest first. */
  mempoolIds(): string[] {
    return [...this.mempool.keys()];
  }

  /** The view of an up-to-date backend. */
  tipView(): View {
    return { height: this.head(), mempool: true };
  }

  /** Height of the canonical block holding `txid`, if mined at or below `view.height`. */
  heightOf(txid: string, view: View = this.tipView()): number | undefined {
    const h = this.minedAt.get(txid);
    return h !== undefined && h <= view.height ? h : undefined;
  }

  /** Confirmations of a mined transaction at the head (1 in the tip block), 0 when unmined. */
  depth(txid: string): number {
    const h = this.minedAt.get(txid);
    return h === undefined ? 0 : this.head() - h + 1;
  }

  /** Whether the node's view holds the transaction: mined in it or in its mempool. */
  knows(txid: string, view: View): boolean {
    return this.heightOf(txid, view) !== undefined || (view.mempool && this.mempool.has(txid));
  }

  /** The output an input spends, if its transaction is known. */
  prevout(input: { txid: string; vout: number }): BtcOutput | undefined {
    return this.txs.get(input.txid)?.outputs[input.vout];
  }

  /** Fee of a transaction (inputs − outputs), or null when a prevout is unknown; 0 for funding. */
  fee(tx: BtcTx): bigint | null {
    if (tx.coinbase) return 0n;
    let total = 0n;
    for (const i of tx.inputs) {
      const p = this.prevout(i);
      if (!p) return null;
      total += p.value;
    }
    return total - tx.outputs.reduce((s, o) => s + o.value, 0n);
  }

  /** Who spends an output in `view`: a mined transaction (with its height) or one in the mempool. */
  spenderOf(txid: string, vout: number, view: View = this.tipView()): { txid: string; height: number | null } | undefined {
    const mined = this.spentBy.get(key(txid, vout));
    if (mined !== undefined && this.heightOf(mined, view) !== undefined) return { txid: mined, height: this.minedAt.get(mined)! };
    if (!view.mempool) return undefined;
    for (const id of this.mempool.keys()) {
      if (this.txs.get(id)!.inputs.some((i) => i.txid === txid && i.vout === vout)) return { txid: id, height: null };
    }
    return undefined;
  }

  /**
   * Accepts a transaction into the mempool under the node's policy (btcMempool.ts `admit`), replacing
   * conflicting mempool spends and their descendants by full-RBF.
   *
   * @param notBeforeHeight not mined in a block below this height (default: the next block)
   * @returns the txids it replaced (with their descendants)
   * @throws BtcRejectError with bitcoind's reason: already mined, inputs missing or spent, fee below the
   *   mempool or relay minimum, or a replacement breaking BIP-125 rules 2–6
   */
  submit(tx: BtcTx, notBeforeHeight = 0): string[] {
    if (this.minedAt.has(tx.txid)) throw new BtcRejectError('Transaction already in block chain');
    if (this.mempool.has(tx.txid)) return [];
    this.txs.set(tx.txid, this.txs.get(tx.txid) ?? tx);
    if (tx.coinbase) throw new BtcRejectError('coinbase');
    const conflicts = new Set<string>();
    for (const i of tx.inputs) {
      const parent = this.prevout(i);
      const parentLive = this.minedAt.has(i.txid) || this.mempool.has(i.txid);
      if (!parent || !parentLive) throw new BtcRejectError('bad-txns-inputs-missingorspent');
      const spender = this.spenderOf(i.txid, i.vout);
      if (spender?.height !== null && spender !== undefined) throw new BtcRejectError('bad-txns-inputs-missingorspent');
      if (spender) conflicts.add(spender.txid);
    }
    const fee = this.fee(tx)!; // every prevout was found above
    if (fee < 0n) throw new BtcRejectError('bad-txns-in-belowout');
    const replaced = admit(this, tx, fee, conflicts, this.minFeeSatPerVb);
    for (const r of replaced) this.mempool.delete(r);
    this.mempool.set(tx.txid, notBeforeHeight);
    return [...replaced];
  }

  /**
   * Sets the node's mempool minimum fee and trims the mempool to it: lowest descendant score first, each with
   * its descendants (btcMempool.ts `nextToTrim`). The trimmed transactions stay valid elsewhere.
   *
   * @param satPerVb the new minimum, sat/vB (1: the relay minimum only)
   * @returns the txids trimmed, in the order they went
   */
  setMinFee(satPerVb: bigint): string[] {
    this.minFeeSatPerVb = satPerVb;
    const gone: string[] = [];
    for (let id = nextToTrim(this, satPerVb); id !== undefined; id = nextToTrim(this, satPerVb)) gone.push(...this.evict(id));
    return gone;
  }

  /** Forgets a mempool transaction and its descendants (evicted by this node; still valid elsewhere). */
  evict(txid: string): string[] {
    if (!this.mempool.has(txid)) return [];
    const gone = [txid, ...descendantsOf(this, txid)];
    for (const id of gone) this.mempool.delete(id);
    return gone;
  }

  /** Builds and accepts a transaction needing no signature (the solver's refund). @throws BtcRejectError as {@link submit} */
  systemSpend(inputs: readonly { txid: string; vout: number }[], outputs: readonly BtcOutput[], label: string): BtcTx {
    const tx = buildBtcTx(inputs, outputs, label);
    this.submit(tx);
    return tx;
  }

  /** Mines a funding transaction in a block of its own. */
  fund(outputs: readonly BtcOutput[], timeMs: number): BtcTx {
    const tx = buildBtcTx([], outputs, `fund-${this.salt++}`);
    this.txs.set(tx.txid, tx);
    this.pushBlock([tx.txid], timeMs);
    return tx;
  }

  /**
   * Mines one block: the due mempool transactions whose package (with their unmined ancestors) pays at least
   * `clearing` sat/vB (btcMempool.ts `assembleBlock`), parents first; an empty block for null.
   */
  mine(timeMs: number, clearing: bigint | null = LEGACY_CLEARING_SAT_PER_VB): BtcBlock {
    const height = this.blocks.length;
    const txids = clearing === null ? [] : assembleBlock(this, clearing, (id) => (this.mempool.get(id) ?? 0) <= height);
    for (const id of txids) this.mempool.delete(id);
    return this.pushBlock(txids, timeMs);
  }

  /**
   * Replaces the last `depth` blocks (never the funding blocks: height ≥ `floor`) with `depth + 1` empty ones.
   * Their transactions go back to the mempool (`mempool`) or are forgotten with their mempool descendants
   * (`vanish`: the node lost them; returned, they are still valid elsewhere).
   *
   * @returns the txids the node forgot
   */
  reorg(depth: number, mode: 'mempool' | 'vanish', timeMs: number, floor: number): string[] {
    const keep = Math.max(floor, this.blocks.length - depth);
    const removed = this.blocks.splice(keep);
    const txids = removed.flatMap((b) => b.txids);
    this.rebuildIndex();
    const forgotten: string[] = [];
    for (const id of txids) {
      if (mode === 'mempool') this.mempool.set(id, 0);
      else forgotten.push(id);
    }
    if (mode === 'vanish') for (const id of txids) forgotten.push(...this.evictChildrenOf(id));
    for (let i = 0; i <= removed.length; i++) this.mine(timeMs, null);
    return forgotten;
  }

  private evictChildrenOf(txid: string): string[] {
    const gone = [...descendantsOf(this, txid)];
    for (const id of gone) this.mempool.delete(id);
    return gone;
  }

  private rebuildIndex(): void {
    this.minedAt = new Map();
    this.spentBy = new Map();
    for (const b of this.blocks) {
      for (const id of b.txids) {
        this.minedAt.set(id, b.height);
        for (const i of this.txs.get(id)!.inputs) this.spentBy.set(key(i.txid, i.vout), id);
      }
    }
  }

  private pushBlock(txids: string[], timeMs: number): BtcBlock {
    const height = this.blocks.length;
    const block = { height, hash: sha(`block-${height}-${this.salt++}`), timeMs, txids };
    this.blocks.push(block);
    for (const id of txids) {
      this.minedAt.set(id, height);
      for (const i of this.txs.get(id)!.inputs) this.spentBy.set(key(i.txid, i.vout), id);
    }
    // Mempool transactions that now conflict with a mined one can never be mined: the node drops them.
    for (const id of [...this.mempool.keys()]) {
      const tx = this.txs.get(id)!;
      if (tx.inputs.some((i) => this.spentBy.has(key(i.txid, i.vout)) && this.spentBy.get(key(i.txid, i.vout)) !== id)) this.evict(id);
    }
    return block;
  }

  /** Transactions touching `script` (paying it or spending from it) in `view`: mempool ones, then mined ones newest first. */
  addressTxs(script: string, view: View): { mempool: BtcTx[]; chain: BtcTx[] } {
    const touches = (tx: BtcTx) => tx.outputs.some((o) => o.script === script) || tx.inputs.some((i) => this.prevout(i)?.script === script);
    const mempool = view.mempool
      ? [...this.mempool.keys()]
          .map((id) => this.txs.get(id)!)
          .filter(touches)
          .reverse()
      : [];
    const chain: BtcTx[] = [];
    for (const b of this.blocks.slice(0, view.height + 1).reverse()) {
      for (const id of [...b.txids].reverse()) if (touches(this.txs.get(id)!)) chain.push(this.txs.get(id)!);
    }
    return { mempool, chain };
  }

  /** Unspent outputs paying `script` in `view` (mined or mempool outputs not spent by either). */
  utxos(script: string, view: View): { txid: string; vout: number; value: bigint; height: number | null }[] {
    const { mempool, chain } = this.addressTxs(script, view);
    const out: { txid: string; vout: number; value: bigint; height: number | null }[] = [];
    for (const tx of [...chain, ...mempool]) {
      tx.outputs.forEach((o, vout) => {
        if (o.script === script && !this.spenderOf(tx.txid, vout, view))
          out.push({ txid: tx.txid, vout, value: o.value, height: this.heightOf(tx.txid, view) ?? null });
      });
    }
    return out;
  }

  /** Esplora's address statistics: output sums funded and spent by mined and by mempool transactions. */
  addressStats(script: string, view: View): { chain: { funded: bigint; spent: bigint }; mempool: { funded: bigint; spent: bigint } } {
    const { mempool, chain } = this.addressTxs(script, view);
    const sums = (txs: BtcTx[]) => ({
      funded: txs.reduce((s, tx) => s + tx.outputs.filter((o) => o.script === script).reduce((a, o) => a + o.value, 0n), 0n),
      spent: txs.reduce(
        (s, tx) =>
          s +
          tx.inputs
            .map((i) => this.prevout(i))
            .filter((p) => p?.script === script)
            .reduce((a, p) => a + p!.value, 0n),
        0n,
      ),
    });
    return { chain: sums(chain), mempool: sums(mempool) };
  }
}
