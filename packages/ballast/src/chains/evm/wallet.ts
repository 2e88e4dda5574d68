/**
 * EVM signer construction: a 32-byte secp256k1 private key becomes a viem `LocalAccount` whose address is the
 * last 20 bytes of keccak256(uncompressed public key), EIP-55 checksummed.
 *
 * Only `src/chains/<vm>/` constructs signers; configuration loading calls this to derive the address it checks
 * against `wallets.<name>.address`. The result is returned rather than thrown so a caller collecting problems
 * (the config loader) can report each one with its own YAML path; the `problem` text never contains key material.
 */
import { bytesToHex, isHex, type Address, type Hex, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** A loaded EVM signer. `account` holds the key in a closure, never as a readable property. */
export interface EvmSigner {
  /** EIP-55 checksummed address derived from the key. */
  address: Address;
  /** viem local account (signs transactions, messages, typed data). */
  account: LocalAccount;
}

/** Why a key was refused: `malformed` = not 32 bytes; `out-of-range` = zero or not below the curve order. */
export type EvmKeyProblem = 'malformed' | 'out-of-range';

/** Outcome of {@link evmSignerFromKey}. */
export type EvmKeyResult =
  { ok: true; signer: EvmSigner } | { ok: false; reason: EvmKeyProblem; /** human text without key material */ problem: string };

/**
 * Builds an EVM signer from a raw private key.
 *
 * @param key 32 bytes, as bytes or as `0x` + 64 hex digits
 * @returns `{ ok: true, signer }`, or `{ ok: false, reason, problem }` when the key is not 32 bytes or is not a
 *   valid secp256k1 scalar (zero or ≥ the curve order); never throws for bad key material
 * @example
 * const r = evmSignerFromKey('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
 * if (r.ok) r.signer.address; // '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
 */
export function evmSignerFromKey(key: Uint8Array | Hex): EvmKeyResult {
  const hex: Hex = typeof key === 'string' ? key : bytesToHex(key);
  if (!isHex(hex, { strict: true }) || hex.length !== 66) {
    return { ok: false, reason: 'malformed', problem: 'not a private key: expected 32 bytes as hex (0x followed by 64 hex digits)' };
  }
  let account: LocalAccount;
  try {
    account = privateKeyToAccount(hex);
  } catch {
    return { ok: false, reason: 'out-of-range', problem: 'not a valid secp256k1 private key (zero or above the curve order)' };
  }
  return { ok: true, signer: { address: account.address, account } };
}
