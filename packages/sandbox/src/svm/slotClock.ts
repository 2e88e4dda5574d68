/**
 * Slots, block heights and recent blockhashes of the sandbox Solana node. Pure bookkeeping: the node calls
 * {@link SlotClock.advance} (one slot per landed transaction, and on its timer); nothing here reads a clock
 * except through the `nowSec` function it is given.
 *
 * Model: no slot is ever skipped, so block height = slot. Every produced slot issues one blockhash
 * (sha256 of genesis hash ‖ slot, base58); a blockhash issued at height h is valid while the current block
 * height is ≤ h + {@link BLOCKHASH_VALIDITY_HEIGHTS} (its `lastValidBlockHeight`, as a real node reports it).
 * A transaction is finalized {@link FINALIZATION_DEPTH_SLOTS} slots after the slot it landed in.
 */
import { sha256 } from '@noble/hashes/sha2';
import { base58 } from '@scure/base';

/** How many block heights a blockhash stays usable after the height it was issued at (Solana's 150). */
export const BLOCKHASH_VALIDITY_HEIGHTS = 150;
/**
 * Slots after landing at which a transaction counts as `finalized` (a real cluster needs ~32; the sandbox
 * uses 4 so tests waiting for finality take ~1.6 s at the default 400 ms slot timer).
 */
export const FINALIZATION_DEPTH_SLOTS = 4;
/** Entries kept in the SlotHashes sysvar (Solana's 512). */
export const SLOT_HASHES_MAX = 512;

/** One produced slot. */
export interface SlotInfo {
  slot: number;
  /** base58, 32 bytes. */
  blockhash: string;
  /** Unix seconds when the slot was produced. */
  blockTimeSec: number;
}

/** RPC commitment levels. `processed` reads the same as `confirmed` here. */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Keeps the slot counter, the issued blockhashes and the recent slots (for the SlotHashes sysvar). */
export class SlotClock {
  readonly genesisHash: string;
  readonly #genesisBytes: Uint8Array;
  readonly #nowSec: () => number;
  /** Height a blockhash was issued at. */
  readonly #issuedAt = new Map<string, number>();
  /** Produced slots, oldest first, at most {@link SLOT_HASHES_MAX}. */
  readonly #recent: SlotInfo[] = [];

  /**
   * @param genesisHash base58 32-byte hash the node reports from getGenesisHash
   * @param startSlot first slot (its blockhash is issued at once)
   * @param nowSec unix-seconds clock for block times
   */
  constructor(genesisHash: string, startSlot: number, nowSec: () => number) {
    this.genesisHash = genesisHash;
    this.#genesisBytes = base58.decode(genesisHash);
    this.#nowSec = nowSec;
    this.#produce(startSlot);
  }

  /** The latest produced slot (= block height). */
  get slot(): number {
    const last = this.#recent[this.#recent.length - 1];
    if (last === undefined) throw new Error('slot clock has no slot'); // the constructor produces one
    return last.slot;
  }

  /** The newest slot at `commitment` (finalized lags by {@link FINALIZATION_DEPTH_SLOTS}). */
  slotAt(commitment: Commitment): number {
    const first = this.#recent[0]?.slot ?? 0;
    return commitment === 'finalized' ? Math.max(first, this.slot - FINALIZATION_DEPTH_SLOTS) : this.slot;
  }

  /** The blockhash to hand out at `commitment` and the last block height it is valid at. */
  latestBlockhash(commitment: Commitment): { slot: number; blockhash: string; lastValidBlockHeight: number } {
    const info = this.slotInfo(this.slotAt(commitment));
    if (info === undefined) throw new Error('slot clock lost its recent slots'); // slotAt stays within #recent
    return { slot: info.slot, blockhash: info.blockhash, lastValidBlockHeight: info.slot + BLOCKHASH_VALIDITY_HEIGHTS };
  }

  /** The produced slot `slot`, if still among the recent ones. */
  slotInfo(slot: number): SlotInfo | undefined {
    const first = this.#recent[0];
    if (first === undefined) return undefined;
    const found = this.#recent[slot - first.slot];
    return found?.slot === slot ? found : this.#recent.find((s) => s.slot === slot);
  }

  /** The last block height at which `blockhash` is accepted, or null when it was never issued (or is long gone). */
  lastValidBlockHeight(blockhash: string): number | null {
    const at = this.#issuedAt.get(blockhash);
    return at === undefined ? null : at + BLOCKHASH_VALIDITY_HEIGHTS;
  }

  /** True when a transaction with this recent blockhash may land in the next slot. */
  isBlockhashValid(blockhash: string): boolean {
    const last = this.lastValidBlockHeight(blockhash);
    return last !== null && this.slot + 1 <= last;
  }

  /**
   * Produces `n` more slots (default 1) and returns the new latest slot. Only the last of a jump issues a
   * blockhash the node hands out; the ones in between are recorded for the SlotHashes sysvar.
   */
  advance(n = 1): number {
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`advance(n) needs a positive integer, got ${n}`);
    const target = this.slot + n;
    for (let s = Math.max(this.slot + 1, target - SLOT_HASHES_MAX + 1); s <= target; s++) this.#produce(s);
    return target;
  }

  /** Recent (slot, blockhash) pairs, newest first, for the SlotHashes sysvar. */
  slotHashes(): { slot: number; hash: string }[] {
    return this.#recent.map((s) => ({ slot: s.slot, hash: s.blockhash })).reverse();
  }

  #produce(slot: number): void {
    const seed = new Uint8Array(this.#genesisBytes.length + 8);
    seed.set(this.#genesisBytes, 0);
    new DataView(seed.buffer).setBigUint64(this.#genesisBytes.length, BigInt(slot), true);
    const blockhash = base58.encode(sha256(seed));
    this.#recent.push({ slot, blockhash, blockTimeSec: this.#nowSec() });
    if (this.#recent.length > SLOT_HASHES_MAX) this.#recent.shift();
    this.#issuedAt.set(blockhash, slot);
    // Forget blockhashes that can never validate again, so the map stays bounded.
    if (this.#issuedAt.size > 4 * SLOT_HASHES_MAX) {
      for (const [hash, at] of this.#issuedAt) if (at + BLOCKHASH_VALIDITY_HEIGHTS < slot) this.#issuedAt.delete(hash);
    }
  }
}
