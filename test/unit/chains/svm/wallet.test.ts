/**
 * Solana signer construction: RFC 8032 ed25519 test vectors (seed → public key) give a known address, the
 * key pair signs verifiably, and malformed secret keys are refused with the right reason.
 */
import { base58 } from '@scure/base';
import { Keypair, PublicKey, Transaction, SystemProgram } from '@solana/web3.js';
import { hexToBytes } from 'viem';
import { describe, expect, it } from 'vitest';
import { parseSvmAddress, svmSignerFromSecretKey } from '../../../../packages/ballast/src/chains/svm/wallet.ts';

/** RFC 8032 section 7.1, TEST 1: secret seed and public key. */
const SEED1 = hexToBytes('0x9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const PUB1 = hexToBytes('0xd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
/** RFC 8032 TEST 2 public key. */
const PUB2 = hexToBytes('0x3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c');

const secretKey = (seed: Uint8Array, pub: Uint8Array) => Uint8Array.from([...seed, ...pub]);

describe('svmSignerFromSecretKey', () => {
  it('derives the base58 address of the RFC 8032 test key', () => {
    const r = svmSignerFromSecretKey(secretKey(SEED1, PUB1));
    if (!r.ok) throw new Error(r.problem);
    expect(r.signer.address).toBe(base58.encode(PUB1));
    expect(r.signer.address).toBe('FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z');
    expect(r.signer.keypair.publicKey.toBase58()).toBe(r.signer.address);
  });

  it('signs a transaction whose signature verifies for that address', () => {
    const r = svmSignerFromSecretKey(secretKey(SEED1, PUB1));
    if (!r.ok) throw new Error(r.problem);
    const from = r.signer.keypair.publicKey;
    const tx = new Transaction({ feePayer: from, recentBlockhash: base58.encode(new Uint8Array(32).fill(7)) });
    tx.add(SystemProgram.transfer({ fromPubkey: from, toPubkey: Keypair.generate().publicKey, lamports: 5_000n }));
    tx.sign(r.signer.keypair);
    expect(tx.verifySignatures()).toBe(true);
    expect(tx.signatures[0]?.publicKey.toBase58()).toBe('FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z');
  });

  it("does not keep a reference to the caller's buffer (zeroing it later does not change the key)", () => {
    const bytes = secretKey(SEED1, PUB1);
    const r = svmSignerFromSecretKey(bytes);
    bytes.fill(0);
    if (!r.ok) throw new Error(r.problem);
    expect(r.signer.keypair.secretKey.slice(0, 32)).toEqual(SEED1);
  });

  it.each([
    [
      'a 32-byte seed',
      SEED1,
      'length',
      'the secret key is 32 bytes; expected 64 (32 bytes is a seed or a public key, not an exported secret key)',
    ],
    ['65 bytes', new Uint8Array(65), 'length', 'the secret key is 65 bytes; expected 64'],
    [
      'a public half of another key',
      secretKey(SEED1, PUB2),
      'mismatch',
      'the last 32 bytes of the secret key are not the public key of its first 32',
    ],
  ] as const)('refuses %s', (_name, bytes, reason, problem) => {
    const r = svmSignerFromSecretKey(bytes);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe(reason);
    expect(r.problem.startsWith(problem)).toBe(true);
  });
});

describe('parseSvmAddress', () => {
  it('accepts canonical base58 addresses, native SOL and mints', () => {
    expect(parseSvmAddress('FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z')?.toBytes()).toEqual(PUB1);
    expect(parseSvmAddress('11111111111111111111111111111111')?.equals(PublicKey.default)).toBe(true);
    expect(parseSvmAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')?.toBase58()).toBe(
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    );
  });

  it.each([
    ['an EVM address', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
    ['a letter outside base58 (0)', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10'],
    ['too short', '1111'],
    ['33 bytes', base58.encode(new Uint8Array(33).fill(9))],
    ['31 bytes', base58.encode(new Uint8Array(31).fill(9))],
  ])('refuses %s', (_name, text) => {
    expect(parseSvmAddress(text)).toBeUndefined();
  });

  it('is case-sensitive: a lower-cased mint is not the mint', () => {
    const lower = parseSvmAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'.toLowerCase());
    expect(lower?.toBase58()).not.toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
  });
});
