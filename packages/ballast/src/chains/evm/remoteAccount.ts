/**
 * An EVM account whose key is in a key service (docs/keys.md): a viem account built with `toAccount`, so the
 * executor, replacements, cancels, withdrawals' EIP-191 messages and everything else that signs use the same code
 * path as with a local key. Each digest (the EIP-1559/legacy transaction hash, the EIP-191 message hash, the
 * EIP-712 hash) is signed by the service; the signature is normalized to low s, its recovery id is found against
 * the service's public key, and it is checked to recover the configured address before viem serializes it.
 */
import {
  getAddress,
  hashMessage,
  hashTypedData,
  hexToBytes,
  keccak256,
  serializeSignature,
  serializeTransaction,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
  type Signature,
} from 'viem';
import { publicKeyToAddress, toAccount } from 'viem/accounts';
import type { RemoteKey } from '../remote/remoteKey.ts';
import { recoverableSignature } from '../remote/secpSignature.ts';
import { SignerError } from '../remote/signerError.ts';

/**
 * The account of wallet `wallet` at `address`, signing with `key`. No request is made until it signs.
 *
 * @throws (from its signing functions) SignerError: service unavailable or refusing, a signature that does not
 *   verify, or a key that is not `address`'s
 */
export function evmRemoteAccount(wallet: string, address: Address, key: RemoteKey): LocalAccount {
  const who = { wallet, kind: key.kind };
  async function signHash(hash: Hex): Promise<Signature> {
    const publicKey = await evmPublicKey(wallet, key);
    const actual = publicKeyToAddress(toHex(publicKey));
    if (actual !== address) {
      throw new SignerError('SIGNER_KEY_MISMATCH', wallet, key.kind, `the key's address is ${actual}, the wallet's is ${address}`);
    }
    const digest = hexToBytes(hash);
    const sig = await key.signDigest(digest, (raw) => recoverableSignature(raw, digest, publicKey, who));
    return { r: toHex(sig.r, { size: 32 }), s: toHex(sig.s, { size: 32 }), yParity: sig.recovery };
  }
  return toAccount({
    address,
    sign: async ({ hash }) => serializeSignature(await signHash(hash)),
    signMessage: async ({ message }) => serializeSignature(await signHash(hashMessage(message))),
    signTypedData: async (typedData) => serializeSignature(await signHash(hashTypedData(typedData))),
    async signTransaction(transaction, options) {
      const serializer = options?.serializer ?? serializeTransaction;
      return serializer(transaction, await signHash(keccak256(await serializer(transaction))));
    },
  });
}

/**
 * The address the service's key stands for, checked against the configured one at start (docs/keys.md).
 *
 * @throws SignerError `SIGNER_KEY_MISMATCH` when it is another address; `SIGNER_UNSUPPORTED` for a key that is not secp256k1
 */
export async function checkEvmRemoteAddress(wallet: string, address: Address, key: RemoteKey): Promise<void> {
  const actual = publicKeyToAddress(toHex(await evmPublicKey(wallet, key)));
  if (actual !== getAddress(address)) {
    throw new SignerError(
      'SIGNER_KEY_MISMATCH',
      wallet,
      key.kind,
      `the key's address is ${actual}, wallets.${wallet}.address is ${address}`,
    );
  }
}

async function evmPublicKey(wallet: string, key: RemoteKey): Promise<Uint8Array> {
  const pk = await key.publicKey();
  if (pk.curve !== 'secp256k1') {
    throw new SignerError(
      'SIGNER_UNSUPPORTED',
      wallet,
      key.kind,
      `an EVM wallet needs a secp256k1 key (KMS: ECC_SECG_P256K1), this one is ${pk.curve}`,
    );
  }
  return pk.bytes;
}
