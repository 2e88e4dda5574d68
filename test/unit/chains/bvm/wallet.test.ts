/**
 * Bitcoin keys from WIF: published BIP-84 (P2WPKH) and BIP-86 (P2TR key path) test vectors, the network byte
 * check, and signers that bitcoinjs `Psbt.signInput` accepts and `validateSignaturesOfInput` verifies, for
 * P2TR internal keys of both y parities (BIP-341 negates the key of an odd-y point before tweaking).
 */
import { Psbt, address as btcAddress, payments, toXOnly } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { sha256 } from '@noble/hashes/sha2';
import { createBase58check } from '@scure/base';
import { bytesToHex, hexToBytes } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  BVM_NETWORK_PARAMS,
  bvmKeyFromWif,
  describeBvmAddress,
  type BvmAddressType,
  type BvmKey,
  type BvmNetwork,
} from '../../../../packages/ballast/src/chains/bvm/wallet.ts';

/** BIP-84 test vector, m/84'/0'/0'/0/0 of the "abandon … about" mnemonic: WIF, public key, address. */
const BIP84_WIF = 'KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d';
const BIP84_PUB = '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c';
const BIP84_ADDRESS = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
/** BIP-86 test vector, m/86'/0'/0'/0/0 of the same mnemonic (private key WIF-encoded from its xprv). */
const BIP86_WIF = 'KyRv5iFPHG7iB5E4CqvMzH3WFJVhbfYK4VY7XAedd9Ys69mEsPLQ';
const BIP86_INTERNAL = 'cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115';
const BIP86_OUTPUT = 'a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c';
const BIP86_ADDRESS = 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr';
/** BIP-84 m/84'/1'/0'/0/0 (testnet WIF) and its testnet address. */
const TESTNET_WIF = 'cTGhosGriPpuGA586jemcuH9pE9spwUmneMBmYYzrQEbY92DJrbo';
const TESTNET_ADDRESS = 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl';

const ECPair = ECPairFactory(ecc);
const hex = (b: Uint8Array) => bytesToHex(b).slice(2);

function load(wif: string, network: BvmNetwork, addressType: BvmAddressType): BvmKey {
  const r = bvmKeyFromWif(wif, { network, addressType });
  if (!r.ok) throw new Error(r.problem);
  return r.key;
}

/** A PSBT spending one 100000-sat output of `key`'s address to itself minus 500 sat fee. */
function spendPsbt(key: BvmKey): Psbt {
  const network = BVM_NETWORK_PARAMS[key.network];
  const script = btcAddress.toOutputScript(key.address, network);
  const psbt = new Psbt({ network });
  psbt.addInput({
    hash: '11'.repeat(32),
    index: 0,
    witnessUtxo: { script, value: 100_000n },
    ...(key.internalPubkey ? { tapInternalKey: key.internalPubkey } : {}),
  });
  psbt.addOutput({ script, value: 99_500n });
  return psbt;
}

const ecdsaValidator = (pubkey: Uint8Array, hash: Uint8Array, signature: Uint8Array) => ecc.verify(hash, pubkey, signature);
const schnorrValidator = (pubkey: Uint8Array, hash: Uint8Array, signature: Uint8Array) => ecc.verifySchnorr(hash, pubkey, signature);

describe('bvmKeyFromWif: published vectors', () => {
  it('derives the BIP-84 P2WPKH address and public key', () => {
    const key = load(BIP84_WIF, 'mainnet', 'p2wpkh');
    expect(key.address).toBe(BIP84_ADDRESS);
    expect(hex(key.publicKey)).toBe(BIP84_PUB);
    expect(key.internalPubkey).toBeUndefined();
    expect(key.signer.signSchnorr).toBeUndefined();
  });

  it('derives the BIP-86 P2TR address, internal key and (as the signer key) the tweaked output key', () => {
    const key = load(BIP86_WIF, 'mainnet', 'p2tr');
    expect(key.address).toBe(BIP86_ADDRESS);
    expect(hex(key.internalPubkey ?? new Uint8Array())).toBe(BIP86_INTERNAL);
    expect(hex(toXOnly(key.signer.publicKey))).toBe(BIP86_OUTPUT);
  });

  it('derives testnet and regtest addresses from a testnet/regtest WIF', () => {
    expect(load(TESTNET_WIF, 'testnet', 'p2wpkh').address).toBe(TESTNET_ADDRESS);
    const program = btcAddress.fromBech32(TESTNET_ADDRESS).data;
    expect(load(TESTNET_WIF, 'regtest', 'p2wpkh').address).toBe(btcAddress.toBech32(program, 0, 'bcrt'));
    expect(load(TESTNET_WIF, 'regtest', 'p2tr').address).toMatch(/^bcrt1p[02-9ac-hj-np-z]{58}$/);
  });
});

describe('bvmKeyFromWif: refusals', () => {
  it.each([
    ['a mainnet WIF on testnet', BIP84_WIF, 'testnet', 'network', 'the WIF is a mainnet key but network is testnet'],
    ['a testnet WIF on mainnet', TESTNET_WIF, 'mainnet', 'network', 'the WIF is a testnet/regtest key but network is mainnet'],
    ['a broken checksum', `${BIP84_WIF.slice(0, -1)}e`, 'mainnet', 'malformed', 'not a WIF private key (base58check'],
    ['an address', '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', 'mainnet', 'malformed', 'not a WIF private key: the text decodes'],
    ['hex', 'ab'.repeat(32), 'mainnet', 'malformed', 'not a WIF private key'],
    [
      'an uncompressed WIF',
      ECPair.fromPrivateKey(new Uint8Array(32).fill(3), { compressed: false }).toWIF(),
      'mainnet',
      'uncompressed',
      'the WIF encodes an uncompressed public key',
    ],
  ] as const)('refuses %s', (_name, wif, network, reason, problem) => {
    const r = bvmKeyFromWif(wif, { network, addressType: 'p2wpkh' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe(reason);
    expect(r.problem.startsWith(problem), r.problem).toBe(true);
    expect(r.problem).not.toContain(wif);
  });

  it('refuses a WIF of the curve order (not a valid scalar)', () => {
    // base58check of 0x80 ‖ n ‖ 0x01: a well-formed compressed mainnet WIF whose scalar is the group order
    const n = hexToBytes('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
    const wif = createBase58check(sha256).encode(Uint8Array.from([0x80, ...n, 0x01]));
    expect(bvmKeyFromWif(wif, { network: 'mainnet', addressType: 'p2wpkh' })).toMatchObject({ ok: false, reason: 'out-of-range' });
  });
});

describe('signers work with bitcoinjs Psbt', () => {
  it('P2WPKH: signInput adds an ECDSA signature that validates, and the transaction finalizes', () => {
    const key = load(BIP84_WIF, 'mainnet', 'p2wpkh');
    const psbt = spendPsbt(key).signInput(0, key.signer);
    expect(psbt.validateSignaturesOfInput(0, ecdsaValidator)).toBe(true);
    psbt.finalizeAllInputs();
    const witness = psbt.extractTransaction().ins[0]?.witness ?? [];
    expect(witness).toHaveLength(2);
    expect(hex(witness[1] ?? new Uint8Array())).toBe(BIP84_PUB);
  });

  it('P2TR key path (BIP-86 key, odd-y internal point): signInput adds a Schnorr key-path signature that validates', () => {
    const key = load(BIP86_WIF, 'mainnet', 'p2tr');
    expect(hex(key.publicKey).startsWith('03')).toBe(true);
    const psbt = spendPsbt(key).signInput(0, key.signer);
    expect(psbt.data.inputs[0]?.tapKeySig).toHaveLength(64);
    expect(psbt.validateSignaturesOfInput(0, schnorrValidator)).toBe(true);
    psbt.finalizeAllInputs();
    expect(psbt.extractTransaction().ins[0]?.witness).toHaveLength(1);
  });

  it('P2TR works for an even-y internal point too, on regtest', () => {
    let wif = '';
    for (let i = 1; i < 50 && wif === ''; i++) {
      const pair = ECPair.fromPrivateKey(new Uint8Array(32).fill(i), { network: BVM_NETWORK_PARAMS.regtest });
      if (pair.publicKey[0] === 0x02) wif = pair.toWIF();
    }
    const key = load(wif, 'regtest', 'p2tr');
    expect(key.publicKey[0]).toBe(0x02);
    const psbt = spendPsbt(key).signInput(0, key.signer);
    expect(psbt.validateSignaturesOfInput(0, schnorrValidator)).toBe(true);
  });

  it('an untweaked key cannot sign the P2TR input: the tweak is what makes the signer match the output key', () => {
    const key = load(BIP86_WIF, 'mainnet', 'p2tr');
    const untweaked = ECPair.fromWIF(BIP86_WIF);
    expect(() => spendPsbt(key).signInput(0, untweaked)).toThrow(/Can not sign for input #0 with the key/);
  });

  it('a signature from another key does not validate', () => {
    const key = load(BIP84_WIF, 'mainnet', 'p2wpkh');
    const other = load(BIP86_WIF, 'mainnet', 'p2wpkh');
    const psbt = spendPsbt(key).signInput(0, key.signer);
    const mine = psbt.data.inputs[0]?.partialSig?.[0];
    const theirs = spendPsbt(other).signInput(0, other.signer).data.inputs[0]?.partialSig?.[0];
    if (!mine || !theirs) throw new Error('expected partial signatures');
    psbt.data.inputs[0]!.partialSig = [{ pubkey: mine.pubkey, signature: theirs.signature }]; // input 0 exists: added by spendPsbt
    expect(psbt.validateSignaturesOfInput(0, ecdsaValidator)).toBe(false);
  });

  it('the signer object exposes no private key', () => {
    const key = load(BIP86_WIF, 'mainnet', 'p2tr');
    expect(Object.keys(key.signer).sort()).toEqual(['publicKey', 'sign', 'signSchnorr']);
    const secret = hex(ECPair.fromWIF(BIP86_WIF).privateKey ?? new Uint8Array());
    expect(JSON.stringify(key, (_k, v) => (v instanceof Uint8Array ? hex(v) : v))).not.toContain(secret);
  });
});

describe('describeBvmAddress', () => {
  it.each([
    [BIP84_ADDRESS, { networks: ['mainnet'], kind: 'p2wpkh', canonicalCase: true }],
    [BIP84_ADDRESS.toUpperCase(), { networks: ['mainnet'], kind: 'p2wpkh', canonicalCase: false }],
    [BIP86_ADDRESS, { networks: ['mainnet'], kind: 'p2tr', canonicalCase: true }],
    [TESTNET_ADDRESS, { networks: ['testnet'], kind: 'p2wpkh', canonicalCase: true }],
    ['1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', { networks: ['mainnet'], kind: 'p2pkh', canonicalCase: true }],
    ['2N2JD6wb56AfK4tfmM6PwdVmoYk2dCKf4Br', { networks: ['testnet', 'regtest'], kind: 'p2sh', canonicalCase: true }],
    [
      payments.p2wsh({ redeem: { output: Uint8Array.from([0x51]) } }).address ?? '',
      { networks: ['mainnet'], kind: 'other-segwit', canonicalCase: true },
    ],
  ])('%s', (text, info) => {
    expect(describeBvmAddress(text)).toEqual(info);
  });

  it.each([
    ['an EVM address', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
    ['a Solana address', 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z'],
    ['a bech32 address with a broken checksum', `${BIP84_ADDRESS.slice(0, -1)}q`],
    ['a valid bech32 address of another coin (ltc)', btcAddress.toBech32(btcAddress.fromBech32(BIP84_ADDRESS).data, 0, 'ltc')],
  ])('returns undefined for %s', (_name, text) => {
    expect(describeBvmAddress(text)).toBeUndefined();
  });
});
