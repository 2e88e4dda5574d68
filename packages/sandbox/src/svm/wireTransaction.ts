/**
 * Decoding, sanitizing and signature-checking of wire transactions (legacy and v0) the way a validator's
 * RPC front end does before anything executes: size limit, deserialization, account-offset sanity, and an
 * ed25519 check of every required signature over the serialized message. Errors are the JSON-RPC errors a
 * real node answers with. Uses @solana/web3.js for the wire format and node:crypto for ed25519.
 */
import { createPublicKey, verify } from 'node:crypto';
import { VersionedTransaction, type VersionedMessage } from '@solana/web3.js';
import { base58, base64 } from '@scure/base';
import { RPC_ERROR, RpcError } from './rpcError.ts';

/** Largest serialized transaction a validator accepts (packet data size), bytes. */
export const MAX_TRANSACTION_BYTES = 1232;

/** Encodings a wire transaction may arrive in. */
export type WireEncoding = 'base58' | 'base64';

/** A decoded transaction and the facts the node keeps about it. */
export interface DecodedTransaction {
  tx: VersionedTransaction;
  /** The transaction's id: base58 of its first signature. */
  signature: string;
  version: 'legacy' | 0;
  /** Serialized message (what every signature signs). */
  messageBytes: Uint8Array;
  /** Base58 keys that must sign, in header order (the first pays the fee). */
  signerKeys: string[];
}

function invalid(message: string): RpcError {
  return new RpcError(RPC_ERROR.INVALID_PARAMS, message);
}

/**
 * Decodes a transaction as sent to `sendTransaction` / `simulateTransaction`.
 *
 * @param encoded the transaction, base58 or base64 text
 * @throws RpcError -32602 on bad encoding, a size over {@link MAX_TRANSACTION_BYTES}, bytes that do not
 *   deserialize, or a message that fails sanitization
 */
export function decodeWireTransaction(encoded: string, encoding: WireEncoding): DecodedTransaction {
  let wire: Uint8Array;
  try {
    wire = encoding === 'base58' ? base58.decode(encoded) : base64.decode(encoded);
  } catch (error) {
    throw invalid(`invalid ${encoding} encoding: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (wire.length > MAX_TRANSACTION_BYTES) {
    const maxEncoded = encoding === 'base58' ? 1683 : 1644;
    throw invalid(
      `${encoding} encoded solana_transaction::versioned::VersionedTransaction too large: ${encoded.length} bytes (max: encoded/raw ${maxEncoded}/${MAX_TRANSACTION_BYTES})`,
    );
  }
  return decodeTransactionBytes(wire);
}

/**
 * Decodes serialized transaction bytes (no size check) and sanitizes them.
 *
 * @throws RpcError -32602 when the bytes do not deserialize or fail sanitization
 */
export function decodeTransactionBytes(wire: Uint8Array): DecodedTransaction {
  let tx: VersionedTransaction;
  let messageBytes: Uint8Array;
  try {
    tx = VersionedTransaction.deserialize(wire);
    messageBytes = tx.message.serialize();
  } catch (error) {
    throw invalid(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  sanitize(tx);
  const first = tx.signatures[0];
  if (first === undefined) throw invalid('invalid transaction: Transaction failed to sanitize accounts offsets correctly');
  return {
    tx,
    signature: base58.encode(first),
    version: tx.version,
    messageBytes,
    signerKeys: tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures).map((k) => k.toBase58()),
  };
}

/** Number of account keys a message can reference: static keys plus every address-table lookup. */
export function totalAccountKeys(message: VersionedMessage): number {
  return (
    message.staticAccountKeys.length +
    message.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0)
  );
}

function sanitize(tx: VersionedTransaction): void {
  const m = tx.message;
  const h = m.header;
  const nStatic = m.staticAccountKeys.length;
  const total = totalAccountKeys(m);
  const bad =
    h.numRequiredSignatures === 0 ||
    tx.signatures.length !== h.numRequiredSignatures ||
    h.numReadonlySignedAccounts >= h.numRequiredSignatures ||
    h.numRequiredSignatures + h.numReadonlyUnsignedAccounts > nStatic ||
    total > 256 ||
    new Set(m.staticAccountKeys.map((k) => k.toBase58())).size !== nStatic ||
    m.compiledInstructions.some(
      (ix) => ix.programIdIndex === 0 || ix.programIdIndex >= nStatic || ix.accountKeyIndexes.some((i) => i >= total),
    );
  if (bad) throw invalid('invalid transaction: Transaction failed to sanitize accounts offsets correctly');
}

/**
 * Checks every required signature (ed25519 over the serialized message, key = the signer's static key).
 *
 * @returns the index of the first signature that does not verify, or -1 when all do
 */
export function firstBadSignature(d: DecodedTransaction): number {
  for (let i = 0; i < d.signerKeys.length; i++) {
    const signature = d.tx.signatures[i];
    const key = d.tx.message.staticAccountKeys[i];
    if (signature === undefined || key === undefined) return i;
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.toBytes()).toString('base64url') },
      format: 'jwk',
    });
    if (!verify(null, d.messageBytes, publicKey, signature)) return i;
  }
  return -1;
}

/** The JSON-RPC error a node answers when a signature does not verify. */
export function signatureVerificationError(): RpcError {
  return new RpcError(RPC_ERROR.TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
}
