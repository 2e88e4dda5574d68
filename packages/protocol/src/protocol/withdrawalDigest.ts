/**
 * The digest an owner signs to withdraw an unfilled deposit (docs/relay-contract.md "Withdrawal endpoints", Signing): the
 * object `{operation: "withdrawal", chainId, currency, amount, ownerChainId, owner, recipient, nonce, additionalData?}`
 * serialised as JSON with keys sorted at every depth and no whitespace, SHA-256 over its UTF-8 bytes, hex
 * without a 0x prefix. Pure; used by Ballast to sign and by the sandbox to verify.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { configure } from 'safe-stable-stringify';

/** Sorted keys at every depth, no whitespace; anything JSON cannot express is an error, not a silent drop. */
const canonicalJson = configure({ deterministic: true, bigint: false, strict: true, circularValue: Error });

/**
 * The fields of a withdrawal request that the signature covers (docs/relay-contract.md "Withdrawal endpoints", POST
 * /withdrawals/request). Chain ids are protocol chain slugs (`chains[].protocol.v2.chainId`), `currency` is the
 * token address on the withdrawal chain (zero address for native), `amount` is base units as a decimal string
 * exactly as returned by prepare, `nonce` and `additionalData` exactly as returned by prepare (omit
 * `additionalData` when prepare gave none).
 */
export interface WithdrawalDigestFields extends WithdrawalRequestFields {
  nonce: string;
  additionalData?: Record<string, unknown>;
}

/**
 * Fields of POST /withdrawals/request (prepare and execute) that name the withdrawal. Chain ids are protocol
 * slugs (`chains[].protocol.v2.chainId`), `amount` base units as a decimal string.
 */
export interface WithdrawalRequestFields {
  chainId: string;
  currency: string;
  amount: string;
  ownerChainId: string;
  owner: string;
  recipient: string;
}

/**
 * The exact text that is hashed: canonical JSON of the signed object (operation constant `withdrawal`).
 *
 * @throws TypeError when `additionalData` holds a value JSON cannot express (bigint, function, cycle)
 */
export function withdrawalSigningText(fields: WithdrawalDigestFields): string {
  const signed: Record<string, unknown> = {
    operation: 'withdrawal',
    chainId: fields.chainId,
    currency: fields.currency,
    amount: fields.amount,
    ownerChainId: fields.ownerChainId,
    owner: fields.owner,
    recipient: fields.recipient,
    nonce: fields.nonce,
  };
  if (fields.additionalData !== undefined) signed.additionalData = fields.additionalData;
  const text = canonicalJson(signed);
  if (typeof text !== 'string') throw new TypeError('withdrawal fields could not be serialised as JSON');
  return text;
}

/**
 * SHA-256 hex digest (64 lower-case hex digits, no 0x) of {@link withdrawalSigningText}. EVM and Hyperliquid
 * owners sign its raw 32 bytes as a personal message (EIP-191); Solana owners sign the 64-character hex text
 * itself with ed25519 (docs/relay-contract.md "Withdrawal endpoints", Signing by chain family).
 *
 * @throws TypeError as {@link withdrawalSigningText}
 */
export function withdrawalDigest(fields: WithdrawalDigestFields): string {
  return bytesToHex(sha256(utf8ToBytes(withdrawalSigningText(fields))));
}
