/**
 * The v0 transaction built from step data: payer and signer layout, lookup-table compression, the measured
 * wire size equal to what web3.js serializes (and still measured past 1232 bytes, where web3.js refuses to
 * serialize), per-instruction account resolution, and a signature that verifies.
 */
import { createPublicKey, verify } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  depositAccounts,
  depositoryPdas,
  encodeDepositData,
  SYSTEM_PROGRAM_ID,
} from '../../../packages/protocol/src/protocol/svmDepository.ts';
import { MEMO_PROGRAM_ID } from '../../../packages/ballast/src/verify/deposit/svmInstructions.ts';
import type { SvmInstruction } from '../../../packages/ballast/src/verify/deposit/svmStepData.ts';
import {
  buildSvmV0Transaction,
  resolveInstructionAccounts,
  resolveLookupTables,
  SOLANA_TX_MAX_BYTES,
  svmTransactionWireSize,
} from '../../../packages/ballast/src/verify/deposit/svmTransaction.ts';

const wallet = Keypair.fromSeed(new Uint8Array(32).fill(1));
const USER = wallet.publicKey.toBase58();
const PROGRAM = Keypair.fromSeed(new Uint8Array(32).fill(9)).publicKey.toBase58();
const TABLE = Keypair.fromSeed(new Uint8Array(32).fill(3)).publicKey.toBase58();
const BLOCKHASH = Keypair.fromSeed(new Uint8Array(32).fill(5)).publicKey.toBase58();
const { relayDepository, vault } = depositoryPdas(PROGRAM);
const ID = `0x${'ab'.repeat(32)}` as const;

const deposit: SvmInstruction = {
  programId: PROGRAM,
  keys: depositAccounts({ programId: PROGRAM, sender: USER, depositor: USER }),
  data: encodeDepositData('native', 10_000_000n, ID),
};
const keysOf = (n: number, seed = 100) =>
  Array.from({ length: n }, (_, i) => ({
    pubkey: Keypair.fromSeed(new Uint8Array(32).fill(seed + i)).publicKey.toBase58(),
    isSigner: false,
    isWritable: false,
  }));
const memo = (data: Uint8Array, keys = keysOf(0)): SvmInstruction => ({ programId: MEMO_PROGRAM_ID, keys, data });

describe('buildSvmV0Transaction', () => {
  it('puts our wallet first as fee payer and the only signer, with the given blockhash', () => {
    const tx = buildSvmV0Transaction({ instructions: [deposit], payer: USER, recentBlockhash: BLOCKHASH });
    const m = tx.message;
    expect(m.version).toBe(0);
    expect(m.header).toEqual({ numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 });
    expect(m.staticAccountKeys[0]!.toBase58()).toBe(USER);
    expect(m.recentBlockhash).toBe(BLOCKHASH);
    expect(m.compiledInstructions).toHaveLength(1);
    expect(tx.signatures).toEqual([new Uint8Array(64)]);
  });

  it('resolves each instruction back to its accounts with the message-level flags', () => {
    const { message } = buildSvmV0Transaction({ instructions: [deposit], payer: USER, recentBlockhash: BLOCKHASH });
    const [resolved] = resolveInstructionAccounts(message, []);
    expect(resolved!.programId).toBe(PROGRAM);
    expect(Buffer.from(resolved!.data).equals(Buffer.from(deposit.data))).toBe(true);
    // The depositor (index 2) is our wallet, which signs and pays: the runtime sees it as signer and writable.
    expect(resolved!.accounts).toEqual([
      { pubkey: relayDepository, isSigner: false, isWritable: false },
      { pubkey: USER, isSigner: true, isWritable: true },
      { pubkey: USER, isSigner: true, isWritable: true },
      { pubkey: vault, isSigner: false, isWritable: true },
      { pubkey: SYSTEM_PROGRAM_ID, isSigner: false, isWritable: false },
    ]);
  });

  it('moves table accounts out of the static keys and still resolves them', () => {
    const without = buildSvmV0Transaction({ instructions: [deposit], payer: USER, recentBlockhash: BLOCKHASH });
    const { accounts, missing } = resolveLookupTables([TABLE], { [TABLE]: [SYSTEM_PROGRAM_ID, vault, relayDepository] });
    expect(missing).toEqual([]);
    const withTable = buildSvmV0Transaction({ instructions: [deposit], payer: USER, recentBlockhash: BLOCKHASH, lookupTables: accounts });
    const lookups = withTable.message.addressTableLookups;
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.accountKey.toBase58()).toBe(TABLE);
    expect(lookups[0]!.writableIndexes).toEqual([1]); // vault
    expect(lookups[0]!.readonlyIndexes).toEqual([2, 0]); // relay_depository PDA, system program
    // Three keys leave the static list (3 × 32 bytes) for one table entry: its key, one writable and two
    // read-only indexes, each list with a one-byte length.
    expect(svmTransactionWireSize(without.message) - svmTransactionWireSize(withTable.message)).toBe(3 * 32 - (32 + 1 + 1 + 1 + 2));
    const [resolved] = resolveInstructionAccounts(withTable.message, accounts);
    expect(resolved!.accounts.map((a) => a.pubkey)).toEqual([relayDepository, USER, USER, vault, SYSTEM_PROGRAM_ID]);
    expect(resolved!.accounts[3]!.isWritable).toBe(true);
    expect(() => resolveInstructionAccounts(withTable.message, [])).toThrow(
      /address table lookups were not resolved|Failed to find address lookup table/,
    );
  });

  it('reports named tables that were not read on chain, and refuses garbage table contents', () => {
    expect(resolveLookupTables([TABLE, PROGRAM], { [TABLE]: [] }).missing).toEqual([PROGRAM]);
    expect(resolveLookupTables([TABLE], {}).accounts).toEqual([]);
    expect(() => resolveLookupTables([TABLE], { [TABLE]: ['not-a-key'] })).toThrow();
  });

  it('signs: the signature verifies over the serialized message', () => {
    const tx = buildSvmV0Transaction({ instructions: [deposit], payer: USER, recentBlockhash: BLOCKHASH });
    tx.sign([wallet]);
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), wallet.publicKey.toBuffer()]);
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(verify(null, tx.message.serialize(), key, tx.signatures[0]!)).toBe(true);
    expect(verify(null, Buffer.from('other'), key, tx.signatures[0]!)).toBe(false);
  });
});

describe('svmTransactionWireSize', () => {
  it.each([
    ['the deposit alone', [deposit], undefined],
    ['with a 200-byte memo (two-byte length prefix)', [deposit, memo(new Uint8Array(200).fill(0x61))], undefined],
    ['with a second signer', [deposit, memo(Uint8Array.of(0x61), [{ ...keysOf(1)[0]!, isSigner: true }])], undefined],
    ['with a lookup table', [deposit, memo(Uint8Array.of(0x61), keysOf(5))], [TABLE]],
  ] as const)('equals the serialized length: %s', (_name, instructions, tables) => {
    const lookupTables = tables ? resolveLookupTables(tables, { [TABLE]: keysOf(5).map((k) => k.pubkey) }).accounts : undefined;
    const tx = buildSvmV0Transaction({ instructions, payer: USER, recentBlockhash: BLOCKHASH, lookupTables });
    expect(svmTransactionWireSize(tx.message)).toBe(tx.serialize().length);
  });

  it('counts 64 bytes per required signature', () => {
    const one = buildSvmV0Transaction({ instructions: [deposit], payer: USER, recentBlockhash: BLOCKHASH });
    const signer = keysOf(1)[0]!;
    const two = buildSvmV0Transaction({
      instructions: [deposit, memo(new Uint8Array(0), [{ ...signer, isSigner: true }])],
      payer: USER,
      recentBlockhash: BLOCKHASH,
    });
    expect(two.message.header.numRequiredSignatures).toBe(2);
    // One more signature (64), one more static key (32), and the memo instruction (1 + 1 + 1 + 1 + 0).
    expect(svmTransactionWireSize(two.message) - svmTransactionWireSize(one.message)).toBe(64 + 32 + 4 + 32);
  });

  it('measures past 1232 bytes, where web3.js refuses to serialize', () => {
    const tx = buildSvmV0Transaction({
      instructions: [deposit, memo(Uint8Array.of(0x61), keysOf(40))],
      payer: USER,
      recentBlockhash: BLOCKHASH,
    });
    const size = svmTransactionWireSize(tx.message);
    expect(size).toBeGreaterThan(SOLANA_TX_MAX_BYTES);
    expect(() => tx.serialize()).toThrow(RangeError);
    // 40 more static keys and their indexes than the deposit alone.
    const alone = svmTransactionWireSize(
      buildSvmV0Transaction({ instructions: [deposit], payer: USER, recentBlockhash: BLOCKHASH }).message,
    );
    expect(size - alone).toBe(40 * 32 + 32 + (1 + 1 + 40 + 1 + 1));
  });
});
