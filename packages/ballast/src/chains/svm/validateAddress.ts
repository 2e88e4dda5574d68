/**
 * Solana wallet address check (the adapter's `validateAddress`): the canonical base58 text of a 32-byte
 * public key, compared case-sensitively. Pure.
 */
import { parseSvmAddress } from './wallet.ts';

/**
 * @param address candidate address
 * @returns null when `address` is a Solana address, else why not (an EVM `0x…` address gets its own message)
 * @example
 * validateSvmAddress('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'); // null
 * validateSvmAddress('0x0000000000000000000000000000000000000001'); // "0x0000… is an EVM address; …"
 */
export function validateSvmAddress(address: string): string | null {
  if (/^0x[0-9a-fA-F]*$/.test(address)) {
    return `${address} is an EVM address; a Solana address is the base58 text of a 32-byte public key`;
  }
  if (parseSvmAddress(address) !== undefined) return null;
  return `not a Solana address: ${address} (expected the base58 text of a 32-byte public key; base58 is case-sensitive)`;
}
