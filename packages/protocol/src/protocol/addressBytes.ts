/**
 * Address → bytes encoding per VM type, as the settlement protocol hashes addresses inside an order
 * (settlement SDK `encodeAddress`): ethereum-vm and hyperliquid-vm hex bytes; solana-vm base58-decoded;
 * bitcoin-vm bech32/bech32m → [witnessVersion, ...program], legacy Base58Check → [version, ...hash160] (the
 * checksum dropped, nothing prepended: what the SDK hashes).
 *
 * Beyond the SDK, which knows mainnet addresses only (`1…`, `3…`, `bc1…`), testnet and regtest forms are
 * encoded the same way (`m…`/`n…`/`2…`, `tb1…`, `bcrt1…`): the bytes carry no network, so an order on the
 * sandbox's regtest chain hashes exactly as the same key's mainnet address would.
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

const base58check = createBase58check(sha256);
/** Base58Check version bytes of P2PKH and P2SH: mainnet 0x00 / 0x05, testnet and regtest 0x6f / 0xc4. */
const LEGACY_VERSIONS = new Set([0x00, 0x05, 0x6f, 0xc4]);
/** Human-readable parts of segwit addresses: mainnet, testnet, regtest. */
const SEGWIT_HRPS = new Set(['bc', 'tb', 'bcrt']);

function encodeBitcoinAddress(address: string): Uint8Array {
  if (/^[123mn]/.test(address)) {
    // Base58Check payload: version byte ‖ hash160, checksum verified and stripped.
    const payload = base58check.decode(address);
    if (payload.length !== 21 || !LEGACY_VERSIONS.has(payload[0]!)) {
      throw new AddressEncodingError(`not a P2PKH or P2SH Bitcoin address: ${address}`);
    }
    return payload;
  }
  const lower = address.toLowerCase();
  for (const codec of [bech32, bech32m]) {
    try {
      const { prefix, words } = codec.decode(lower as `${string}1${string}`, 90);
      const version = words[0];
      if (!SEGWIT_HRPS.has(prefix) || version === undefined) continue;
      if ((codec === bech32) !== (version === 0)) continue; // v0 uses bech32, v1+ bech32m (BIP-350)
      return Uint8Array.from([version, ...codec.fromWords(words.slice(1))]);
    } catch {
      // try the next codec
    }
  }
  throw new AddressEncodingError(`not a Bitcoin address: ${address}`);
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
