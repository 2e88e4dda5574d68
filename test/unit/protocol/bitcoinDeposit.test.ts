/**
 * The order-id OP_RETURN codec and the Bitcoin address helpers: exact bytes of the memo and its script,
 * strict decoding (anything but "0x" + 64 hex digits [+ "|depositor=<address>"] is null), networks by prefix,
 * and address → script against public vectors (BIP-86) and an independent bech32 decoder (@scure/base).
 */
import { bech32 } from '@scure/base';
import { networks } from 'bitcoinjs-lib';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { AddressEncodingError } from '../../../packages/protocol/src/protocol/addressBytes.ts';
import {
  bitcoinAddressOf,
  bitcoinNetworkOf,
  bitcoinOutputScript,
  decodeOrderIdMemo,
  decodeOrderIdMemoScript,
  encodeOrderIdMemo,
  isOpReturnScript,
  opReturnPayload,
  orderIdMemoScript,
  p2trKeyPathScript,
  sameScript,
} from '../../../packages/protocol/src/protocol/bitcoinDeposit.ts';
import { OrderIdError } from '../../../packages/protocol/src/protocol/orderId.ts';

const ID: Hex = `0x${'ab'.repeat(16)}${'0123456789cdef00'.repeat(2)}`;
/** BIP-86 test vector m/86'/0'/0'/0/0 of the "abandon … about" mnemonic: internal key, output key, address. */
const BIP86 = {
  internalKey: 'cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115',
  outputKey: 'a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c',
  address: 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
};
const P2WPKH_PROGRAM = '11'.repeat(20);
const p2wpkh = (hrp: string) => bech32.encode(hrp, [0, ...bech32.toWords(Buffer.from(P2WPKH_PROGRAM, 'hex'))]);

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('encodeOrderIdMemo / orderIdMemoScript', () => {
  it('writes "0x" + the lower-case id as 66 bytes of UTF-8, pushed by OP_RETURN with a 0x42 push opcode', () => {
    const upper = ID.toUpperCase().replace('0X', '0x') as Hex; // still 0x + 64 hex digits, only the case changed
    const memo = encodeOrderIdMemo(upper);
    expect(memo.length).toBe(66);
    expect(new TextDecoder().decode(memo)).toBe(ID);
    expect(hex(orderIdMemoScript(ID))).toBe(`6a42${hex(utf8(ID))}`);
  });

  it('appends "|depositor=<address>" and uses OP_PUSHDATA1 once the memo exceeds 75 bytes', () => {
    const depositor = p2wpkh('bc');
    const text = `${ID}|depositor=${depositor}`;
    expect(new TextDecoder().decode(encodeOrderIdMemo(ID, depositor))).toBe(text);
    expect(hex(orderIdMemoScript(ID, depositor))).toBe(`6a4c${text.length.toString(16)}${hex(utf8(text))}`);
  });

  it('refuses a malformed id (OrderIdError) and an invalid depositor (AddressEncodingError)', () => {
    expect(() => encodeOrderIdMemo('0x1234' as Hex)).toThrow(OrderIdError); // deliberately not 32 bytes
    expect(() => encodeOrderIdMemo(ID, 'bc1qnotanaddress')).toThrow(AddressEncodingError);
  });
});

describe('decodeOrderIdMemo', () => {
  it('decodes the bare memo, lower-casing an upper-case id', () => {
    expect(decodeOrderIdMemo(utf8(ID))).toEqual({ orderId: ID });
    expect(decodeOrderIdMemo(utf8(`0x${ID.slice(2).toUpperCase()}`))).toEqual({ orderId: ID });
  });

  it('decodes the depositor suffix', () => {
    const depositor = p2wpkh('bcrt');
    expect(decodeOrderIdMemo(utf8(`${ID}|depositor=${depositor}`))).toEqual({ orderId: ID, depositor });
  });

  it.each([
    ['63 hex digits', ID.slice(0, -1)],
    ['65 hex digits', `${ID}0`],
    ['"0X" prefix', `0X${ID.slice(2)}`],
    ['no prefix', ID.slice(2)],
    ['a non-hex digit', `${ID.slice(0, -1)}g`],
    ['a leading space', ` ${ID}`],
    ['a trailing newline', `${ID}\n`],
    ['an empty depositor', `${ID}|depositor=`],
    ['a depositor with punctuation', `${ID}|depositor=bc1q!`],
    ['another key', `${ID}|refund=bc1qxyz`],
    ['an empty memo', ''],
  ])('returns null for %s', (_what, text) => {
    expect(decodeOrderIdMemo(utf8(text))).toBeNull();
  });

  it('returns null for bytes that are not UTF-8', () => {
    expect(decodeOrderIdMemo(Uint8Array.from([0x30, 0x78, 0xff, 0xfe]))).toBeNull();
  });
});

describe('OP_RETURN scripts', () => {
  it('decodes the memo script built by orderIdMemoScript, and nothing from other scripts', () => {
    expect(decodeOrderIdMemoScript(orderIdMemoScript(ID))).toEqual({ orderId: ID });
    const payToAddress = bitcoinOutputScript(p2wpkh('bc'));
    expect(isOpReturnScript(payToAddress)).toBe(false);
    expect(decodeOrderIdMemoScript(payToAddress)).toBeNull();
  });

  it('reads only OP_RETURN followed by exactly one push', () => {
    const one = Uint8Array.from([0x6a, 0x02, 0xaa, 0xbb]);
    const two = Uint8Array.from([0x6a, 0x01, 0xaa, 0x01, 0xbb]);
    const bare = Uint8Array.from([0x6a]);
    const truncated = Uint8Array.from([0x6a, 0x05, 0xaa]);
    expect(hex(opReturnPayload(one)!)).toBe('aabb');
    for (const script of [two, bare, truncated]) {
      expect(isOpReturnScript(script)).toBe(true);
      expect(opReturnPayload(script)).toBeNull();
    }
  });
});

describe('bitcoinNetworkOf', () => {
  it.each([
    [p2wpkh('bc'), networks.bitcoin],
    [p2wpkh('bc').toUpperCase(), networks.bitcoin],
    [p2wpkh('tb'), networks.testnet],
    [p2wpkh('bcrt'), networks.regtest],
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', networks.bitcoin],
    ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', networks.testnet],
  ])('%s', (address, network) => {
    expect(bitcoinNetworkOf(address)).toBe(network);
  });

  it('is undefined for non-Bitcoin text', () => {
    expect(bitcoinNetworkOf('0x03508bb71268bba25ecacc8f620e01866650532c')).toBeUndefined();
    expect(bitcoinNetworkOf('')).toBeUndefined();
  });
});

describe('bitcoinOutputScript / bitcoinAddressOf', () => {
  it('gives OP_0 <20-byte program> for P2WPKH on every network', () => {
    for (const hrp of ['bc', 'tb', 'bcrt']) expect(hex(bitcoinOutputScript(p2wpkh(hrp)))).toBe(`0014${P2WPKH_PROGRAM}`);
  });

  it('gives OP_1 <output key> for the BIP-86 address, and back', () => {
    const script = bitcoinOutputScript(BIP86.address);
    expect(hex(script)).toBe(`5120${BIP86.outputKey}`);
    expect(bitcoinAddressOf(script, networks.bitcoin)).toBe(BIP86.address);
    expect(bitcoinAddressOf(script, networks.regtest)).toMatch(/^bcrt1p/);
  });

  it('throws AddressEncodingError on bad checksums, unknown prefixes and the BTC currency id', () => {
    const bad = `${BIP86.address.slice(0, -1)}q`;
    for (const address of [bad, 'xyz', 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8']) {
      expect(() => bitcoinOutputScript(address)).toThrow(AddressEncodingError);
    }
  });

  it('has no address for an OP_RETURN script', () => {
    expect(bitcoinAddressOf(orderIdMemoScript(ID), networks.bitcoin)).toBeUndefined();
  });
});

describe('p2trKeyPathScript', () => {
  it('tweaks the BIP-86 internal key to its published output key', () => {
    expect(hex(p2trKeyPathScript(Buffer.from(BIP86.internalKey, 'hex')))).toBe(`5120${BIP86.outputKey}`);
  });

  it('refuses a key that is not on the curve', () => {
    expect(() => p2trKeyPathScript(new Uint8Array(32).fill(0xff))).toThrow(AddressEncodingError);
  });

  it('sameScript compares bytes', () => {
    expect(sameScript(Uint8Array.from([1, 2]), Uint8Array.from([1, 2]))).toBe(true);
    expect(sameScript(Uint8Array.from([1, 2]), Uint8Array.from([1, 3]))).toBe(false);
    expect(sameScript(Uint8Array.from([1]), Uint8Array.from([1, 2]))).toBe(false);
  });
});
