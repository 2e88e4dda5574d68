/**
 * A key held by a key service that signs digests and messages (docs/keys.md): AWS KMS (src/chains/remote/awsKms.ts)
 * and Turnkey (src/chains/remote/turnkey.ts) implement it. The chain side (src/chains/<vm>/remote*.ts) builds the
 * transaction, asks for a signature over its digest or message bytes, and verifies what comes back against the
 * key's public half before anything is stored or sent.
 */
import type { SignerObserver } from './signerError.ts';

/** The curves Ballast signs with: secp256k1 for EVM and Bitcoin P2WPKH, Ed25519 for Solana. */
export type RemoteKeyCurve = 'secp256k1' | 'ed25519';

/** A key's public half: secp256k1 as the 65-byte uncompressed point, Ed25519 as its 32 bytes. */
export interface RemotePublicKey {
  curve: RemoteKeyCurve;
  bytes: Uint8Array;
}

/**
 * An ECDSA signature as a service returns it: DER-encoded (AWS KMS), or r and s as integers (Turnkey). Either may
 * have a high s and carries no trusted recovery id: src/chains/remote/secpSignature.ts normalizes and checks it.
 */
export type RawEcdsaSignature = { der: Uint8Array } | { r: bigint; s: bigint };

/** One key in a key service, ready to sign. */
export interface RemoteKey {
  /** The wallet's `signer.kind`. */
  readonly kind: 'awsKms' | 'turnkey';
  /** How the key is named in the service (KMS key id or alias; Turnkey private key id or account address). */
  readonly keyId: string;
  /** The key's public half, read once and kept. @throws SignerError */
  publicKey(): Promise<RemotePublicKey>;
  /**
   * Signs a 32-byte digest with ECDSA over secp256k1 (no hashing by the service) and hands the signature, as the
   * service gives it, to `accept`, which normalizes and verifies it (throwing `SIGNER_BAD_SIGNATURE`, counted as
   * such, when it does not verify). @returns what `accept` returns @throws SignerError
   */
  signDigest<T>(digest: Uint8Array, accept: (signature: RawEcdsaSignature) => T): Promise<T>;
  /**
   * Signs message bytes with pure Ed25519 (RFC 8032) and hands the 64 bytes to `accept`, which verifies them.
   * @returns what `accept` returns @throws SignerError
   */
  signEd25519<T>(message: Uint8Array, accept: (signature: Uint8Array) => T): Promise<T>;
  /** Where request outcomes go (the app wiring sets it). */
  observer: SignerObserver | undefined;
}
