/**
 * End-to-end: deposits into the sandbox node's stand-in for the Relay depository program, built exactly as
 * a Relay quote's Solana step builds them (`depositAccounts` + `encodeDepositData`) and sent with plain
 * web3.js. Passing deposits move funds to the vault, log the Anchor `DepositEvent` and appear in
 * listDeposits / getSignaturesForAddress; failing ones are refused (or, with skipPreflight, land failed with
 * only the fee charged) and move nothing.
 */
import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  type Connection,
  type TransactionInstruction,
} from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { base58, base64 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RELAY_DEPOSITORY_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  associatedTokenAddress,
  decodeDepositEvent,
  depositAccounts,
  encodeDepositData,
  type SvmAccountMeta,
  type SvmDepositEvent,
} from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import { startSolanaNode, type SolanaSandboxNode } from '../../../../packages/sandbox/src/svm/startSolanaNode.ts';
import { connect, instruction, orderId, rawRpc, signedV0 } from './svmTestKit.ts';

let node: SolanaSandboxNode;
let connection: Connection;
let user: Keypair;
let vault: string;

beforeAll(async () => {
  node = await startSolanaNode();
  connection = connect(node);
  user = Keypair.generate();
  vault = node.depository.vault;
  await node.airdrop(user.publicKey.toBase58(), 20n * BigInt(LAMPORTS_PER_SOL));
  await node.mintTo(user.publicKey.toBase58(), node.usdcMint, 100_000_000n);
});

afterAll(async () => {
  await node?.close();
});

const me = () => user.publicKey.toBase58();
const nativeKeys = (sender = me()) => depositAccounts({ programId: RELAY_DEPOSITORY_PROGRAM_ID, sender, depositor: me() });
const depositIx = (keys: SvmAccountMeta[], data: Uint8Array) => instruction(RELAY_DEPOSITORY_PROGRAM_ID, keys, data);

/** The DepositEvent decoded from the `Program data:` lines of a transaction's logs. */
function eventsIn(logs: string[]): SvmDepositEvent[] {
  return logs
    .filter((l) => l.startsWith('Program data: '))
    .map((l) => decodeDepositEvent(base64.decode(l.slice('Program data: '.length))))
    .filter((e): e is SvmDepositEvent => e !== null);
}

/** Every balance a deposit could move. */
function balances() {
  return {
    userLamports: node.balance(me()),
    vaultLamports: node.balance(vault),
    userUsdc: node.tokenBalance(me(), node.usdcMint),
    vaultUsdc: node.tokenBalance(vault, node.usdcMint),
    deposits: node.listDeposits().length,
  };
}

/** Sends with preflight; returns the error, failing the test if it landed. */
async function refused(instructions: TransactionInstruction[], signers: Keypair[] = [user]): Promise<SendTransactionError> {
  const { tx } = await signedV0(connection, signers, instructions);
  try {
    await connection.sendRawTransaction(tx.serialize());
  } catch (error) {
    if (error instanceof SendTransactionError) return error;
    throw error;
  }
  throw new Error('the transaction landed');
}

describe('depository stand-in: deposits that pass', () => {
  it('deposit_native moves lamports to the vault, logs the DepositEvent and is listed', async () => {
    const before = balances();
    const id = orderId(0x11);
    const { tx, blockhash, lastValidBlockHeight } = await signedV0(
      connection,
      [user],
      [depositIx(nativeKeys(), encodeDepositData('native', 250_000_000n, id))],
    );
    const signature = await connection.sendRawTransaction(tx.serialize());
    expect((await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })).value.err).toBeNull();
    expect(node.balance(vault) - before.vaultLamports).toBe(250_000_000n);
    expect(before.userLamports - node.balance(me())).toBe(250_000_000n + 5_000n);

    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const logs = landed?.meta?.logMessages ?? [];
    expect(logs[0]).toBe(`Program ${RELAY_DEPOSITORY_PROGRAM_ID} invoke [1]`);
    expect(logs[1]).toBe('Program log: Instruction: DepositNative');
    expect(logs).toContain(`Program ${SYSTEM_PROGRAM_ID} invoke [2]`);
    expect(logs.at(-1)).toBe(`Program ${RELAY_DEPOSITORY_PROGRAM_ID} success`);
    const event = { depositor: me(), token: null, amount: 250_000_000n, id };
    expect(eventsIn(logs)).toEqual([event]);
    // The recorded message is the one the user signed: one instruction, to the depository program.
    const message = landed!.transaction.message;
    expect(message.compiledInstructions).toHaveLength(1);
    expect(message.staticAccountKeys[message.compiledInstructions[0]!.programIdIndex]!.toBase58()).toBe(RELAY_DEPOSITORY_PROGRAM_ID);
    expect(landed?.meta?.innerInstructions?.[0]?.instructions[0]).toMatchObject({ stackHeight: 2 });

    const listed = node.listDeposits(landed!.slot);
    expect(listed).toEqual([
      { signature, slot: landed!.slot, instructionIndex: 0, programId: RELAY_DEPOSITORY_PROGRAM_ID, sender: me(), event },
    ]);
    expect(node.listDeposits(landed!.slot + 1)).toEqual([]);
  });

  it('deposit_token creates the vault ATA, moves USDC with transferChecked and is found through the vault', async () => {
    const before = balances();
    expect(before.vaultUsdc).toBe(0n);
    const id = orderId(0x22);
    const keys = depositAccounts({ programId: RELAY_DEPOSITORY_PROGRAM_ID, sender: me(), depositor: me(), mint: node.usdcMint });
    const { tx } = await signedV0(connection, [user], [depositIx(keys, encodeDepositData('token', 40_000_000n, id))]);
    const signature = await connection.sendRawTransaction(tx.serialize());
    expect(node.tokenBalance(vault, node.usdcMint)).toBe(40_000_000n);
    expect(before.userUsdc - node.tokenBalance(me(), node.usdcMint)).toBe(40_000_000n);

    const found = await connection.getSignaturesForAddress(new PublicKey(vault));
    expect(found[0]).toMatchObject({ signature, err: null });
    const landed = await connection.getTransaction(found[0]!.signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.logMessages).toContain('Program log: Instruction: DepositToken');
    expect(eventsIn(landed?.meta?.logMessages ?? [])).toEqual([{ depositor: me(), token: node.usdcMint, amount: 40_000_000n, id }]);
    const vaultAta = associatedTokenAddress(vault, node.usdcMint);
    const post = landed?.meta?.postTokenBalances?.find((b) => b.owner === vault);
    expect(post).toMatchObject({ mint: node.usdcMint, uiTokenAmount: { amount: '40000000' } });
    expect(landed?.transaction.message.staticAccountKeys[post!.accountIndex]!.toBase58()).toBe(vaultAta);
    expect(node.listDeposits().at(-1)).toMatchObject({ signature, event: { token: node.usdcMint, amount: 40_000_000n } });
  });

  it('deposit_token works with a Token-2022 mint and runs atomically with the other instructions', async () => {
    const mint = await node.createMint(6, { tokenProgram: TOKEN_2022_PROGRAM_ID.toBase58() });
    await node.mintTo(me(), mint, 9_000n);
    const tip = Keypair.generate().publicKey;
    const keys = depositAccounts({
      programId: RELAY_DEPOSITORY_PROGRAM_ID,
      sender: me(),
      depositor: me(),
      mint,
      tokenProgram: TOKEN_2022_PROGRAM_ID.toBase58(),
    });
    const { tx } = await signedV0(
      connection,
      [user],
      [
        SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: tip, lamports: LAMPORTS_PER_SOL }),
        depositIx(keys, encodeDepositData('token', 4_000n, orderId(0x33))),
      ],
    );
    await connection.sendRawTransaction(tx.serialize());
    expect(node.tokenBalance(vault, mint)).toBe(4_000n);
    expect(node.tokenBalance(me(), mint)).toBe(5_000n);
    expect(node.balance(tip.toBase58())).toBe(BigInt(LAMPORTS_PER_SOL));
    expect(node.listDeposits().at(-1)).toMatchObject({ instructionIndex: 1, event: { token: mint, amount: 4_000n } });
  });

  it("ignores bytes after the 48-byte arguments, as Anchor's borsh deserialize does", async () => {
    const before = node.balance(vault);
    const data = Uint8Array.from([...encodeDepositData('native', 3_000_000n, orderId(0x66)), 0xee]);
    const { tx } = await signedV0(connection, [user], [depositIx(nativeKeys(), data)]);
    const signature = await connection.sendRawTransaction(tx.serialize());
    expect(node.balance(vault) - before).toBe(3_000_000n);
    expect(node.listDeposits().at(-1)).toMatchObject({ signature, event: { amount: 3_000_000n, id: orderId(0x66) } });
  });
});

describe('depository stand-in: deposits that fail move nothing', () => {
  const amount = 1_000_000n;

  it('wrong vault PDA → ConstraintSeeds (2006)', async () => {
    const before = balances();
    const keys = nativeKeys();
    keys[3] = { ...keys[3]!, pubkey: Keypair.generate().publicKey.toBase58() };
    const error = await refused([depositIx(keys, encodeDepositData('native', amount, orderId(1)))]);
    expect(error.transactionError.message).toBe(
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x7d6',
    );
    expect(
      error.logs?.some((l) => l.includes('AnchorError caused by account: vault. Error Code: ConstraintSeeds. Error Number: 2006')),
    ).toBe(true);
    expect(balances()).toEqual(before);
  });

  it('wrong discriminator → InstructionFallbackNotFound (101)', async () => {
    const before = balances();
    const data = encodeDepositData('native', amount, orderId(2));
    data[0] = data[0]! ^ 0x01;
    const error = await refused([depositIx(nativeKeys(), data)]);
    expect(error.transactionError.message).toMatch(/custom program error: 0x65$/);
    expect(balances()).toEqual(before);
  });

  it('amount encoded as u32 (44-byte data) → InstructionDidNotDeserialize (102)', async () => {
    const before = balances();
    const good = encodeDepositData('native', amount, orderId(3));
    const data = new Uint8Array(44);
    data.set(good.subarray(0, 8), 0);
    new DataView(data.buffer).setUint32(8, Number(amount), true);
    data.set(good.subarray(16), 12);
    const error = await refused([depositIx(nativeKeys(), data)]);
    expect(error.transactionError.message).toMatch(/custom program error: 0x66$/);
    expect(balances()).toEqual(before);
  });

  it('sender not a signer → AccountNotSigner (3010)', async () => {
    const before = balances();
    const payer = Keypair.generate();
    await node.airdrop(payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL));
    const keys = nativeKeys().map((k) => (k.pubkey === me() && k.isSigner ? { ...k, isSigner: false } : k));
    const error = await refused([depositIx(keys, encodeDepositData('native', amount, orderId(4)))], [payer]);
    expect(
      error.logs?.some((l) => l.includes('AnchorError caused by account: sender. Error Code: AccountNotSigner. Error Number: 3010')),
    ).toBe(true);
    expect(node.balance(payer.publicKey.toBase58())).toBe(BigInt(LAMPORTS_PER_SOL));
    expect(balances()).toEqual(before);
  });

  it('a bad signature → -32003, an expired blockhash → BlockhashNotFound', async () => {
    const before = balances();
    const { tx } = await signedV0(connection, [user], [depositIx(nativeKeys(), encodeDepositData('native', amount, orderId(5)))]);
    const tampered = Uint8Array.from(tx.serialize());
    tampered[6] = tampered[6]! ^ 0xff; // byte 5 of the first signature (after the 1-byte count)
    const bad = await rawRpc(node.rpcUrl, 'sendTransaction', [base64.encode(tampered), { encoding: 'base64' }]);
    expect(bad.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });
    node.expireBlockhashes();
    const expired = await rawRpc(node.rpcUrl, 'sendTransaction', [base64.encode(tx.serialize()), { encoding: 'base64' }]);
    expect(expired.error).toMatchObject({ code: -32002, data: { err: 'BlockhashNotFound' } });
    expect(balances()).toEqual(before);
  });

  it('a token deposit naming Token-2022 for an SPL Token mint is refused', async () => {
    const before = balances();
    const keys = depositAccounts({
      programId: RELAY_DEPOSITORY_PROGRAM_ID,
      sender: me(),
      depositor: me(),
      mint: node.usdcMint,
      tokenProgram: TOKEN_2022_PROGRAM_ID.toBase58(),
    });
    const error = await refused([depositIx(keys, encodeDepositData('token', 1_000n, orderId(6)))]);
    // The sender's "ATA" under Token-2022 does not exist: Anchor stops at the sender_token_account check.
    expect(error.logs?.some((l) => l.includes('sender_token_account. Error Code: AccountNotInitialized. Error Number: 3012'))).toBe(true);
    expect(balances()).toEqual(before);
  });

  it('with skipPreflight a failing deposit lands failed: only the fee is charged, the other instruction is undone', async () => {
    const before = balances();
    const bystander = Keypair.generate().publicKey;
    const keys = nativeKeys();
    keys[0] = { ...keys[0]!, pubkey: keys[3]!.pubkey }; // vault where relay_depository belongs
    const { tx } = await signedV0(
      connection,
      [user],
      [
        SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: bystander, lamports: LAMPORTS_PER_SOL }),
        depositIx(keys, encodeDepositData('native', amount, orderId(7))),
      ],
    );
    const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    expect(signature).toBe(base58.encode(tx.signatures[0]!));
    const status = await connection.getSignatureStatus(signature);
    // relay_depository must be owned by the program: the vault is a system account → AccountOwnedByWrongProgram.
    expect(status.value?.err).toEqual({ InstructionError: [1, { Custom: 3007 }] });
    expect(before.userLamports - node.balance(me())).toBe(5_000n);
    expect(node.balance(bystander.toBase58())).toBe(0n);
    expect({ ...balances(), userLamports: before.userLamports }).toEqual(before);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.logMessages?.at(-1)).toBe(`Program ${RELAY_DEPOSITORY_PROGRAM_ID} failed: custom program error: 0xbbf`);
  });
});

describe('a configurable depository program id', () => {
  it("stands in for another program id, with that program's PDAs, and not for the default one", async () => {
    const programId = Keypair.generate().publicKey.toBase58();
    const other = await startSolanaNode({ depositoryProgramId: programId });
    try {
      const otherConnection = connect(other);
      expect(other.depository.vault).not.toBe(vault);
      await other.airdrop(me(), BigInt(LAMPORTS_PER_SOL));
      const keys = depositAccounts({ programId, sender: me(), depositor: me() });
      const { tx } = await signedV0(
        otherConnection,
        [user],
        [instruction(programId, keys, encodeDepositData('native', 7_000_000n, orderId(0x55)))],
      );
      const signature = await otherConnection.sendRawTransaction(tx.serialize());
      expect(other.listDeposits()).toMatchObject([{ signature, programId, event: { amount: 7_000_000n } }]);
      const program = await otherConnection.getAccountInfo(new PublicKey(programId));
      expect(program?.executable).toBe(true);
      // The mainnet id is just an unknown program on this node.
      const mainnet = await signedV0(
        otherConnection,
        [user],
        [depositIx(nativeKeys(), encodeDepositData('native', 7_000_000n, orderId(0x56)))],
      );
      await expect(otherConnection.sendRawTransaction(mainnet.tx.serialize())).rejects.toBeInstanceOf(SendTransactionError);
      expect(other.listDeposits()).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

describe('solver fills', () => {
  it('fill pays lamports and USDC from the solver with real transactions', async () => {
    const recipient = Keypair.generate().publicKey.toBase58();
    const solver = node.solver.publicKey.toBase58();
    const solverUsdc = node.tokenBalance(solver, node.usdcMint);
    const sol = await node.fill({ recipient, mint: null, amount: 2n * BigInt(LAMPORTS_PER_SOL) });
    const usdc = await node.fill({ recipient, mint: node.usdcMint, amount: 3_500_000n });
    expect(node.balance(recipient)).toBe(2n * BigInt(LAMPORTS_PER_SOL));
    expect(node.tokenBalance(recipient, node.usdcMint)).toBe(3_500_000n);
    expect(solverUsdc - node.tokenBalance(solver, node.usdcMint)).toBe(3_500_000n);
    const landed = await connection.getTransaction(usdc.signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.slot).toBe(usdc.slot);
    expect(usdc.slot).toBeGreaterThan(sol.slot);
    await expect(node.fill({ recipient, mint: node.usdcMint, amount: 10n ** 15n })).rejects.toMatchObject({
      code: 'SOLANA_NODE_TX_FAILED',
    });
  });
});
