/**
 * The `data` of a Solana-origin step item (docs/design.md "Solana step data", the shape relay-kit's svm adapter
 * signs): `{instructions: [{keys: [{pubkey, isSigner, isWritable}], programId, data}], addressLookupTableAddresses}`
 * with `data` as hex without `0x` and every key base58. Parsed with zod; public keys validated with
 * @solana/web3.js `PublicKey` (32 bytes, canonical base58). Pure.
 */
import { PublicKey } from '@solana/web3.js';
import { hexToBytes } from 'viem';
import { z } from 'zod';
import type { SvmAccountMeta } from '@ballast/protocol/protocol/svmDepository.ts';

/** One instruction of a step item: program, accounts in order (web3.js `AccountMeta` as text) and raw data bytes. */
export interface SvmInstruction {
  /** Program id, base58. */
  programId: string;
  keys: SvmAccountMeta[];
  /** Instruction data (decoded from the item's hex). */
  data: Uint8Array;
}

/** A parsed Solana step item: the instructions, in order, and the lookup tables the message may use. */
export interface SvmStepData {
  instructions: SvmInstruction[];
  /** Address lookup table accounts, base58; their contents are read on chain, never taken from the quote. */
  addressLookupTableAddresses: string[];
}

/** Outcome of {@link parseSvmStepData}: the data, or one line naming every bad field. */
export type SvmStepDataParse = { ok: true; data: SvmStepData } | { ok: false; error: string };

/** True when `value` is the canonical base58 text of a 32-byte public key. */
export function isSvmPublicKey(value: string): boolean {
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}

const PubkeyString = z.string().refine(isSvmPublicKey, 'expected a base58 Solana public key (32 bytes)');
/** Instruction data: hex without `0x` (relay-kit reads it with `Buffer.from(data, 'hex')`), whole bytes. */
const InstructionDataHex = z.string().regex(/^(?:[0-9a-fA-F]{2})*$/, 'expected hex without 0x, an even number of digits');

/** zod schema of one account meta. Flags must be real booleans. */
export const SvmAccountMetaSchema = z.object({
  pubkey: PubkeyString,
  isSigner: z.boolean(),
  isWritable: z.boolean(),
});

/** zod schema of one instruction as the quote writes it (data still hex). */
export const SvmInstructionJsonSchema = z.object({
  keys: z.array(SvmAccountMetaSchema),
  programId: PubkeyString,
  data: InstructionDataHex,
});

/**
 * zod schema of a Solana step item's `data`. Unknown fields are kept out of the result (loose: the API may add
 * some); `addressLookupTableAddresses` may be absent (no tables).
 */
export const SvmStepDataSchema = z.looseObject({
  instructions: z.array(SvmInstructionJsonSchema).min(1),
  addressLookupTableAddresses: z.array(PubkeyString).default([]),
});

/**
 * Parses a step item's `data` as Solana instructions.
 *
 * @param raw the item's `data` object as the quote holds it (untrusted)
 * @returns `{ok: true, data}` with data bytes decoded, or `{ok: false, error}` naming each bad field
 *   (e.g. `instructions.0.keys.2.pubkey: expected a base58 Solana public key (32 bytes)`); never throws
 */
export function parseSvmStepData(raw: unknown): SvmStepDataParse {
  const parsed = SvmStepDataSchema.safeParse(raw);
  if (!parsed.success) {
    const error = parsed.error.issues.map((i) => `${i.path.join('.') || 'data'}: ${i.message}`).join(', ');
    return { ok: false, error };
  }
  const { instructions, addressLookupTableAddresses } = parsed.data;
  return {
    ok: true,
    data: {
      instructions: instructions.map((ix) => ({
        programId: ix.programId,
        keys: ix.keys.map((k) => ({ pubkey: k.pubkey, isSigner: k.isSigner, isWritable: k.isWritable })),
        data: hexToBytes(`0x${ix.data}`),
      })),
      addressLookupTableAddresses: [...addressLookupTableAddresses],
    },
  };
}
