import { bech32, bech32m } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { AddressEncodingError, encodeAddressBytes } from '../../../packages/protocol/src/protocol/addressBytes.ts';
import type { ProtocolVmType } from '../../../packages/protocol/src/protocol/vmTypes.ts';

describe('encodeAddressBytes', () => {
  it('encodes EVM hex as its lower-case bytes regardless of case', () => {
    expect(encodeAddressBytes('0x8B5E4dB198FfC7f69f8F11F6592f682717dF1D92', 'ethereum-vm')).toBe(
      '0x8b5e4db198ffc7f69f8f11f6592f682717df1d92',
    );
  });

  it('encodes a Solana address as its 32 base58-decoded bytes', () => {
    // The system program id is 32 zero bytes.
    expect(encodeAddressBytes('11111111111111111111111111111111', 'solana-vm')).toBe(`0x${'00'.repeat(32)}`);
  });

  it('encodes bech32 v0 and bech32m v1 Bitcoin addresses as [version, ...program]', () => {
    const program20 = new Uint8Array(20).fill(0x11);
    const program32 = new Uint8Array(32).fill(0x22);
    const p2wpkh = bech32.encode('bc', [0, ...bech32.toWords(program20)]);
    const p2tr = bech32m.encode('bc', [1, ...bech32m.toWords(program32)]);
    expect(encodeAddressBytes(p2wpkh, 'bitcoin-vm')).toBe(`0x00${'11'.repeat(20)}`);
    expect(encodeAddressBytes(p2tr, 'bitcoin-vm')).toBe(`0x01${'22'.repeat(32)}`);
    // The Bitcoin native-currency identifier: version 0 and a 19-byte zero program (as the settlement SDK has it).
    expect(encodeAddressBytes('bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8', 'bitcoin-vm')).toBe(`0x00${'00'.repeat(19)}`);
  });

  it('encodes legacy Base58Check addresses as version ‖ hash160, as the settlement SDK does (no extra prefix)', () => {
    // The genesis coinbase address and a well-known P2SH address.
    expect(encodeAddressBytes('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'bitcoin-vm')).toBe('0x0062e907b15cbf27d5425399ebf6f0fb50ebb88f18');
    expect(encodeAddressBytes('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'bitcoin-vm')).toBe('0x05b472a266d0bd89c13706a4132ccfb16f7c3b9fcb');
  });

  it('encodes testnet and regtest forms to the same bytes as the mainnet address of the same program', () => {
    const program = new Uint8Array(20).fill(0x33);
    const words = [0, ...bech32.toWords(program)];
    const mainnet = encodeAddressBytes(bech32.encode('bc', words), 'bitcoin-vm');
    expect(encodeAddressBytes(bech32.encode('tb', words), 'bitcoin-vm')).toBe(mainnet);
    expect(encodeAddressBytes(bech32.encode('bcrt', words), 'bitcoin-vm')).toBe(mainnet);
  });

  const malformed: Array<[string, ProtocolVmType, string]> = [
    ['0x12zz', 'ethereum-vm', 'non-hex characters'],
    ['03508bb71268bba25ecacc8f620e01866650532c', 'ethereum-vm', 'missing 0x prefix'],
    ['0x0OIl', 'solana-vm', 'characters outside the base58 alphabet'],
    ['not-an-address', 'solana-vm', 'dashes'],
    ['bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k9', 'bitcoin-vm', 'bad bech32 checksum'],
    [bech32.encode('ltc', [0, ...bech32.toWords(new Uint8Array(20))]), 'bitcoin-vm', "another coin's prefix"],
    ['LVg2kJoFNg45Nbpy53h7Fe1wKyeXVRhMH9', 'bitcoin-vm', 'a Litecoin Base58Check address'],
    [bech32.encode('bc', [1, ...bech32.toWords(new Uint8Array(32))]), 'bitcoin-vm', 'v1 program in bech32 (needs bech32m)'],
    [bech32m.encode('bc', [0, ...bech32m.toWords(new Uint8Array(20))]), 'bitcoin-vm', 'v0 program in bech32m (needs bech32)'],
    ['1BoatSLRHtKNngkdXEeobR76b53LETtpyX', 'bitcoin-vm', 'bad Base58Check checksum'],
    ['TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', 'tron-vm', 'unsupported VM'],
  ];
  it.each(malformed)('throws AddressEncodingError for %s (%s: %s)', (address, vm) => {
    expect(() => encodeAddressBytes(address, vm)).toThrow(AddressEncodingError);
    try {
      encodeAddressBytes(address, vm);
    } catch (error) {
      expect((error as AddressEncodingError).code).toBe('ADDRESS_ENCODING_FAILED');
    }
  });
});
