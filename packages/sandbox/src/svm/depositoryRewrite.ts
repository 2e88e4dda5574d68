/**
 * Builds the transaction the node actually executes in litesvm for a transaction that calls the depository
 * program: every depository instruction is replaced by what the program does (a system transfer for
 * `deposit_native`; the vault ATA creation if needed and a `transferChecked` for `deposit_token`), or, when
 * the program would fail, by a system-program instruction that fails at once (so the transaction fails at
 * that index and only the fee is charged). Every other instruction is kept as is.
 *
 * The replacement carries the original instruction's accounts as extra accounts (the system and token
 * programs ignore them), so the executed message has exactly the original signers and writable accounts,
 * hence the same fee and account locks. The message is recompiled with @solana/web3.js (legacy stays
 * legacy; v0 keeps its lookup tables). Its signatures are the original ones, which no longer sign the
 * changed message: the node verified them against the original message and runs litesvm with sigverify off.
 */
import {
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  type AddressLookupTableAccount,
  type VersionedTransaction,
} from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction } from '@solana/spl-token';
import type { LiteSVM } from 'litesvm';
import type { DepositPlan } from './depositoryRules.ts';

/** The transaction type litesvm's `sendTransaction` takes (@solana/kit `Transaction`). */
export type KitTransaction = Parameters<LiteSVM['sendTransaction']>[0];

/** What to do with one original instruction. */
export type InstructionDecision = { kind: 'deposit'; plan: DepositPlan } | { kind: 'fail' };

/** One executed instruction: program id, accounts (base58) and data. */
export interface ExecutedInstruction {
  programId: string;
  accounts: string[];
  data: Uint8Array;
}

/** The executed transaction and how its instructions map back to the original ones. */
export interface ExecutedTransaction {
  transaction: KitTransaction;
  /** `origin[j]` = index of the original instruction that executed instruction `j` stands for. */
  origin: number[];
  /** Each executed instruction without the carried original accounts (what inner-instruction reports show). */
  instructions: ExecutedInstruction[];
  /** Account keys of the executed message, static then loaded (for mapping inner instructions back). */
  accountKeys: string[];
}

/** A system-program instruction that fails before touching any account (`InvalidInstructionData`). */
function failingInstruction(): TransactionInstruction {
  return new TransactionInstruction({ programId: SystemProgram.programId, keys: [], data: Buffer.from([0xff, 0xff, 0xff, 0xff]) });
}

/** The instructions a passing deposit executes: what the depository program invokes, in order. */
export function depositInstructions(plan: DepositPlan): TransactionInstruction[] {
  if (plan.kind === 'native') {
    return [SystemProgram.transfer({ fromPubkey: new PublicKey(plan.sender), toPubkey: new PublicKey(plan.vault), lamports: plan.amount })];
  }
  const tokenProgram = new PublicKey(plan.tokenProgram);
  const mint = new PublicKey(plan.mint);
  const out: TransactionInstruction[] = [];
  if (plan.createVaultTokenAccount) {
    out.push(
      createAssociatedTokenAccountIdempotentInstruction(
        new PublicKey(plan.sender),
        new PublicKey(plan.vaultTokenAccount),
        new PublicKey(plan.vault),
        mint,
        tokenProgram,
      ),
    );
  }
  const transfer = createTransferCheckedInstruction(
    new PublicKey(plan.senderTokenAccount),
    mint,
    new PublicKey(plan.vaultTokenAccount),
    new PublicKey(plan.sender),
    plan.amount,
    plan.decimals,
    [],
    tokenProgram,
  );
  out.push(transfer);
  return out;
}

/**
 * Builds the executed transaction.
 *
 * @param decisions original instruction index → replacement; instructions not listed are kept
 * @param tables the message's resolved lookup tables (empty for legacy)
 * @throws Error from web3.js when the message cannot be recompiled (e.g. more than 256 keys)
 */
export function buildExecutedTransaction(
  tx: VersionedTransaction,
  tables: AddressLookupTableAccount[],
  decisions: ReadonlyMap<number, InstructionDecision>,
): ExecutedTransaction {
  const decompiled = TransactionMessage.decompile(tx.message, { addressLookupTableAccounts: tables });
  const instructions: TransactionInstruction[] = [];
  const executed: ExecutedInstruction[] = [];
  const origin: number[] = [];
  decompiled.instructions.forEach((ix, i) => {
    const decision = decisions.get(i);
    const replacement =
      decision === undefined ? [ix] : decision.kind === 'fail' ? [failingInstruction()] : depositInstructions(decision.plan);
    for (const r of replacement) {
      executed.push({ programId: r.programId.toBase58(), accounts: r.keys.map((k) => k.pubkey.toBase58()), data: Uint8Array.from(r.data) });
      instructions.push(r);
      origin.push(i);
    }
    // Carry the original accounts (signers, writable flags) on the last replacement instruction.
    if (decision !== undefined) replacement[replacement.length - 1]?.keys.push(...ix.keys);
  });
  const message = new TransactionMessage({ payerKey: decompiled.payerKey, recentBlockhash: decompiled.recentBlockhash, instructions });
  const compiled = tx.version === 'legacy' ? message.compileToLegacyMessage() : message.compileToV0Message(tables);
  const originalSignatures = new Map<string, Uint8Array>();
  tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures).forEach((key, i) => {
    const sig = tx.signatures[i];
    if (sig !== undefined) originalSignatures.set(key.toBase58(), sig);
  });
  const signatures: Record<string, Uint8Array> = {};
  for (const key of compiled.staticAccountKeys.slice(0, compiled.header.numRequiredSignatures)) {
    signatures[key.toBase58()] = originalSignatures.get(key.toBase58()) ?? new Uint8Array(64);
  }
  const loaded = compiled.getAccountKeys({ addressLookupTableAccounts: tables });
  return {
    // Plain bytes and a base58-keyed map are exactly what kit's branded `Transaction` holds at run time.
    transaction: { messageBytes: compiled.serialize(), signatures } as unknown as KitTransaction,
    origin,
    instructions: executed,
    accountKeys: loaded
      .keySegments()
      .flat()
      .map((k) => k.toBase58()),
  };
}

/** The original transaction as litesvm's kit-typed `Transaction` (signatures keyed by signer, in order). */
export function asKitTransaction(tx: VersionedTransaction): KitTransaction {
  const signatures: Record<string, Uint8Array> = {};
  tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures).forEach((key, i) => {
    signatures[key.toBase58()] = tx.signatures[i] ?? new Uint8Array(64);
  });
  // Plain bytes and a base58-keyed map are exactly what kit's branded `Transaction` holds at run time.
  return { messageBytes: tx.message.serialize(), signatures } as unknown as KitTransaction;
}
