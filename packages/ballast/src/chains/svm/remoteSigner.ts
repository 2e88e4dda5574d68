/**
 * A Solana wallet whose key is in a key service (docs/keys.md): an {@link SvmSigner} whose `signMessage` asks AWS
 * KMS for a pure Ed25519 signature (`ECC_NIST_EDWARDS25519`, `ED25519_SHA_512`, `MessageType: RAW`;
 * https://docs.aws.amazon.com/kms/latest/developerguide/asymmetric-key-specs.html) and verifies it locally
 * (RFC 8032 §5.1.7, @noble/curves) against the wallet's configured public key before returning it: a signature
 * by another key or an altered one is refused and nothing is added to a transaction or stored.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import type { PublicKey } from '@solana/web3.js';
import type { RemoteKey } from '../remote/remoteKey.ts';
import { SignerError } from '../remote/signerError.ts';
import type { SvmSigner } from './signer.ts';

/**
 * The signer of wallet `wallet` at `address`, signing with `key`. No request is made until it signs.
 *
 * @param address the configured address (its 32 bytes are the public key every signature is checked against)
 * @throws (from `signMessage`) SignerError: `SIGNER_UNAVAILABLE` / `SIGNER_REFUSED` from the service,
 *   `SIGNER_UNSUPPORTED` for a key that is not Ed25519, `SIGNER_KEY_MISMATCH` for another key than `address`,
 *   `SIGNER_BAD_SIGNATURE` for a signature that does not verify
 */
export function svmRemoteSigner(wallet: string, address: PublicKey, key: RemoteKey): SvmSigner {
  const expected = address.toBytes();
  return {
    kind: key.kind,
    publicKey: address,
    async signMessage(message) {
      await checkSvmRemoteAddress(wallet, address.toBase58(), key); // the public key is read once and kept by the key
      return await key.signEd25519(message, (signature) => {
        let valid = false;
        try {
          valid = signature.length === 64 && ed25519.verify(signature, message, expected);
        } catch {
          valid = false; // malformed point or scalar: refused below
        }
        if (!valid) {
          throw new SignerError(
            'SIGNER_BAD_SIGNATURE',
            wallet,
            key.kind,
            `the signature does not verify against ${address.toBase58()} (another key, or altered); nothing is signed`,
          );
        }
        return signature;
      });
    },
  };
}

/**
 * The service's key must be `address`'s (checked at start, and before each signature).
 *
 * @param address the configured base58 address
 * @throws SignerError `SIGNER_KEY_MISMATCH` when it is another key; `SIGNER_UNSUPPORTED` for a key that is not Ed25519
 */
export async function checkSvmRemoteAddress(wallet: string, address: string, key: RemoteKey): Promise<void> {
  const pk = await key.publicKey();
  if (pk.curve !== 'ed25519') {
    throw new SignerError(
      'SIGNER_UNSUPPORTED',
      wallet,
      key.kind,
      `a Solana wallet needs an Ed25519 key (KMS: ECC_NIST_EDWARDS25519), this one is ${pk.curve}`,
    );
  }
  const actual = base58.encode(pk.bytes);
  if (actual !== address) {
    throw new SignerError(
      'SIGNER_KEY_MISMATCH',
      wallet,
      key.kind,
      `the key's address is ${actual}, wallets.${wallet}.address is ${address}`,
    );
  }
}
