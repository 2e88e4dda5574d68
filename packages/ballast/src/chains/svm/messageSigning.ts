/**
 * ed25519 signature (RFC 8032) over the UTF-8 bytes of a text with a Solana-style secret key, through
 * @noble/curves: how `ballast approve --key-file` signs an approval request for an ed25519 approver
 * (docs/approvals.md). The key is an approver's own, never a configured wallet's; it is used once and not kept.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { base58, hex } from '@scure/base';

/**
 * Signs `message` with the 32-byte seed of a Solana keypair (the first half of its 64-byte secret key).
 *
 * @returns the base58 public key and the 64-byte signature as 0x-hex
 */
export function signEd25519(seed: Uint8Array, message: string): { publicKey: string; signature: string } {
  const publicKey = base58.encode(ed25519.getPublicKey(seed));
  const signature = `0x${hex.encode(ed25519.sign(new TextEncoder().encode(message), seed))}`;
  return { publicKey, signature };
}
