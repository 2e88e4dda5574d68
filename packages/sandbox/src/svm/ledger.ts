/**
 * The sandbox Solana node's record of landed transactions (succeeded or failed with the fee charged), looked
 * up by signature, by account (getSignaturesForAddress) and for the depository deposits they made. In memory.
 */
import type { SvmDepositEvent } from '@ballast/protocol/protocol/svmDepository.ts';
import type { UiTokenAmount } from './tokenState.ts';
import type { TransactionErrorJson } from './txErrors.ts';

/** One entry of `meta.preTokenBalances` / `postTokenBalances`. */
export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

/** One compiled inner instruction (indexes into the original message's account keys). */
export interface InnerInstructionJson {
  programIdIndex: number;
  accounts: number[];
  /** base58 */
  data: string;
  stackHeight: number;
}

/** Inner instructions of one top-level instruction. */
export interface InnerInstructionsJson {
  index: number;
  instructions: InnerInstructionJson[];
}

/** A depository deposit that landed (what the sandbox solver watches). */
export interface SvmLandedDeposit {
  /** Transaction signature, base58. */
  signature: string;
  slot: number;
  /** Index of the deposit instruction in its transaction. */
  instructionIndex: number;
  /** The depository program id the instruction called. */
  programId: string;
  /** The signer that paid the deposit (account 1 of the instruction). */
  sender: string;
  /** The decoded `DepositEvent` the program logged (amount in base units, after any Token-2022 fee). */
  event: SvmDepositEvent;
}

/** A transaction that landed in a slot, as getTransaction reports it. */
export interface LandedTransaction {
  signature: string;
  slot: number;
  blockTimeSec: number;
  /** The original serialized transaction (what the client signed and sent). */
  wire: Uint8Array;
  version: 'legacy' | 0;
  /** null when it succeeded. */
  err: TransactionErrorJson | null;
  /** Fee charged to the fee payer, lamports. */
  fee: bigint;
  logs: string[];
  /** The original message's account keys: static, then loaded writable, then loaded readonly. */
  accountKeys: string[];
  loaded: { writable: string[]; readonly: string[] };
  /** Lamports of each account key before / after. */
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  innerInstructions: InnerInstructionsJson[];
  computeUnitsConsumed: bigint;
  /** Deposits it made (empty when it failed). */
  deposits: SvmLandedDeposit[];
}

/** Options of {@link Ledger.signaturesFor}. */
export interface SignaturesForOptions {
  /** At most this many, newest first (default and maximum 1000). */
  limit?: number;
  /** Start below this signature (exclusive). */
  before?: string;
  /** Stop at this signature (exclusive). */
  until?: string;
}

/** Landed transactions in landing order. */
export class Ledger {
  readonly #bySignature = new Map<string, LandedTransaction>();
  readonly #byAddress = new Map<string, LandedTransaction[]>();
  readonly #deposits: SvmLandedDeposit[] = [];

  /** Records a landed transaction. */
  add(tx: LandedTransaction): void {
    this.#bySignature.set(tx.signature, tx);
    for (const key of new Set(tx.accountKeys)) {
      const list = this.#byAddress.get(key) ?? [];
      list.push(tx);
      this.#byAddress.set(key, list);
    }
    this.#deposits.push(...tx.deposits);
  }

  /** The landed transaction with this signature. */
  get(signature: string): LandedTransaction | undefined {
    return this.#bySignature.get(signature);
  }

  /** Transactions that loaded `address`, newest first. */
  signaturesFor(address: string, opts: SignaturesForOptions = {}): LandedTransaction[] {
    const all = this.#byAddress.get(address) ?? [];
    const limit = Math.min(opts.limit ?? 1000, 1000);
    const out: LandedTransaction[] = [];
    let started = opts.before === undefined;
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
      const tx = all[i] as LandedTransaction; // i within bounds
      if (!started) {
        started = tx.signature === opts.before;
        continue;
      }
      if (tx.signature === opts.until) break;
      out.push(tx);
    }
    return out;
  }

  /** Deposits landed at or after `fromSlot`, in landing order. */
  deposits(fromSlot = 0): SvmLandedDeposit[] {
    return this.#deposits.filter((d) => d.slot >= fromSlot).map((d) => ({ ...d, event: { ...d.event } }));
  }
}
