/**
 * The sandbox Bitcoin node's pure script and address helpers against published vectors (BIP-173 / BIP-350
 * addresses, Esplora's assembly notation) and edge cases of OP_RETURN parsing.
 */
import { describe, expect, it } from 'vitest';
import { addressToScript, scriptToAddress } from '../../../../packages/sandbox/src/bvm/address.ts';
import { BitcoinNodeError } from '../../../../packages/sandbox/src/bvm/errors.ts';
import { classifyScript, opReturnData, scriptAsm } from '../../../../packages/sandbox/src/bvm/script.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

describe('addresses ↔ scripts', () => {
  // BIP-173 and BIP-350 valid-address vectors, and the genesis coinbase's P2PKH address.
  const vectors: [string, string, 'bitcoin' | 'testnet' | 'regtest'][] = [
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', '0014751e76e8199196d454941c45d1b3a323f1433bd6', 'bitcoin'],
    [
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
      '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
      'testnet',
    ],
    [
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
      'bitcoin',
    ],
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac', 'bitcoin'],
  ];
  it.each(vectors)('%s', (address, script, network) => {
    expect(hex(addressToScript(address))).toBe(script);
    expect(scriptToAddress(bytes(script), network)).toBe(address);
  });

  it('reads every network form of one program as the same script', () => {
    const script = addressToScript('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    const regtestForm = scriptToAddress(script, 'regtest')!;
    expect(regtestForm).toBe('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
    expect(hex(addressToScript(regtestForm))).toBe(hex(script));
    expect(hex(addressToScript('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'))).toBe(hex(script));
  });

  it('refuses invalid addresses', () => {
    for (const bad of [
      '',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5',
      'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9',
      '0x1234',
      'bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du',
    ]) {
      expect(() => addressToScript(bad), bad).toThrow(BitcoinNodeError);
    }
  });
});

describe('scripts', () => {
  it('classifies and prints scripts as Esplora does', () => {
    expect(classifyScript(bytes('0014751e76e8199196d454941c45d1b3a323f1433bd6'))).toBe('v0_p2wpkh');
    expect(scriptAsm(bytes('0014751e76e8199196d454941c45d1b3a323f1433bd6'))).toBe(
      'OP_0 OP_PUSHBYTES_20 751e76e8199196d454941c45d1b3a323f1433bd6',
    );
    expect(scriptAsm(bytes('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac'))).toBe(
      'OP_DUP OP_HASH160 OP_PUSHBYTES_20 62e907b15cbf27d5425399ebf6f0fb50ebb88f18 OP_EQUALVERIFY OP_CHECKSIG',
    );
    expect(classifyScript(bytes('a914' + '11'.repeat(20) + '87'))).toBe('p2sh');
    expect(classifyScript(bytes('5220' + '11'.repeat(32)))).toBe('unknown'); // witness v2: not a known type
    expect(scriptAsm(bytes('6a4c02ab'))).toBe('OP_RETURN <push past end>');
  });

  it('extracts OP_RETURN data', () => {
    const memo = Buffer.from(`0x${'cd'.repeat(32)}`, 'utf8');
    expect(hex(opReturnData(Uint8Array.from([0x6a, memo.length, ...memo]))!)).toBe(memo.toString('hex'));
    expect(hex(opReturnData(Uint8Array.from([0x6a, 0x4c, 2, 0xab, 0xcd, 0x57]))!)).toBe('abcd07'); // PUSHDATA1 then OP_7
    expect(opReturnData(bytes('6a'))).toEqual(new Uint8Array(0));
    expect(opReturnData(bytes('6a76'))).toBeNull(); // OP_DUP is not a push
    expect(opReturnData(bytes('6a05ab'))).toBeNull(); // truncated push
    expect(opReturnData(bytes('0014751e76e8199196d454941c45d1b3a323f1433bd6'))).toBeNull();
  });
});
