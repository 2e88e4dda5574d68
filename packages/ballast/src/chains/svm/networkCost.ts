/**
 * What a Solana transaction cost its fee payer, read from the node's `getTransaction` answer: the fall of the
 * payer's balance over the transaction (`meta.preBalances[0] − meta.postBalances[0]`, account 0 being the fee
 * payer), which holds the transaction fee (`meta.fee`) and the rent of every account the transaction created
 * with the payer's lamports (a vault's or our own token account: 2,039,280 lamports for an SPL token account),
 * less the SOL a successful `deposit_native` of the payer moved into the depository's vault (the payment, not a
 * cost). Pure.
 */
import type { VersionedTransactionResponse } from '@solana/web3.js';
import { decodeDepositData, depositoryPdas } from '@ballast/protocol/protocol/svmDepository.ts';

/** The cost split the chain allows: the fee the runtime charged, and what else the payer spent (account rent). */
export interface SvmNetworkCost {
  /** `meta.fee`: base fee per signature plus the priority fee, lamports. */
  feeLamports: bigint;
  /** What the payer spent beyond the fee and any native deposit: the rent of accounts the transaction created, lamports. */
  rentLamports: bigint;
  /** `feeLamports + rentLamports`. */
  totalLamports: bigint;
}

/** Every account a transaction loads, base58: static keys, then the writable and read-only ones from lookup tables. */
export function svmAccountKeys(tx: Pick<VersionedTransactionResponse, 'transaction' | 'meta'>): string[] {
  const loaded = tx.meta?.loadedAddresses;
  return [...tx.transaction.message.staticAccountKeys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])].map((k) => k.toBase58());
}

/**
 * Lamports the fee payer paid into depository vaults through top-level `deposit_native` instructions (data
 * decodes as `deposit_native`; account 1, the sender, is the payer; account 3 is the vault PDA of the program
 * the instruction calls). 0 for a failed transaction: it moved nothing but the fee.
 */
function nativeDepositLamports(tx: Pick<VersionedTransactionResponse, 'transaction' | 'meta'>, keys: readonly string[]): bigint {
  if (!tx.meta || tx.meta.err !== null) return 0n;
  let sum = 0n;
  for (const ix of tx.transaction.message.compiledInstructions) {
    const decoded = decodeDepositData(ix.data);
    if (decoded?.kind !== 'native') continue;
    const program = keys[ix.programIdIndex];
    const sender = keys[ix.accountKeyIndexes[1] ?? -1];
    const vault = keys[ix.accountKeyIndexes[3] ?? -1];
    if (program === undefined || sender !== keys[0]) continue;
    let programVault: string;
    try {
      programVault = depositoryPdas(program).vault;
    } catch {
      continue; // not a program id a vault derives from: not a depository
    }
    if (vault === programVault) sum += decoded.amount;
  }
  return sum;
}

/**
 * The fee payer's network cost of one transaction (see the module comment).
 *
 * @param tx `getTransaction` with `maxSupportedTransactionVersion: 0`
 * @returns the fee and the rest (account rent) in lamports; null when the node gives no `meta`, or when the payer's
 *   balance fell by less than the fee once the native deposit is set aside (an answer this reading does not
 *   explain: nothing is guessed)
 * @example
 * svmNetworkCost(await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }));
 * // { feeLamports: 5000n, rentLamports: 2039280n, totalLamports: 2044280n } for a deposit that created the vault's token account
 */
export function svmNetworkCost(tx: Pick<VersionedTransactionResponse, 'transaction' | 'meta'>): SvmNetworkCost | null {
  const meta = tx.meta;
  const pre = meta?.preBalances[0];
  const post = meta?.postBalances[0];
  if (!meta || pre === undefined || post === undefined) return null;
  const feeLamports = BigInt(meta.fee);
  const totalLamports = BigInt(pre) - BigInt(post) - nativeDepositLamports(tx, svmAccountKeys(tx));
  if (totalLamports < feeLamports) return null;
  return { feeLamports, rentLamports: totalLamports - feeLamports, totalLamports };
}
