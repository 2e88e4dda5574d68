/**
 * The write-ahead record of a signed Solana transaction (`SignedOriginTx.request`): what `lookup` needs later
 * to prove the transaction can never land — the recent blockhash it was signed with and the last block height
 * at which that blockhash is accepted — plus the fee payer. Read back from the store as untrusted JSON. Pure.
 */
import { z } from 'zod';
import { isSvmPublicKey } from '../../verify/deposit/svmStepData.ts';

/** What is written ahead for a signed Solana transaction. */
export interface SvmTxRecord {
  vm: 'svm';
  /** Fee payer and only signer: our wallet, base58. */
  feePayer: string;
  /** The recent blockhash in the message, base58. */
  blockhash: string;
  /** Last block height at which a transaction with `blockhash` can land (from getLatestBlockhash). */
  lastValidBlockHeight: number;
  /** Slot of the node's answer that gave the blockhash. */
  blockhashSlot: number;
}

const Base58Hash = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
const Height = z.number().int().nonnegative().refine(Number.isSafeInteger);

/** zod schema of a stored {@link SvmTxRecord}; other fields are ignored. */
export const SvmTxRecordSchema = z.looseObject({
  vm: z.literal('svm'),
  feePayer: z.string().refine(isSvmPublicKey),
  blockhash: Base58Hash,
  lastValidBlockHeight: Height,
  blockhashSlot: Height,
});

/**
 * The JSON-safe form written with the write-ahead row.
 *
 * @returns a flat record of strings and numbers (block heights and slots are far below 2^53)
 */
export function svmTxRecord(r: Omit<SvmTxRecord, 'vm'>): Record<string, string | number> {
  return {
    vm: 'svm',
    feePayer: r.feePayer,
    blockhash: r.blockhash,
    lastValidBlockHeight: r.lastValidBlockHeight,
    blockhashSlot: r.blockhashSlot,
  };
}

/**
 * Reads a stored record back.
 *
 * @param request `RecordedTx.request` as the store returns it
 * @returns the record, or null when it is not one written by {@link svmTxRecord} (then nothing can be
 *   proven about the transaction's expiry)
 */
export function parseSvmTxRecord(request: unknown): SvmTxRecord | null {
  const parsed = SvmTxRecordSchema.safeParse(request);
  if (!parsed.success) return null;
  const { feePayer, blockhash, lastValidBlockHeight, blockhashSlot } = parsed.data;
  return { vm: 'svm', feePayer, blockhash, lastValidBlockHeight, blockhashSlot };
}
