/**
 * A secp256k1 signature from a key service, made usable and checked before anything is built from it: DER (or
 * r and s) → (r, s), `s` normalized to the lower half of the curve order (BIP-62, EIP-2: KMS returns either half), and the
 * recovery id found by trial against the key's public point (ECDSA gives no recovery id). A signature that
 * verifies against no recovery of the key is refused: nothing is stored or sent with it. Pure (@noble/curves).
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import type { RawEcdsaSignature } from './remoteKey.ts';
import { SignerError } from './signerError.ts';

/** A low-s signature with its recovery id (`yParity`). */
export interface RecoverableSignature {
  r: bigint;
  s: bigint;
  recovery: 0 | 1;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Normalizes and checks a signature over `digest`, DER-encoded or as (r, s).
 *
 * @param publicKey the key's 65-byte uncompressed point (from the service's public key)
 * @throws SignerError `SIGNER_BAD_SIGNATURE` when the DER is malformed, r or s is out of range, or the signature is
 *   not the key's over `digest`
 */
export function recoverableSignature(
  raw: RawEcdsaSignature,
  digest: Uint8Array,
  publicKey: Uint8Array,
  who: { wallet: string; kind: string },
): RecoverableSignature {
  const refuse = (why: string) => new SignerError('SIGNER_BAD_SIGNATURE', who.wallet, who.kind, why);
  let parsed;
  try {
    parsed = 'der' in raw ? secp256k1.Signature.fromDER(raw.der) : new secp256k1.Signature(raw.r, raw.s);
    parsed.assertValidity();
  } catch {
    throw refuse('der' in raw ? 'the signature is not DER-encoded ECDSA' : 'r or s is not in 1..n-1');
  }
  const low = parsed.hasHighS() ? parsed.normalizeS() : parsed;
  if (!secp256k1.verify(low, digest, publicKey, { lowS: true, prehash: false })) {
    throw refuse('the signature does not verify against the key it was asked of (another key, or altered)');
  }
  for (const recovery of [0, 1] as const) {
    let point: Uint8Array;
    try {
      point = low.addRecoveryBit(recovery).recoverPublicKey(digest).toRawBytes(false);
    } catch {
      continue;
    }
    if (sameBytes(point, publicKey)) return { r: low.r, s: low.s, recovery };
  }
  throw refuse('no recovery id recovers the key from the signature');
}
