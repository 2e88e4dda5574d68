/**
 * Verifies an approver's signature over a request's canonical text (src/approvals/canonical.ts), against the
 * approver's configured public key (docs/approvals.md "Signatures"):
 * - an EVM address: EIP-191 `personal_sign` of the UTF-8 text (https://eips.ethereum.org/EIPS/eip-191), the
 *   signer recovered with viem (`recoverMessageAddress`) and compared with the address;
 * - a base58 ed25519 public key (Solana style): an ed25519 signature (RFC 8032) over the UTF-8 bytes of the text,
 *   checked with @noble/curves.
 * Signatures are hex (`0x` optional); an ed25519 one may also be base58. No I/O.
 */
import { recoverMessageAddress, type Hex } from 'viem';
import { ed25519 } from '@noble/curves/ed25519';
import { base58, hex } from '@scure/base';

/** The kind of an approver key. */
export type ApproverKeyKind = 'evm' | 'ed25519';

/** Which kind of key a configured approver key is (the schema accepts only these two forms). */
export function approverKeyKind(key: string): ApproverKeyKind {
  return /^0x[0-9a-fA-F]{40}$/.test(key) ? 'evm' : 'ed25519';
}

/** Why a signature was refused. */
export type SignatureRefusal = 'unknown_approver' | 'malformed_signature' | 'wrong_key';

/** The verdict on one signature. */
export type SignatureVerdict = { ok: true } | { ok: false; reason: SignatureRefusal; detail: string };

/**
 * Checks that `signature` is `approver`'s signature over `message`.
 *
 * @param approvers configured approvers, name → EVM address or base58 ed25519 public key
 * @param approver the approver's name
 * @param message the request's canonical text
 * @param signature hex (65 bytes for EVM, 64 for ed25519) or base58 (ed25519)
 * @returns ok, or the reason and one line of detail; never throws
 */
export async function verifyApproval(
  approvers: Readonly<Record<string, string>>,
  approver: string,
  message: string,
  signature: string,
): Promise<SignatureVerdict> {
  const key = Object.hasOwn(approvers, approver) ? approvers[approver] : undefined;
  if (key === undefined) {
    return { ok: false, reason: 'unknown_approver', detail: `"${approver}" is not listed under policy.approvals.approvers` };
  }
  if (approverKeyKind(key) === 'evm') return await verifyEvm(key, message, signature.trim(), approver);
  return verifyEd25519(key, message, signature.trim(), approver);
}

async function verifyEvm(address: string, message: string, signature: string, approver: string): Promise<SignatureVerdict> {
  const sig = signature.startsWith('0x') ? signature : `0x${signature}`;
  if (!/^0x[0-9a-fA-F]{130}$/.test(sig)) {
    return { ok: false, reason: 'malformed_signature', detail: 'an EVM signature is 65 bytes of hex (0x + 130 hex digits)' };
  }
  let signer: string;
  try {
    signer = await recoverMessageAddress({ message, signature: sig as Hex });
  } catch {
    return { ok: false, reason: 'malformed_signature', detail: 'no signer can be recovered from this EVM signature' };
  }
  if (signer.toLowerCase() !== address.toLowerCase()) {
    return { ok: false, reason: 'wrong_key', detail: `signed by ${signer}, not by ${approver}'s key ${address}` };
  }
  return { ok: true };
}

function verifyEd25519(publicKey: string, message: string, signature: string, approver: string): SignatureVerdict {
  const bytes = decodeEd25519Signature(signature);
  if (!bytes) {
    return { ok: false, reason: 'malformed_signature', detail: 'an ed25519 signature is 64 bytes, as hex (128 digits) or base58' };
  }
  let valid: boolean;
  try {
    valid = ed25519.verify(bytes, new TextEncoder().encode(message), base58.decode(publicKey));
  } catch {
    valid = false;
  }
  return valid ? { ok: true } : { ok: false, reason: 'wrong_key', detail: `not a signature by ${approver}'s key ${publicKey}` };
}

function decodeEd25519Signature(signature: string): Uint8Array | undefined {
  const digits = signature.startsWith('0x') ? signature.slice(2) : signature;
  try {
    if (/^[0-9a-fA-F]{128}$/.test(digits)) return hex.decode(digits.toLowerCase());
    const decoded = base58.decode(signature);
    return decoded.length === 64 ? decoded : undefined;
  } catch {
    return undefined;
  }
}
