/**
 * A Bitcoin wallet whose key is in a key service (docs/keys.md), P2WPKH only: each input's BIP-143 sighash is
 * signed by AWS KMS with `ECDSA_SHA_256` over the 32-byte digest (`MessageType: DIGEST`;
 * https://docs.aws.amazon.com/kms/latest/APIReference/API_Sign.html), and the DER answer is turned into the
 * 64-byte compact low-s signature bitcoinjs encodes (BIP-62, BIP-146: a high s is not standard) after it is
 * verified against the key's public key (src/chains/remote/secpSignature.ts). The configured address must be the
 * P2WPKH address (BIP-141, BIP-173) of the key's compressed public key, checked at start and before signing.
 * KMS offers no BIP-340 Schnorr signature, so a P2TR wallet cannot keep its key there (refused at load).
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { payments } from 'bitcoinjs-lib';
import type { RemoteKey } from '../remote/remoteKey.ts';
import { recoverableSignature } from '../remote/secpSignature.ts';
import { SignerError } from '../remote/signerError.ts';
import { BVM_NETWORK_PARAMS, type BvmAsyncSigner, type BvmNetwork, type BvmRemoteKey, type BvmRemoteSigner } from './wallet.ts';

/**
 * The key of wallet `wallet` at the P2WPKH `address` on `network`, signing with `kms`. No request is made until
 * it signs (`signer.connect()`).
 *
 * @throws (from `signer.connect()` and the signer's `sign`) SignerError: `SIGNER_UNAVAILABLE` / `SIGNER_REFUSED`
 *   from the service, `SIGNER_UNSUPPORTED` / `SIGNER_KEY_MISMATCH` for a key that is not `address`'s,
 *   `SIGNER_BAD_SIGNATURE` for a signature that does not verify against it
 */
export function bvmRemoteKey(wallet: string, address: string, network: BvmNetwork, kms: RemoteKey): BvmRemoteKey {
  const who = { wallet, kind: kms.kind };
  const signer: BvmRemoteSigner = {
    kind: kms.kind,
    async connect(): Promise<BvmAsyncSigner> {
      const { compressed, uncompressed } = await checkBvmRemoteAddress(wallet, address, network, kms);
      return {
        publicKey: compressed,
        async sign(hash) {
          const sig = await kms.signDigest(hash, (raw) => recoverableSignature(raw, hash, uncompressed, who));
          return new secp256k1.Signature(sig.r, sig.s).toCompactRawBytes();
        },
      };
    },
  };
  return { address, network, addressType: 'p2wpkh', signer };
}

/**
 * The service's key must be `address`'s: `address` is the P2WPKH address of its compressed public key.
 *
 * @returns the key's public key, compressed (33 bytes) and uncompressed (65 bytes)
 * @throws SignerError `SIGNER_KEY_MISMATCH` for another key; `SIGNER_UNSUPPORTED` for a key that is not secp256k1
 */
export async function checkBvmRemoteAddress(
  wallet: string,
  address: string,
  network: BvmNetwork,
  kms: RemoteKey,
): Promise<{ compressed: Uint8Array; uncompressed: Uint8Array }> {
  const pk = await kms.publicKey();
  if (pk.curve !== 'secp256k1') {
    throw new SignerError(
      'SIGNER_UNSUPPORTED',
      wallet,
      kms.kind,
      `a Bitcoin wallet needs a secp256k1 key (KMS: ECC_SECG_P256K1), this one is ${pk.curve}`,
    );
  }
  const compressed = secp256k1.ProjectivePoint.fromHex(pk.bytes).toRawBytes(true);
  const actual = payments.p2wpkh({ pubkey: compressed, network: BVM_NETWORK_PARAMS[network] }).address;
  if (actual !== address) {
    throw new SignerError(
      'SIGNER_KEY_MISMATCH',
      wallet,
      kms.kind,
      `the key's p2wpkh address is ${actual}, wallets.${wallet}.address is ${address}`,
    );
  }
  return { compressed, uncompressed: pk.bytes };
}
