/**
 * The Solana deposit transaction as a client builds it from a step item (docs/design.md "Solana step data"): a v0
 * message of exactly the quote's instructions, fee payer = our wallet, a fresh blockhash, compiled against the
 * lookup tables the quote names (contents read on chain) with @solana/web3.js `TransactionMessage
 * .compileToV0Message`. Used by the verifier to measure the wire size against the 1232-byte limit (docs/relay-contract.md
 * "Limits", `SOLANA_TX_TOO_LARGE`) and by the Solana chain adapter to sign. Pure: no connection.
 */
import {
  AddressLookupTableAccount,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type MessageV0,
} from '@solana/web3.js';
import type { SvmAccountMeta } from '@ballast/protocol/protocol/svmDepository.ts';
import type { SvmInstruction } from './svmStepData.ts';

/**
 * Largest Solana transaction on the wire, bytes, signatures included (docs/relay-contract.md "Limits"; web3.js
 * `PACKET_DATA_SIZE`).
 */
export const SOLANA_TX_MAX_BYTES = 1232;
/** Size of one ed25519 signature in a transaction, bytes. */
export const SOLANA_SIGNATURE_BYTES = 64;

/** web3.js instruction of a parsed step instruction (fresh key objects; `data` copied into a Buffer). */
export function toTransactionInstruction(ix: SvmInstruction): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(ix.programId),
    keys: ix.keys.map((k) => ({ pubkey: new PublicKey(k.pubkey), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(ix.data),
  });
}

/** Lookup tables named by a quote, resolved against what was read on chain. */
export interface SvmLookupTables {
  /** web3.js accounts of the tables found, in the quote's order. */
  accounts: AddressLookupTableAccount[];
  /** Named tables absent from the chain facts, base58. A transaction needing them cannot be built. */
  missing: string[];
}

/** Deactivation slot of a table that was never deactivated (u64::MAX, as the runtime stores it). */
const ACTIVE_TABLE_SLOT = 2n ** 64n - 1n;

/**
 * Resolves the lookup tables a step item names (`addressLookupTableAddresses`) from tables read on chain.
 *
 * @param named table addresses from the quote, base58
 * @param tables table address → its addresses in order, as read on chain (`origin.lookupTables`)
 * @returns web3.js `AddressLookupTableAccount`s for the named tables found, and the names not found
 * @throws Error when a table read on chain holds something that is not a public key (a bad chain read)
 */
export function resolveLookupTables(named: readonly string[], tables: Readonly<Record<string, readonly string[]>>): SvmLookupTables {
  const accounts: AddressLookupTableAccount[] = [];
  const missing: string[] = [];
  for (const address of named) {
    const contents = Object.hasOwn(tables, address) ? tables[address] : undefined;
    if (contents === undefined) {
      missing.push(address);
      continue;
    }
    accounts.push(
      new AddressLookupTableAccount({
        key: new PublicKey(address),
        state: {
          deactivationSlot: ACTIVE_TABLE_SLOT,
          lastExtendedSlot: 0,
          lastExtendedSlotStartIndex: 0,
          addresses: contents.map((a) => new PublicKey(a)),
        },
      }),
    );
  }
  return { accounts, missing };
}

/** A v0 `VersionedTransaction` whose `message` is known to be the compiled `MessageV0`. */
export type SvmV0Transaction = VersionedTransaction & { message: MessageV0 };

/** Inputs of {@link buildSvmV0Transaction}. */
export interface BuildSvmV0TransactionParameters {
  /** The step item's instructions, unchanged and in order (nothing is added). */
  instructions: readonly SvmInstruction[];
  /** Fee payer and first signer: our wallet, base58. */
  payer: string;
  /** A recent blockhash, base58 (32 bytes). */
  recentBlockhash: string;
  /** The lookup tables the quote names, resolved ({@link resolveLookupTables}); none when omitted. */
  lookupTables?: readonly AddressLookupTableAccount[];
}

/**
 * Builds the unsigned v0 transaction of a step item: one placeholder (zero) signature per required signer,
 * to be filled by `VersionedTransaction.sign`.
 *
 * @returns the transaction; its `message` is the compiled `MessageV0`
 * @throws Error when web3.js cannot compile the message (a key that is not a public key, more than 256
 *   accounts, a lookup table index overflow)
 * @example
 * const { accounts, missing } = resolveLookupTables(step.addressLookupTableAddresses, tablesReadOnChain);
 * const tx = buildSvmV0Transaction({ instructions: step.instructions, payer, recentBlockhash, lookupTables: accounts });
 * tx.sign([keypair]);
 */
export function buildSvmV0Transaction(p: BuildSvmV0TransactionParameters): SvmV0Transaction {
  const message = new TransactionMessage({
    payerKey: new PublicKey(p.payer),
    recentBlockhash: p.recentBlockhash,
    instructions: p.instructions.map(toTransactionInstruction),
  }).compileToV0Message(p.lookupTables ? [...p.lookupTables] : undefined);
  // The constructor stores the MessageV0 it was given as `message`.
  return new VersionedTransaction(message) as SvmV0Transaction;
}

/** Bytes of a compact-u16 ("short vec") length prefix. */
function shortVecBytes(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}

/**
 * Wire size of a v0 transaction carrying every required signature (64 bytes each): the length
 * `VersionedTransaction.serialize()` returns, computed from the message's parts so that an oversized message,
 * which web3.js refuses to serialize, can be measured too.
 *
 * @param message a compiled v0 message
 * @returns bytes; compare with {@link SOLANA_TX_MAX_BYTES}
 */
export function svmTransactionWireSize(message: MessageV0): number {
  const signatures = message.header.numRequiredSignatures;
  let size = shortVecBytes(signatures) + signatures * SOLANA_SIGNATURE_BYTES;
  size += 1 + 3; // version prefix, header (3 counts)
  size += shortVecBytes(message.staticAccountKeys.length) + 32 * message.staticAccountKeys.length;
  size += 32; // recent blockhash
  size += shortVecBytes(message.compiledInstructions.length);
  for (const ix of message.compiledInstructions) {
    const accounts = ix.accountKeyIndexes.length;
    size += 1 + shortVecBytes(accounts) + accounts + shortVecBytes(ix.data.length) + ix.data.length;
  }
  size += shortVecBytes(message.addressTableLookups.length);
  for (const lookup of message.addressTableLookups) {
    const w = lookup.writableIndexes.length;
    const r = lookup.readonlyIndexes.length;
    size += 32 + shortVecBytes(w) + w + shortVecBytes(r) + r;
  }
  return size;
}

/** One instruction of a compiled message, its accounts resolved with the flags the runtime applies. */
export interface SvmResolvedInstruction {
  /** Program id, base58. */
  programId: string;
  /**
   * Accounts in instruction order. Flags are the message's: an account is a signer (or writable) in every
   * instruction as soon as any instruction, or the fee payer role, makes it one.
   */
  accounts: SvmAccountMeta[];
  data: Uint8Array;
}

/**
 * Resolves every compiled instruction's account indexes (static keys, then lookup-table keys) back to public
 * keys with the message-level signer and writable flags: what the runtime will see.
 *
 * @param message a compiled v0 message
 * @param lookupTables the tables it was compiled against
 * @returns one entry per instruction, in order
 * @throws Error when a table the message uses is not among `lookupTables` or an index is out of range
 */
export function resolveInstructionAccounts(
  message: MessageV0,
  lookupTables: readonly AddressLookupTableAccount[],
): SvmResolvedInstruction[] {
  const keys = message.getAccountKeys({ addressLookupTableAccounts: [...lookupTables] });
  const keyAt = (index: number): PublicKey => {
    const key = keys.get(index);
    if (!key) throw new Error(`compiled message references account index ${index}, beyond its ${keys.length} keys`);
    return key;
  };
  return message.compiledInstructions.map((ix) => ({
    programId: keyAt(ix.programIdIndex).toBase58(),
    accounts: ix.accountKeyIndexes.map((i) => ({
      pubkey: keyAt(i).toBase58(),
      isSigner: message.isAccountSigner(i),
      isWritable: message.isAccountWritable(i),
    })),
    data: ix.data,
  }));
}
