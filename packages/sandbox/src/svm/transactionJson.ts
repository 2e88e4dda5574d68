/**
 * Renders a landed transaction the way a validator answers getTransaction (`json` or `base64` encoding)
 * and getSignatureStatuses / getSignaturesForAddress entries. Pure.
 */
import { VersionedTransaction } from '@solana/web3.js';
import { base58, base64 } from '@scure/base';
import type { LandedTransaction } from './ledger.ts';
import { FINALIZATION_DEPTH_SLOTS } from './slotClock.ts';
import type { TransactionErrorJson } from './txErrors.ts';

/** `confirmed` until {@link FINALIZATION_DEPTH_SLOTS} slots have passed, then `finalized`. */
export function confirmationStatus(landedSlot: number, currentSlot: number): 'confirmed' | 'finalized' {
  return currentSlot - landedSlot >= FINALIZATION_DEPTH_SLOTS ? 'finalized' : 'confirmed';
}

/** `{Ok: null}` or `{Err: err}` (the deprecated `status` field). */
function statusOf(err: TransactionErrorJson | null): { Ok: null } | { Err: TransactionErrorJson } {
  return err === null ? { Ok: null } : { Err: err };
}

/** One getSignatureStatuses entry. */
export function signatureStatusJson(tx: LandedTransaction, currentSlot: number): Record<string, unknown> {
  const status = confirmationStatus(tx.slot, currentSlot);
  return {
    slot: tx.slot,
    confirmations: status === 'finalized' ? null : currentSlot - tx.slot,
    err: tx.err,
    status: statusOf(tx.err),
    confirmationStatus: status,
  };
}

/** One getSignaturesForAddress entry. */
export function signatureInfoJson(tx: LandedTransaction, currentSlot: number): Record<string, unknown> {
  return {
    signature: tx.signature,
    slot: tx.slot,
    err: tx.err,
    memo: null,
    blockTime: tx.blockTimeSec,
    confirmationStatus: confirmationStatus(tx.slot, currentSlot),
  };
}

/**
 * The getTransaction result.
 *
 * @param encoding `json` (decoded message) or `base64` (the wire bytes)
 * @param withVersion include `version` (only when the client sent maxSupportedTransactionVersion)
 */
export function transactionJson(tx: LandedTransaction, encoding: 'json' | 'base64', withVersion: boolean): Record<string, unknown> {
  const decoded = VersionedTransaction.deserialize(tx.wire);
  const m = decoded.message;
  const transaction =
    encoding === 'base64'
      ? [base64.encode(tx.wire), 'base64']
      : {
          signatures: decoded.signatures.map((s) => base58.encode(s)),
          message: {
            accountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
            header: m.header,
            recentBlockhash: m.recentBlockhash,
            instructions: m.compiledInstructions.map((ix) => ({
              programIdIndex: ix.programIdIndex,
              accounts: ix.accountKeyIndexes,
              data: base58.encode(ix.data),
              stackHeight: null,
            })),
            ...(tx.version === 0
              ? {
                  addressTableLookups: m.addressTableLookups.map((l) => ({
                    accountKey: l.accountKey.toBase58(),
                    writableIndexes: l.writableIndexes,
                    readonlyIndexes: l.readonlyIndexes,
                  })),
                }
              : {}),
          },
        };
  return {
    slot: tx.slot,
    blockTime: tx.blockTimeSec,
    ...(withVersion ? { version: tx.version } : {}),
    transaction,
    meta: {
      err: tx.err,
      status: statusOf(tx.err),
      fee: tx.fee,
      preBalances: tx.preBalances,
      postBalances: tx.postBalances,
      innerInstructions: tx.innerInstructions,
      logMessages: tx.logs,
      preTokenBalances: tx.preTokenBalances,
      postTokenBalances: tx.postTokenBalances,
      rewards: [],
      loadedAddresses: tx.loaded,
      computeUnitsConsumed: tx.computeUnitsConsumed,
    },
  };
}
