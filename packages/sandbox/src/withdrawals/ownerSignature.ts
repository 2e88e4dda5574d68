/**
 * Verification of an owner's withdrawal signature over the digest of `withdrawalDigest` (docs/relay-contract.md "Withdrawal
 * endpoints", Signing by chain family): EVM owners sign the RAW 32 digest bytes as an EIP-191 personal message
 * (65-byte ECDSA, recovered with viem `verifyMessage`; contract wallets / ERC-1271 are unsupported, as
 * docs/relay-contract.md "Withdrawal endpoints" says); Solana owners sign the UTF-8 bytes of the 64-character hex digest
 * text with ed25519 (@noble/curves), the signature hex-encoded. Pure.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { hexToBytes, verifyMessage, type Address, type Hex } from 'viem';

/** Signature families the sandbox verifies. */
export type OwnerFamily = 'evm' | 'svm';

/** What {@link verifyOwnerSignature} checks. */
export interface OwnerSignatureInput {
  family: OwnerFamily;
  /** The owner: a 0x EVM address, or a base58 Solana public key. */
  owner: string;
  /** `withdrawalDigest(...)`: 64 lower-case hex digits, no 0x. */
  digest: string;
  /** 0x-prefixed hex signature (EVM 65 bytes; Solana 64 bytes). */
  signature: Hex;
}

/**
 * True when `signature` is the owner's signature of `digest` in its family's scheme; false for a wrong
 * signer, a tampered digest or a malformed signature (never throws for bad input).
 */
export async function verifyOwnerSignature(i: OwnerSignatureInput): Promise<boolean> {
  if (!/^[0-9a-f]{64}$/.test(i.digest)) return false;
  try {
    if (i.family === 'evm') {
      return await verifyMessage({ address: i.owner as Address, message: { raw: `0x${i.digest}` }, signature: i.signature }); // owner validated by the caller
    }
    const sig = hexToBytes(i.signature);
    const key = base58.decode(i.owner);
    if (sig.length !== 64 || key.length !== 32) return false;
    return ed25519.verify(sig, new TextEncoder().encode(i.digest), key);
  } catch {
    return false;
  }
}
