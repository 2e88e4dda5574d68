/**
 * The Bitcoin side of a Relay deposit (docs/design.md "Bitcoin step data"): the deposit is an ordinary transaction
 * paying the depository address, and the order id travels in its first OP_RETURN output as UTF-8 text:
 * `"0x" + 64 hex digits` (66 bytes), optionally followed by `"|depositor=<address>"`. Without that suffix the
 * depositor is the address the first input spends from.
 *
 * Also: the network of an address (mainnet `bc1…`/`1…`/`3…`, testnet `tb1…`/`m…`/`n…`/`2…`, regtest `bcrt1…`)
 * and address ↔ output-script conversion, both through bitcoinjs-lib. Pure: no I/O. Importing this module
 * registers tiny-secp256k1 with bitcoinjs (`initEccLib`), which taproot (P2TR) addresses need.
 */
import { address as btcAddress, initEccLib, networks, opcodes, payments, script as btcScript, type Network } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import type { Hex } from 'viem';
import { AddressEncodingError } from './addressBytes.ts';
import { OrderIdError } from './orderId.ts';

initEccLib(ecc);

/** Separator and key of the optional depositor suffix of the order-id memo. */
export const DEPOSITOR_MEMO_PREFIX = '|depositor=';
/** Length of the bare order-id memo: "0x" + 64 hex digits, in bytes. */
export const ORDER_ID_MEMO_BYTES = 66;

const MEMO_RE = /^0x([0-9a-fA-F]{64})(?:\|depositor=([A-Za-z0-9]+))?$/;
const ORDER_ID_RE = /^0x[0-9a-fA-F]{64}$/;

/** A decoded order-id memo. `orderId` is lower-case; `depositor` is present only when the memo names one. */
export interface OrderIdMemo {
  orderId: Hex;
  depositor?: string;
}

/**
 * The bitcoinjs network of an address, from its prefix: `bc1…`, `1…`, `3…` → bitcoin; `tb1…`, `m…`, `n…`,
 * `2…` → testnet; `bcrt1…` → regtest (bech32 prefixes in either case). Base58 testnet and regtest addresses
 * share their version bytes, so legacy `m…`/`n…`/`2…` addresses are reported as testnet; their output scripts
 * are the same on both. The prefix alone is read; {@link bitcoinOutputScript} validates the address.
 *
 * @returns the network, or undefined when the prefix is not a Bitcoin one
 */
export function bitcoinNetworkOf(address: string): Network | undefined {
  const lower = address.toLowerCase();
  if (lower.startsWith('bcrt1')) return networks.regtest;
  if (lower.startsWith('bc1')) return networks.bitcoin;
  if (lower.startsWith('tb1')) return networks.testnet;
  if (/^[13]/.test(address)) return networks.bitcoin;
  if (/^[mn2]/.test(address)) return networks.testnet;
  return undefined;
}

/**
 * The output script (scriptPubKey) that pays `address`, on the network its prefix names (bitcoinjs
 * `address.toOutputScript`: P2PKH, P2SH, P2WPKH, P2WSH, P2TR).
 *
 * @param address a Bitcoin address (case as written; bech32 must not mix cases)
 * @returns the script bytes
 * @throws AddressEncodingError when the prefix names no Bitcoin network or the address is malformed
 */
export function bitcoinOutputScript(address: string): Uint8Array {
  const network = bitcoinNetworkOf(address);
  if (!network) throw new AddressEncodingError(`not a Bitcoin address (unknown prefix): ${address}`);
  try {
    return btcAddress.toOutputScript(address, network);
  } catch (error) {
    throw new AddressEncodingError(`not a valid Bitcoin address: ${address}`, { cause: error });
  }
}

/**
 * The address an output script pays on `network` (bitcoinjs `address.fromOutputScript`), or undefined for
 * scripts that have no address form (OP_RETURN, bare multisig, non-standard scripts).
 */
export function bitcoinAddressOf(outputScript: Uint8Array, network: Network): string | undefined {
  try {
    return btcAddress.fromOutputScript(outputScript, network);
  } catch {
    return undefined; // no standard address for this script: callers treat it as "pays no known address"
  }
}

/**
 * Encodes the order-id memo as the bytes of the OP_RETURN push: UTF-8 of `"0x" + orderId hex` (66 bytes),
 * plus `"|depositor=" + depositor` when a depositor is given.
 *
 * @param orderId 32-byte order id as 0x hex (either case; written lower-case)
 * @param depositor optional Bitcoin address credited with the deposit
 * @throws OrderIdError when `orderId` is not 32 bytes of 0x hex
 * @throws AddressEncodingError when `depositor` is not a valid Bitcoin address
 * @example encodeOrderIdMemo(`0x${'ab'.repeat(32)}`) // 66 bytes: "0xabab…ab"
 */
export function encodeOrderIdMemo(orderId: Hex, depositor?: string): Uint8Array {
  if (!ORDER_ID_RE.test(orderId)) throw new OrderIdError(`order id must be 0x + 64 hex digits, got ${orderId}`);
  let text = orderId.toLowerCase();
  if (depositor !== undefined) {
    bitcoinOutputScript(depositor); // validates the address; throws AddressEncodingError
    text += `${DEPOSITOR_MEMO_PREFIX}${depositor}`;
  }
  return new TextEncoder().encode(text);
}

/**
 * Decodes the bytes of an OP_RETURN push as an order-id memo. Strict: exactly `"0x"` + 64 hex digits (either
 * case), optionally followed by `"|depositor="` and an alphanumeric address; nothing before or after.
 *
 * @returns the memo (order id lower-cased), or null for anything else
 */
export function decodeOrderIdMemo(data: Uint8Array): OrderIdMemo | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return null; // not UTF-8, hence not a memo
  }
  const match = MEMO_RE.exec(text);
  if (!match) return null;
  const orderId = `0x${match[1]!.toLowerCase()}` as Hex; // the regex matched 64 hex digits
  return match[2] === undefined ? { orderId } : { orderId, depositor: match[2] };
}

/** True when an output script starts with OP_RETURN (a provably unspendable data output). */
export function isOpReturnScript(outputScript: Uint8Array): boolean {
  return outputScript[0] === opcodes.OP_RETURN;
}

/**
 * The data of an OP_RETURN output script made of OP_RETURN and exactly one data push (bitcoinjs
 * `script.decompile`).
 *
 * @returns the pushed bytes, or null when the script is not OP_RETURN + one push (including malformed pushes)
 */
export function opReturnPayload(outputScript: Uint8Array): Uint8Array | null {
  if (!isOpReturnScript(outputScript)) return null;
  const chunks = btcScript.decompile(outputScript);
  if (!chunks || chunks.length !== 2) return null;
  const data = chunks[1];
  return data instanceof Uint8Array ? data : null;
}

/**
 * The OP_RETURN output script carrying the order-id memo (bitcoinjs `payments.embed`).
 *
 * @param orderId 32-byte order id as 0x hex
 * @param depositor optional Bitcoin address credited with the deposit
 * @throws as {@link encodeOrderIdMemo}
 */
export function orderIdMemoScript(orderId: Hex, depositor?: string): Uint8Array {
  const output = payments.embed({ data: [encodeOrderIdMemo(orderId, depositor)] }).output;
  // payments.embed always yields an output when given data; the check keeps the type honest.
  if (!output) throw new OrderIdError('could not build the OP_RETURN script of the order-id memo');
  return output;
}

/**
 * Decodes an output script as the order-id OP_RETURN.
 *
 * @returns the memo, or null when the script is not OP_RETURN + one push holding a valid memo
 */
export function decodeOrderIdMemoScript(outputScript: Uint8Array): OrderIdMemo | null {
  const data = opReturnPayload(outputScript);
  return data ? decodeOrderIdMemo(data) : null;
}

/**
 * The P2TR output script of a key-path-only taproot key (no script tree): the BIP-341 tweak of
 * `internalKey` (bitcoinjs `payments.p2tr`).
 *
 * @param internalKey 32-byte x-only internal public key
 * @throws AddressEncodingError when the key is not a valid x-only point
 */
export function p2trKeyPathScript(internalKey: Uint8Array): Uint8Array {
  let output: Uint8Array | undefined;
  try {
    output = payments.p2tr({ internalPubkey: internalKey }).output;
  } catch (error) {
    throw new AddressEncodingError('taproot internal key is not a valid x-only public key', { cause: error });
  }
  if (!output) throw new AddressEncodingError('taproot internal key gave no output script');
  return output;
}

/** True when two output scripts are byte-for-byte equal. */
export function sameScript(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
