/**
 * Withdrawal digest signature of a Solana owner (docs/relay-contract.md "Withdrawal endpoints", Signing by chain family:
 * "sign the digest as a UTF-8 string, hex-encode the ed25519 signature"): ed25519 (RFC 8032) over the UTF-8 bytes of
 * the 64-character lower-case hex digest, returned as 0x-prefixed hex. Signed through the wallet's
 * {@link SvmSigner}, the same path for a key on the host and a key in a key service.
 */
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { SvmAdapterError } from './errors.ts';
import type { SvmSigner } from './signer.ts';

/**
 * Signs a withdrawal digest with a Solana wallet's signer.
 *
 * @param signer the owner's signer (src/chains/svm/signer.ts)
 * @param digestHex 64 hex digits without 0x (src/protocol/withdrawalDigest.ts)
 * @returns the 64-byte signature as `0x` + 128 hex digits
 * @throws SvmAdapterError when the digest is not 64 hex digits (nothing is signed); SignerError from a key service
 */
export async function signSvmWithdrawalDigest(signer: SvmSigner, digestHex: string): Promise<string> {
  if (!/^[0-9a-f]{64}$/.test(digestHex)) {
    throw new SvmAdapterError(`a withdrawal digest is 64 lower-case hex digits without 0x; got ${JSON.stringify(digestHex.slice(0, 80))}`);
  }
  return `0x${bytesToHex(await signer.signMessage(utf8ToBytes(digestHex)))}`;
}
