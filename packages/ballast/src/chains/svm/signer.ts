/**
 * The one seam through which a Solana wallet signs (docs/keys.md): transactions, withdrawal digests, anything.
 * A key on the host and a key in a key service are both an {@link SvmSigner}: the callers (src/chains/svm/
 * signStepItem.ts, withdrawalSigning.ts) hand it the exact bytes to sign and get a 64-byte Ed25519 signature back
 * (RFC 8032, pure Ed25519: no pre-hash), so both kinds take the same path after the same checks.
 */
import { ed25519 } from '@noble/curves/ed25519';
import type { Keypair, PublicKey } from '@solana/web3.js';

/** Signs bytes for one Solana wallet with Ed25519. */
export interface SvmSigner {
  /** Where the key lives: `key` on this host, `awsKms` in AWS KMS. */
  readonly kind: 'key' | 'awsKms' | 'turnkey';
  /** The wallet's public key (its base58 is the address). */
  readonly publicKey: PublicKey;
  /**
   * Signs `message` (the exact bytes: a serialized transaction message, the UTF-8 of a digest) with pure Ed25519
   * (RFC 8032 §5.1.6).
   *
   * @returns the 64-byte signature R ‖ S, already checked to verify against `publicKey` when it came from a service
   * @throws SignerError (a key service: unavailable, refusing, or a signature that does not verify)
   */
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

/**
 * The signer of a key pair held on this host. The secret key stays in the closure: the returned object has no
 * property from which it can be read.
 *
 * @param keypair the wallet's web3.js key pair (its secret key's first 32 bytes are the Ed25519 seed)
 */
export function svmKeypairSigner(keypair: Keypair): SvmSigner {
  const seed = keypair.secretKey.slice(0, 32);
  return {
    kind: 'key',
    publicKey: keypair.publicKey,
    signMessage: async (message) => ed25519.sign(message, seed),
  };
}
