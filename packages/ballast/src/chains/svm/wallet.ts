/**
 * Solana signer construction: a 64-byte ed25519 secret key (32-byte seed ‖ 32-byte public key, the layout
 * Phantom exports in base58 and `solana-keygen new -o` writes as a JSON array) becomes a web3.js `Keypair`;
 * the wallet address is the base58 of the public key (case-sensitive).
 *
 * Only `src/chains/<vm>/` constructs signers; configuration loading calls this to derive the address it checks
 * against `wallets.<name>.address`. Results are returned, not thrown, so a caller collecting problems can report
 * each with its YAML path; `problem` texts never contain key material.
 */
import { Keypair, PublicKey } from '@solana/web3.js';

/** Length of a Solana secret key in bytes (seed ‖ public key). */
export const SVM_SECRET_KEY_BYTES = 64;

/**
 * A loaded Solana key pair. The `Keypair` keeps its secret key as a property: whoever stores it must keep it out
 * of serialisation; the config loader keeps only its signer (src/chains/svm/signer.ts), non-enumerable.
 */
export interface SvmLocalKey {
  /** base58 public key, e.g. `9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM`. */
  address: string;
  /** web3.js key pair (signs transactions and messages). */
  keypair: Keypair;
}

/** Why a secret key was refused: wrong length, or its second half is not the public key of its first half. */
export type SvmKeyProblem = 'length' | 'mismatch';

/** Outcome of {@link svmSignerFromSecretKey}. */
export type SvmKeyResult =
  { ok: true; signer: SvmLocalKey } | { ok: false; reason: SvmKeyProblem; /** human text without key material */ problem: string };

/**
 * Builds a Solana signer from a 64-byte secret key.
 *
 * @param secretKey 64 bytes: ed25519 seed followed by its public key
 * @returns `{ ok: true, signer }`, or `{ ok: false, reason, problem }` for a key of another length (`length`)
 *   or one whose public half does not belong to its seed (`mismatch`: a corrupt or hand-edited export); never
 *   throws for bad key material
 * @example
 * const r = svmSignerFromSecretKey(Uint8Array.from(JSON.parse(readFileSync('id.json', 'utf8'))));
 * if (r.ok) r.signer.address; // base58 public key
 */
export function svmSignerFromSecretKey(secretKey: Uint8Array): SvmKeyResult {
  if (secretKey.length !== SVM_SECRET_KEY_BYTES) {
    const hint = secretKey.length === 32 ? ' (32 bytes is a seed or a public key, not an exported secret key)' : '';
    return {
      ok: false,
      reason: 'length',
      problem: `the secret key is ${secretKey.length} bytes; expected ${SVM_SECRET_KEY_BYTES}${hint}`,
    };
  }
  let keypair: Keypair;
  try {
    keypair = Keypair.fromSecretKey(Uint8Array.from(secretKey));
  } catch {
    return {
      ok: false,
      reason: 'mismatch',
      problem: 'the last 32 bytes of the secret key are not the public key of its first 32; the export is corrupt or truncated',
    };
  }
  return { ok: true, signer: { address: keypair.publicKey.toBase58(), keypair } };
}

/**
 * Parses a Solana address (base58 of 32 bytes). The check is case-sensitive and canonical: the text must be
 * exactly the base58 of the bytes it decodes to.
 *
 * @param text candidate address
 * @returns the web3.js PublicKey, or undefined when `text` is not a canonical Solana address
 */
export function parseSvmAddress(text: string): PublicKey | undefined {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text)) return undefined;
  try {
    const key = new PublicKey(text);
    return key.toBase58() === text ? key : undefined;
  } catch {
    return undefined;
  }
}
