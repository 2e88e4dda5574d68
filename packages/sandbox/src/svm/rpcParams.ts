/**
 * zod schemas for the JSON-RPC params the sandbox Solana node accepts (positional arrays, an optional
 * config object last), and the parse helper that turns a mismatch into `-32602 Invalid params`.
 */
import { PublicKey } from '@solana/web3.js';
import { z } from 'zod';
import { invalidParams } from './rpcError.ts';
import type { Commitment } from './slotClock.ts';

/** A base58 public key. */
export const pubkeySchema = z.string().refine((s) => {
  try {
    return new PublicKey(s).toBase58() === s;
  } catch {
    return false;
  }
}, 'Invalid param: Invalid');

/** Commitment names, including the deprecated aliases web3.js may still send. */
export const commitmentSchema = z.enum(['processed', 'confirmed', 'finalized', 'recent', 'single', 'singleGossip', 'root', 'max']);

/** Fields every read config may carry. */
export const readConfigShape = {
  commitment: commitmentSchema.nullish(),
  minContextSlot: z.number().int().nonnegative().nullish(),
};

/** `{commitment?, minContextSlot?}`. */
export const readConfigSchema = z.object(readConfigShape);

/** Account data encodings. */
export const accountEncodingSchema = z.enum(['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed']);

/** getAccountInfo / getMultipleAccounts / getProgramAccounts config. */
export const accountConfigSchema = z.object({
  ...readConfigShape,
  encoding: accountEncodingSchema.nullish(),
  dataSlice: z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() }).nullish(),
});

/** The node's commitment for a (possibly deprecated) commitment name; default finalized, as a validator's. */
export function normalizeCommitment(c: z.infer<typeof commitmentSchema> | null | undefined): Commitment {
  if (c === 'processed' || c === 'recent') return 'processed';
  if (c === 'confirmed' || c === 'single' || c === 'singleGossip') return 'confirmed';
  return 'finalized';
}

/**
 * Parses `params` (absent reads as `[]`).
 *
 * @throws RpcError -32602 naming the first mismatch
 */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  const result = schema.safeParse(params ?? []);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : ` at params[${issue.path.join('][')}]`;
  throw invalidParams(`${issue?.message ?? 'invalid params'}${where}`);
}
