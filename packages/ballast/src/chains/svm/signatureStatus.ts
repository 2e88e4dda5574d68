/**
 * One signature's status as the node reports it (`getSignatureStatuses` with `searchTransactionHistory`), and
 * the commitment vocabulary: `processed` (in a block the cluster has not voted on yet: may still vanish),
 * `confirmed` (voted on by a supermajority), `finalized` (rooted). Also the stable block reference Ballast
 * records for a Solana transaction.
 */
import type { SignatureStatus } from '@solana/web3.js';
import type { SvmFinality, SvmRpc } from './rpc.ts';

/** How far a landed transaction has come. */
export type SvmStatusLevel = 'processed' | 'confirmed' | 'finalized';

/** A landed transaction's slot, whether it failed, and its level. */
export interface SvmTxStatus {
  slot: bigint;
  /** True when it landed with an error (fee charged, nothing else done). */
  failed: boolean;
  level: SvmStatusLevel;
}

/** What the node said, and the slot of the node's own state when it said it. */
export interface SvmStatusRead {
  status: SvmTxStatus | null;
  contextSlot: bigint;
}

/**
 * The level of a web3.js status; nodes older than `confirmationStatus` report `confirmations: null` once
 * rooted. Pure.
 */
export function statusLevel(s: Pick<SignatureStatus, 'confirmationStatus' | 'confirmations'>): SvmStatusLevel {
  return s.confirmationStatus ?? (s.confirmations === null ? 'finalized' : 'processed');
}

/** Whether a status at `level` counts as final under `commitment`. Pure. */
export function reaches(level: SvmStatusLevel, commitment: SvmFinality): boolean {
  return commitment === 'finalized' ? level === 'finalized' : level !== 'processed';
}

/**
 * The `blockHash` Ballast records for a Solana transaction: `slot:<slot>`. A signature status names its slot
 * but not the block's hash, and one slot has one leader and one block, so a transaction that lands on
 * another fork shows another slot; reading the hash (getBlock) would add a call that fails for good once
 * the slot leaves the node's ledger window, and a lookup could then never finish. Pure.
 */
export function svmBlockRef(slot: bigint): string {
  return `slot:${slot}`;
}

/**
 * Reads one signature's status, searching the node's whole history.
 *
 * @param signature base58 transaction signature
 * @returns the status (null when the node does not know the signature) and the node's context slot
 * @throws SvmRpcError on any node error
 */
export async function readSignatureStatus(rpc: SvmRpc, signature: string): Promise<SvmStatusRead> {
  const read = await rpc.call('getSignatureStatuses', (c) => c.getSignatureStatuses([signature], { searchTransactionHistory: true }));
  const s = read.value[0] ?? null;
  return {
    status: s === null ? null : { slot: BigInt(s.slot), failed: s.err !== null, level: statusLevel(s) },
    contextSlot: BigInt(read.context.slot),
  };
}
