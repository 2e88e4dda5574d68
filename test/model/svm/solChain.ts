/**
 * An in-memory Solana cluster for the model: one slot (= one block) every {@link SLOT_MS} of virtual time,
 * blockhashes usable for {@link BLOCKHASH_VALID_BLOCKS} blocks after their slot (`lastValidBlockHeight`),
 * commitment levels (`confirmed` one slot behind the tip, `finalized` {@link FINALIZED_DEPTH} behind), SOL and
 * SPL token balances (the treasury's and the vault's USDC token accounts), and a ledger of landed transactions
 * (succeeded, or failed with the fee charged). Programs are not executed: a signed v0 transaction is decoded,
 * its fee payer's ed25519 signature verified, and its depository `deposit_token` instruction (decoded with the
 * project's `decodeDepositData`) applied: tokens move from the sender's token account to the vault's, and the
 * `DepositEvent` is logged as the program would. Every state read takes the slot it is answered at, so a node
 * that lags answers from the past.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { sha256 } from '@noble/hashes/sha256';
import { base58, base64 } from '@scure/base';
import { VersionedTransaction } from '@solana/web3.js';
import { decodeDepositData, encodeDepositEvent, type SvmDepositEvent } from '../../../packages/protocol/src/protocol/svmDepository.ts';
import { transactionFee } from '../../../packages/sandbox/src/svm/fees.ts';
import { SOL } from './solAccounts.ts';

/** Virtual time per slot, ms. */
export const SLOT_MS = 400;
/** Blocks after its slot during which a blockhash is accepted (`lastValidBlockHeight = slot + 150`). */
export const BLOCKHASH_VALID_BLOCKS = 150;
/** Slots behind the tip at which a block is finalized (rooted). */
export const FINALIZED_DEPTH = 32;
/** The slot at the model's start time (room for lagging reads below it). */
export const GENESIS_SLOT = 10_000;

/** A commitment level. */
export type Level = 'processed' | 'confirmed' | 'finalized';

/** A transaction in the ledger. `wire` is null for a system transfer (the solver's refunds). */
export interface LandedSolTx {
  signature: string;
  slot: number;
  wire: Uint8Array | null;
  err: unknown;
  fee: bigint;
  logs: string[];
  accountKeys: string[];
  lamports: Map<string, bigint>;
  tokens: Map<string, bigint>;
  /** The deposit it made (null when it failed or is not a deposit). */
  deposit: SvmDepositEvent | null;
}

/** A signed transaction sent to the cluster and not landed yet; `landAtSlot` null: it never lands. */
export interface PendingSolTx {
  signature: string;
  wire: Uint8Array;
  tx: VersionedTransaction;
  landAtSlot: number | null;
}

/** A decoded signed transaction: its id, fee payer, blockhash and deposit instruction (if any). */
export interface DecodedSolTx {
  signature: string;
  tx: VersionedTransaction;
  payer: string;
  blockhash: string;
  keys: string[];
  deposit: { index: number; amount: bigint; id: `0x${string}`; senderAta: string; vaultAta: string; depositor: string } | null;
  fee: bigint;
}

/**
 * Decodes and checks a signed transaction (base64 or bytes): v0 or legacy, the fee payer's signature valid.
 *
 * @throws Error when it does not decode or a required signature is not valid
 */
export function decodeSolTx(raw: string | Uint8Array): DecodedSolTx {
  const key = typeof raw === 'string' ? raw : base64.encode(raw);
  const cached = decodedCache.get(key);
  if (cached) return cached;
  const decoded = decodeUncached(base64.decode(key));
  if (decodedCache.size >= DECODED_CACHE_MAX) decodedCache.clear();
  decodedCache.set(key, decoded);
  return decoded;
}

/**
 * Decodes a transaction (base64) WITHOUT checking its signatures, as a node does for `simulateTransaction` with
 * `sigVerify: false`: an unsigned message (zero-filled signatures) decodes, its `signature` is base58 of zeros.
 *
 * @throws Error when it does not decode
 */
export function decodeSolTxUnverified(raw: string): DecodedSolTx {
  return decodeUncached(base64.decode(raw), false);
}

/** Decoded transactions by base64 wire bytes (signature checks are the costly part of every read). */
const decodedCache = new Map<string, DecodedSolTx>();
const DECODED_CACHE_MAX = 10_000;

function decodeUncached(bytes: Uint8Array, verify = true): DecodedSolTx {
  const tx = VersionedTransaction.deserialize(bytes);
  const m = tx.message;
  const keys = m.staticAccountKeys.map((k) => k.toBase58());
  const message = m.serialize();
  for (let i = 0; verify && i < m.header.numRequiredSignatures; i++) {
    const sig = tx.signatures[i];
    if (!sig || !ed25519.verify(sig, message, m.staticAccountKeys[i]!.toBytes()))
      throw new Error(`signature ${i} of the transaction does not verify`);
  }
  let deposit: DecodedSolTx['deposit'] = null;
  m.compiledInstructions.forEach((ix, index) => {
    if (keys[ix.programIdIndex] !== SOL.depository) return;
    const data = decodeDepositData(ix.data);
    const at = (k: number) => keys[ix.accountKeyIndexes[k] ?? -1] ?? '';
    if (data?.kind === 'token') deposit = { index, amount: data.amount, id: data.id, depositor: at(2), senderAta: at(5), vaultAta: at(6) };
  });
  const fee = transactionFee({
    numRequiredSignatures: m.header.numRequiredSignatures,
    instructions: m.compiledInstructions.map((ix) => ({ programId: keys[ix.programIdIndex] ?? '', data: ix.data })),
  });
  return { signature: base58.encode(tx.signatures[0]!), tx, payer: keys[0]!, blockhash: m.recentBlockhash, keys, deposit, fee };
}

const add = (map: Map<string, bigint>, key: string, delta: bigint) => map.set(key, (map.get(key) ?? 0n) + delta);

/** The cluster. */
export class SolChain {
  readonly ledger: LandedSolTx[] = [];
  readonly bySignature = new Map<string, LandedSolTx>();
  readonly pending: PendingSolTx[] = [];
  private readonly hashSlots = new Map<string, number>();
  private readonly genesisLamports = new Map<string, bigint>();
  private readonly genesisTokens = new Map<string, bigint>();
  private systemCount = 0;
  /** The highest slot processed so far. */
  tip = GENESIS_SLOT;

  constructor(
    private readonly startMs: number,
    lamports: [string, bigint][],
    tokens: [string, bigint][],
  ) {
    for (const [k, v] of lamports) this.genesisLamports.set(k, v);
    for (const [k, v] of tokens) this.genesisTokens.set(k, v);
  }

  /** The slot at virtual time `nowMs`. */
  slotAt(nowMs: number): number {
    return GENESIS_SLOT + Math.floor((nowMs - this.startMs) / SLOT_MS);
  }

  /** The slot visible at `level` from a node at slot `view`. */
  levelSlot(view: number, level: Level): number {
    return view - (level === 'processed' ? 0 : level === 'confirmed' ? 1 : FINALIZED_DEPTH);
  }

  /** The blockhash of a slot (deterministic), remembered so it can be recognised. */
  blockhashOf(slot: number): string {
    const hash = base58.encode(sha256(`ballast-model-blockhash-${slot}`));
    this.hashSlots.set(hash, slot);
    return hash;
  }

  /** The slot a blockhash was issued at, if it is one of the cluster's. */
  slotOfBlockhash(hash: string): number | undefined {
    return this.hashSlots.get(hash);
  }

  /** Whether a node at slot `view` accepts `hash` (issued at or before `view`, at most 150 blocks old). */
  blockhashValid(hash: string, view: number): boolean {
    const s = this.hashSlots.get(hash);
    return s !== undefined && s <= view && view <= s + BLOCKHASH_VALID_BLOCKS;
  }

  /** Lamports of an account as at slot `view`. */
  lamportsAt(address: string, view: number): bigint {
    let v = this.genesisLamports.get(address) ?? 0n;
    for (const t of this.ledger) if (t.slot <= view) v += t.lamports.get(address) ?? 0n;
    return v;
  }

  /** Token units of a token account as at slot `view`. */
  tokensAt(account: string, view: number): bigint {
    let v = this.genesisTokens.get(account) ?? 0n;
    for (const t of this.ledger) if (t.slot <= view) v += t.tokens.get(account) ?? 0n;
    return v;
  }

  /** Whether the token account exists (it has a genesis balance). */
  hasTokenAccount(account: string): boolean {
    return this.genesisTokens.has(account);
  }

  /** The landed transaction with this signature visible at slot `view`. */
  landedAt(signature: string, view: number): LandedSolTx | undefined {
    const t = this.bySignature.get(signature);
    return t && t.slot <= view ? t : undefined;
  }

  /**
   * Queues a sent transaction to land at `landAtSlot` (null: never). A signature already landed or queued is
   * ignored (a validator deduplicates by signature).
   */
  queue(decoded: DecodedSolTx, wire: Uint8Array, landAtSlot: number | null): void {
    if (this.bySignature.has(decoded.signature)) return;
    const queued = this.pending.find((p) => p.signature === decoded.signature);
    if (queued) {
      if (queued.landAtSlot === null || (landAtSlot !== null && landAtSlot < queued.landAtSlot)) queued.landAtSlot = landAtSlot;
      return;
    }
    this.pending.push({ signature: decoded.signature, wire, tx: decoded.tx, landAtSlot });
  }

  /** Processes slots up to `slot`: queued transactions due by then land (or are dropped once their blockhash expired). */
  advanceTo(slot: number): void {
    if (slot <= this.tip) return;
    const due = this.pending.filter((p) => p.landAtSlot !== null && p.landAtSlot <= slot).sort((a, b) => a.landAtSlot! - b.landAtSlot!);
    for (const p of due) {
      this.pending.splice(this.pending.indexOf(p), 1);
      this.land(p, Math.max(p.landAtSlot!, this.tip + 1));
    }
    // Transactions that will never land are forgotten once their blockhash expired.
    for (const p of [...this.pending]) {
      const s = this.hashSlots.get(p.tx.message.recentBlockhash);
      if (p.landAtSlot === null && (s === undefined || slot > s + BLOCKHASH_VALID_BLOCKS)) this.pending.splice(this.pending.indexOf(p), 1);
    }
    this.tip = slot;
  }

  /** What running `d` at slot `view` would do: its error (null: success) and logs. */
  execute(d: DecodedSolTx, view: number): { err: unknown; logs: string[]; event: SvmDepositEvent | null } {
    const logs: string[] = [];
    if (d.deposit) {
      const dep = d.deposit;
      logs.push(`Program ${SOL.depository} invoke [1]`);
      if (dep.vaultAta !== SOL.vaultAta || !this.hasTokenAccount(dep.senderAta) || this.tokensAt(dep.senderAta, view) < dep.amount) {
        logs.push('Program log: Error: insufficient funds', `Program ${SOL.depository} failed: custom program error: 0x1`);
        return { err: { InstructionError: [dep.index, { Custom: 1 }] }, logs, event: null };
      }
      const event: SvmDepositEvent = { depositor: dep.depositor, token: SOL.usdcMint, amount: dep.amount, id: dep.id };
      logs.push(`Program data: ${base64.encode(encodeDepositEvent(event))}`, `Program ${SOL.depository} success`);
      return { err: null, logs, event };
    }
    return { err: null, logs, event: null };
  }

  private land(p: PendingSolTx, slot: number): void {
    if (this.bySignature.has(p.signature)) return;
    const d = decodeSolTx(p.wire);
    const issued = this.hashSlots.get(d.blockhash);
    if (issued === undefined || slot > issued + BLOCKHASH_VALID_BLOCKS) return; // expired: never lands
    if (this.lamportsAt(d.payer, slot) < d.fee) return; // cannot pay its fee: not included
    const run = this.execute(d, slot);
    const lamports = new Map<string, bigint>([[d.payer, -d.fee]]);
    const tokens = new Map<string, bigint>();
    if (run.err === null && d.deposit) {
      add(tokens, d.deposit.senderAta, -d.deposit.amount);
      add(tokens, d.deposit.vaultAta, d.deposit.amount);
    }
    this.record({
      signature: d.signature,
      slot,
      wire: p.wire,
      err: run.err,
      fee: d.fee,
      logs: run.logs,
      accountKeys: d.keys,
      lamports,
      tokens,
      deposit: run.event,
    });
  }

  /** A transfer of `amount` token units between token accounts that needs no signature (the solver's refunds). */
  systemTransfer(from: string, to: string, amount: bigint, slot: number): string {
    const signature = base58.encode(new Uint8Array([...sha256(`ballast-model-system-${this.systemCount++}`), ...sha256('x')]));
    const tokens = new Map<string, bigint>();
    add(tokens, from, -amount);
    add(tokens, to, amount);
    this.record({
      signature,
      slot,
      wire: null,
      err: null,
      fee: 0n,
      logs: [],
      accountKeys: [from, to],
      lamports: new Map(),
      tokens,
      deposit: null,
    });
    return signature;
  }

  private record(t: LandedSolTx): void {
    this.ledger.push(t);
    this.bySignature.set(t.signature, t);
  }
}
