/**
 * Withdrawal digest signature of a Solana owner (docs/relay-contract.md "Withdrawal endpoints", Signing by chain family:
 * "sign the digest as a UTF-8 string, hex-encode the ed25519 signature"): ed25519 (RFC 8032) over the UTF-8 bytes of
 * the 64-character lower-case hex digest, returned as 0x-prefixed hex.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { Keypair } from '@solana/web3.js';
import { SvmAdapterError } from './errors.ts';

/**
 * Signs a withdrawal digest with a Solana key pair.
 *
 * @param keypair the owner's key pair (its secret key's first 32 bytes are the ed25519 seed)
 * @param digestHex 64 hex digits without 0x (src/protocol/withdrawalDigest.ts)
 * @returns the 64-byte signature as `0x` + 128 hex digits
 * @throws SvmAdapterError when the digest is not 64 hex digits
 */
export function signSvmWithdrawalDigest(keypair: Keypair, digestHex: string): string {
  if (!/^[0-9a-f]{64}$/.test(digestHex)) {
    throw new SvmAdapterError(`a withdrawal digest is 64 lower-case hex digits without 0x; got ${JSON.stringify(digestHex.slice(0, 80))}`);
  }
  const signature = ed25519.sign(utf8ToBytes(digestHex), keypair.secretKey.slice(0, 32));
  return `0x${bytesToHex(signature)}`;
}
