/**
 * Signing a request's canonical text with an approver's own key, as `ballast approve --key-file` does
 * (docs/approvals.md "Signatures"): an EVM private key (hex) signs with EIP-191 `personal_sign`
 * (src/chains/evm/messageSigning.ts); a Solana keypair (the JSON byte array solana-keygen writes, or its base58
 * text) signs with ed25519 (src/chains/svm/messageSigning.ts). The key text is never put into a message. No I/O:
 * the caller reads the file.
 */
import { base58 } from '@scure/base';
import { approverKeyKind } from '../approvals/verify.ts';
import { signEip191 } from '../chains/evm/messageSigning.ts';
import { signEd25519 } from '../chains/svm/messageSigning.ts';

/** A signature made with a key file, and the public key (EVM address or base58 ed25519 key) it belongs to. */
export interface KeySignature {
  publicKey: string;
  signature: string;
}

/**
 * Signs `message` with the key in `keyText`.
 *
 * @param keyText an EVM private key (`0x` + 64 hex digits, `0x` optional), or a 64-byte Solana secret key as a
 *   JSON byte array or base58
 * @returns the public key and the signature (EVM: 0x-hex of 65 bytes; ed25519: 0x-hex of 64 bytes)
 * @throws Error naming the accepted forms when the text is neither
 */
export async function signWithKey(keyText: string, message: string): Promise<KeySignature> {
  const text = keyText.trim();
  const evm = /^(0x)?[0-9a-fA-F]{64}$/.test(text);
  if (evm) {
    const signed = await signEip191((text.startsWith('0x') ? text : `0x${text}`) as `0x${string}`, message);
    return { publicKey: signed.address, signature: signed.signature };
  }
  const secret = solanaSecret(text);
  if (!secret) {
    throw new Error('the key file holds neither an EVM private key (0x + 64 hex digits) nor a Solana keypair (JSON byte array or base58)');
  }
  return signEd25519(secret.slice(0, 32), message);
}

/**
 * The name of the approver whose configured key is `publicKey` (EVM addresses compared without case), or
 * undefined.
 */
export function approverFor(approvers: Readonly<Record<string, string>>, publicKey: string): string | undefined {
  for (const [name, key] of Object.entries(approvers)) {
    if (approverKeyKind(key) === 'evm' ? key.toLowerCase() === publicKey.toLowerCase() : key === publicKey) return name;
  }
  return undefined;
}

function solanaSecret(text: string): Uint8Array | undefined {
  try {
    if (text.startsWith('[')) {
      const parsed: unknown = JSON.parse(text);
      if (!Array.isArray(parsed) || !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return undefined;
      return parsed.length === 64 ? Uint8Array.from(parsed as number[]) : undefined;
    }
    const bytes = base58.decode(text);
    return bytes.length === 64 ? bytes : undefined;
  } catch {
    return undefined;
  }
}
