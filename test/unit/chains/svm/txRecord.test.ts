/**
 * The write-ahead record of a signed Solana transaction survives the store's JSON round trip, and anything
 * that is not such a record reads as null (nothing can then be proven about expiry).
 */
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { parseSvmTxRecord, svmTxRecord } from '../../../../packages/ballast/src/chains/svm/txRecord.ts';

const payer = Keypair.fromSeed(new Uint8Array(32).fill(1)).publicKey.toBase58();
const blockhash = Keypair.fromSeed(new Uint8Array(32).fill(7)).publicKey.toBase58();
const fields = { feePayer: payer, blockhash, lastValidBlockHeight: 312_456_789, blockhashSlot: 330_000_000 };

describe('svm tx record', () => {
  it('round-trips through JSON with every field', () => {
    const stored = JSON.parse(JSON.stringify(svmTxRecord(fields))) as unknown; // what the store hands back
    expect(stored).toEqual({ vm: 'svm', ...fields });
    expect(parseSvmTxRecord(stored)).toEqual({ vm: 'svm', ...fields });
  });

  it.each([
    ['an EVM record', { nonce: 4, from: '0x03508bb71268bba25ecacc8f620e01866650532c' }],
    ['a missing blockhash', { vm: 'svm', feePayer: payer, lastValidBlockHeight: 1, blockhashSlot: 1 }],
    ['a height as text', { vm: 'svm', ...fields, lastValidBlockHeight: '312456789' }],
    ['a fractional height', { vm: 'svm', ...fields, lastValidBlockHeight: 1.5 }],
    ['a fee payer that is not a key', { vm: 'svm', ...fields, feePayer: '0xabc' }],
    ['a blockhash with 0', { vm: 'svm', ...fields, blockhash: `0${blockhash.slice(1)}` }],
    ['null', null],
  ])('reads %s as null', (_what, request) => {
    expect(parseSvmTxRecord(request)).toBeNull();
  });
});
