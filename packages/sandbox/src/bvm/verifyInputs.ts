/**
 * Input signature verification for the sandbox's Bitcoin node: every input must spend a P2WPKH output with a
 * valid BIP-143 ECDSA signature, or a P2TR output through the key path with a valid BIP-341 Schnorr
 * signature. Sighashes come from bitcoinjs-lib (`hashForWitnessV0` / `hashForWitnessV1`, every standard
 * sighash type), signature checks from tiny-secp256k1. Failures carry the reason Bitcoin Core gives
 * (`mandatory-script-verify-flag-failed (…)`). Pure: no I/O.
 */
import { crypto as btcCrypto, script as btcScript, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { BitcoinTxRejectedError, type BitcoinTxRejectCode } from './errors.ts';
import { classifyScript } from './script.ts';

/** The output an input spends: its script and value in satoshis. */
export interface Prevout {
  script: Uint8Array;
  /** Value in satoshis. */
  value: bigint;
}

/** Sighash types a signature may name (ALL, NONE, SINGLE, each with or without ANYONECANPAY). */
const DEFINED_SIGHASH = new Set([0x01, 0x02, 0x03, 0x81, 0x82, 0x83]);
/** Half the secp256k1 group order: signatures with a larger S are non-canonical (BIP-146 LOW_S). */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

function scriptFailure(code: BitcoinTxRejectCode, inputIndex: number, flag: string, hint?: string): BitcoinTxRejectedError {
  return new BitcoinTxRejectedError(code, { reason: `mandatory-script-verify-flag-failed (${flag})`, inputIndex }, hint);
}

function bytesToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** P2PKH script of a key hash: the BIP-143 scriptCode of a P2WPKH input. */
function p2wpkhScriptCode(keyHash: Uint8Array): Uint8Array {
  return Uint8Array.from([0x76, 0xa9, 20, ...keyHash, 0x88, 0xac]);
}

function verifyP2wpkh(tx: Transaction, index: number, prevout: Prevout): void {
  const witness = tx.ins[index]!.witness; // index < ins.length (caller iterates ins)
  if (witness.length === 0)
    throw scriptFailure('BTC_TX_BAD_WITNESS', index, 'Witness program was passed an empty witness', 'sign and finalize every input');
  if (witness.length !== 2)
    throw scriptFailure('BTC_TX_BAD_WITNESS', index, 'Witness program hash mismatch', 'a P2WPKH witness is [signature, public key]');
  const [sig, pubkey] = witness as [Uint8Array, Uint8Array]; // length checked just above
  const program = prevout.script.subarray(2);
  if (!equalBytes(btcCrypto.hash160(pubkey), program)) {
    throw new BitcoinTxRejectedError(
      'BTC_TX_PUBKEY_MISMATCH',
      { reason: 'mandatory-script-verify-flag-failed (Script failed an OP_EQUALVERIFY operation)', inputIndex: index },
      'the witness public key does not hash to the output being spent',
    );
  }
  if (sig.length === 0) {
    throw scriptFailure('BTC_TX_BAD_SIGNATURE', index, 'Script evaluated without error but finished with a false/empty top stack element');
  }
  const hashType = sig[sig.length - 1]!; // length > 0 checked above
  if (!DEFINED_SIGHASH.has(hashType)) {
    throw scriptFailure(
      'BTC_TX_BAD_SIGNATURE_ENCODING',
      index,
      'Signature hash type missing or not understood',
      `sighash type 0x${hashType.toString(16)}`,
    );
  }
  let compact: Uint8Array;
  try {
    compact = btcScript.signature.decode(sig).signature;
  } catch (error) {
    throw new BitcoinTxRejectedError(
      'BTC_TX_BAD_SIGNATURE_ENCODING',
      { reason: 'mandatory-script-verify-flag-failed (Non-canonical DER signature)', inputIndex: index },
      undefined,
      { cause: error },
    );
  }
  if (bytesToBigInt(compact.subarray(32)) > HALF_ORDER) {
    throw scriptFailure('BTC_TX_BAD_SIGNATURE_ENCODING', index, 'Non-canonical signature: S value is unnecessarily high');
  }
  if (pubkey.length !== 33 || (pubkey[0] !== 0x02 && pubkey[0] !== 0x03)) {
    throw scriptFailure('BTC_TX_BAD_SIGNATURE_ENCODING', index, 'Using non-compressed keys in segwit');
  }
  const sighash = tx.hashForWitnessV0(index, p2wpkhScriptCode(program), prevout.value, hashType);
  let valid: boolean;
  try {
    valid = ecc.verify(sighash, pubkey, compact, true);
  } catch {
    valid = false; // an off-curve key or an out-of-range r/s is simply not a valid signature
  }
  if (!valid) {
    throw scriptFailure(
      'BTC_TX_BAD_SIGNATURE',
      index,
      'Signature must be zero for failed CHECK(MULTI)SIG operation',
      'the ECDSA signature does not match the BIP-143 sighash of this input',
    );
  }
}

function verifyP2trKeyPath(tx: Transaction, index: number, prevouts: readonly Prevout[]): void {
  const witness = tx.ins[index]!.witness; // index < ins.length (caller iterates ins)
  if (witness.length === 0)
    throw scriptFailure('BTC_TX_BAD_WITNESS', index, 'Witness program was passed an empty witness', 'sign and finalize every input');
  const last = witness[witness.length - 1]!; // length > 0 checked above
  if (witness.length >= 2 && last[0] === 0x50) {
    throw new BitcoinTxRejectedError(
      'BTC_TX_BAD_WITNESS',
      { reason: 'bad-witness-nonstandard', inputIndex: index },
      'a taproot annex is non-standard',
    );
  }
  if (witness.length !== 1) {
    throw new BitcoinTxRejectedError(
      'BTC_TX_UNSUPPORTED_INPUT',
      { reason: 'sandbox-unsupported-input (taproot script-path spend)', inputIndex: index },
      'the sandbox verifies P2TR key-path spends only (a witness of one 64- or 65-byte signature)',
    );
  }
  const sig = witness[0]!; // length 1 checked above
  if (sig.length !== 64 && sig.length !== 65) throw scriptFailure('BTC_TX_BAD_SIGNATURE_ENCODING', index, 'Invalid Schnorr signature size');
  const hashType = sig.length === 65 ? sig[64]! : Transaction.SIGHASH_DEFAULT; // length 65 has a byte 64
  if (sig.length === 65 && !DEFINED_SIGHASH.has(hashType)) {
    throw scriptFailure(
      'BTC_TX_BAD_SIGNATURE_ENCODING',
      index,
      'Invalid Schnorr signature hash type',
      `sighash type 0x${hashType.toString(16)}`,
    );
  }
  if ((hashType & Transaction.SIGHASH_OUTPUT_MASK) === Transaction.SIGHASH_SINGLE && index >= tx.outs.length) {
    throw scriptFailure(
      'BTC_TX_BAD_SIGNATURE_ENCODING',
      index,
      'Invalid Schnorr signature hash type',
      'SIGHASH_SINGLE without a matching output',
    );
  }
  const sighash = tx.hashForWitnessV1(
    index,
    prevouts.map((p) => p.script),
    prevouts.map((p) => p.value),
    hashType,
  );
  let valid: boolean;
  try {
    valid = ecc.verifySchnorr(sighash, prevouts[index]!.script.subarray(2), sig.subarray(0, 64)); // index < prevouts.length
  } catch {
    valid = false; // an output key that is not a curve point cannot be spent by any signature
  }
  if (!valid) {
    throw scriptFailure(
      'BTC_TX_BAD_SIGNATURE',
      index,
      'Invalid Schnorr signature',
      'the signature does not match the BIP-341 sighash of this input and the output key',
    );
  }
}

/**
 * Verifies every input's scriptSig/witness against the output it spends. P2WPKH: the witness is
 * [DER signature + sighash byte, compressed public key], hash160(public key) equals the program, the
 * signature is low-S and verifies over the BIP-143 sighash. P2TR: key path only (one 64-byte signature for
 * SIGHASH_DEFAULT or 65 bytes with an explicit type), verified over the BIP-341 sighash that commits to all
 * prevouts' amounts and scripts. Every other script type is rejected.
 *
 * @param tx the transaction (witness included)
 * @param prevouts the output each input spends, in input order (`prevouts.length === tx.ins.length`)
 * @throws BitcoinTxRejectedError the first failing input: `BTC_TX_UNSUPPORTED_INPUT`, `BTC_TX_BAD_WITNESS`,
 *   `BTC_TX_PUBKEY_MISMATCH`, `BTC_TX_BAD_SIGNATURE_ENCODING` or `BTC_TX_BAD_SIGNATURE`
 * @throws Error when `prevouts` does not have one entry per input (a caller bug)
 */
export function verifyInputSignatures(tx: Transaction, prevouts: readonly Prevout[]): void {
  if (prevouts.length !== tx.ins.length) throw new Error(`verifyInputSignatures: ${prevouts.length} prevouts for ${tx.ins.length} inputs`);
  tx.ins.forEach((input, index) => {
    const prevout = prevouts[index]!; // same length checked above
    const type = classifyScript(prevout.script);
    if (type !== 'v0_p2wpkh' && type !== 'v1_p2tr') {
      throw new BitcoinTxRejectedError(
        'BTC_TX_UNSUPPORTED_INPUT',
        { reason: `sandbox-unsupported-input (spends ${type})`, inputIndex: index },
        'the sandbox verifies P2WPKH and P2TR key-path inputs only',
      );
    }
    if (input.script.length !== 0) throw scriptFailure('BTC_TX_BAD_WITNESS', index, 'Witness requires empty scriptSig');
    if (type === 'v0_p2wpkh') verifyP2wpkh(tx, index, prevout);
    else verifyP2trKeyPath(tx, index, prevouts);
  });
}
