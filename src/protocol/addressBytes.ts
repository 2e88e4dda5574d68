/**
 * Address → bytes encoding per VM type, as the settlement protocol hashes addresses inside an order
 * (settlement SDK `encodeAddress`): ethereum-vm and hyperliquid-vm hex bytes; solana-vm base58-decoded;
 * bitcoin-vm bech32/bech32m → [witnessVersion, ...program], legacy Base58Check → [0xff, version, ...hash].
 */
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, isHex, type Hex } from 'viem';
import type { ProtocolVmType } from './vmTypes.ts';
import { BallastError } from '../core/errors.ts';

/** Raised when an address cannot be encoded for its VM type. `code` is stable. */
export class AddressEncodingError extends BallastError {
  readonly code = 'ADDRESS_ENCODING_FAILED';
}

const LEGACY_BITCOIN_DISCRIMINATOR = 0xff;
const base58check = createBase58check(sha256);

function encodeBitcoinAddress(address: string): Uint8Array {
  if (address.startsWith('1') || address.startsWith('3')) {
    // Base58Check payload (version byte ‖ hash160) behind a discriminator byte, checksum stripped.
    return Uint8Array.from([LEGACY_BITCOIN_DISCRIMINATOR, ...base58check.decode(address)]);
  }
  const lower = address.toLowerCase();
  for (const codec of [bech32, bech32m]) {
    try {
      const { prefix, words } = codec.decode(lower as `${string}1${string}`, 90);
      const version = words[0];
      if (prefix !== 'bc' || version === undefined) continue;
      if ((codec === bech32) !== (version === 0)) continue; // v0 uses bech32, v1+ bech32m (BIP-350)
      return Uint8Array.from([version, ...codec.fromWords(words.slice(1))]);
    } catch {
      // try the next codec
    }
  }
  throw new AddressEncodingError(`not a mainnet Bitcoin address: ${address}`);
}

/**
 * Encodes an address as the bytes the order hash uses for its VM type.
 *
 * @param address address in the VM's own text form (0x hex, base58, bech32)
 * @param vmType protocol VM type of the chain the address belongs to
 * @returns 0x-prefixed hex of the bytes
 * @throws AddressEncodingError on a malformed address or a VM type Ballast cannot encode (tron, ton, xrp, lighter)
 */
export function encodeAddressBytes(address: string, vmType: ProtocolVmType): Hex {
  try {
    switch (vmType) {
      case 'ethereum-vm':
      case 'hyperliquid-vm':
        if (!isHex(address, { strict: true })) throw new AddressEncodingError(`not a hex address: ${address}`);
        return address.toLowerCase() as Hex; // isHex checked the shape; lower-casing keeps the same bytes
      case 'solana-vm':
        return bytesToHex(base58.decode(address));
      case 'bitcoin-vm':
        return bytesToHex(encodeBitcoinAddress(address));
      default:
        throw new AddressEncodingError(`address encoding for ${vmType} is not supported by Ballast`);
    }
  } catch (error) {
    if (error instanceof AddressEncodingError) throw error;
    throw new AddressEncodingError(`cannot encode ${vmType} address ${address}`, { cause: error });
  }
}
