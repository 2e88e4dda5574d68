/**
 * End-to-end: SPL Token, Token-2022, Associated Token and Address Lookup Table programs run for real in the
 * sandbox Solana node, driven by @solana/web3.js and @solana/spl-token's own client helpers (which send and
 * confirm through the node's RPC and websocket).
 */
import {
  AddressLookupTableProgram,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  type Connection,
  type ParsedAccountData,
} from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createMint,
  getAccount,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  transferChecked,
} from '@solana/spl-token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { associatedTokenAddress } from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import {
  SANDBOX_USDC_DECIMALS,
  SOLVER_START_USDC,
  startSolanaNode,
  type SolanaSandboxNode,
} from '../../../../packages/sandbox/src/svm/startSolanaNode.ts';
import { connect, signedV0, waitFor } from './svmTestKit.ts';

let node: SolanaSandboxNode;
let connection: Connection;
let payer: Keypair;

beforeAll(async () => {
  node = await startSolanaNode();
  connection = connect(node);
  payer = Keypair.generate();
  await node.airdrop(payer.publicKey.toBase58(), 20n * BigInt(LAMPORTS_PER_SOL));
});

afterAll(async () => {
  await node?.close();
});

describe('sandbox Solana node: tokens', () => {
  it('starts with a 6-decimals test USDC mint and a solver holding it', async () => {
    const supply = await connection.getTokenSupply(new PublicKey(node.usdcMint));
    expect(supply.value.decimals).toBe(SANDBOX_USDC_DECIMALS);
    expect(node.tokenBalance(node.solver.publicKey.toBase58(), node.usdcMint)).toBe(SOLVER_START_USDC);
    expect(node.balance(node.solver.publicKey.toBase58())).toBeGreaterThan(0n);
  });

  it('runs createMint, ATA creation, mintTo and transferChecked from @solana/spl-token', async () => {
    const mint = await createMint(connection, payer, payer.publicKey, null, 9);
    const alice = Keypair.generate();
    const bob = Keypair.generate();
    const aliceAta = await getOrCreateAssociatedTokenAccount(connection, payer, mint, alice.publicKey);
    const bobAta = await getOrCreateAssociatedTokenAccount(connection, payer, mint, bob.publicKey);
    expect(aliceAta.address.toBase58()).toBe(associatedTokenAddress(alice.publicKey.toBase58(), mint.toBase58()));
    await mintTo(connection, payer, mint, aliceAta.address, payer, 5_000_000_000n);
    await transferChecked(connection, payer, aliceAta.address, mint, bobAta.address, alice, 1_250_000_000n, 9);
    expect((await getAccount(connection, aliceAta.address)).amount).toBe(3_750_000_000n);
    expect((await connection.getTokenAccountBalance(bobAta.address)).value).toEqual({
      amount: '1250000000',
      decimals: 9,
      uiAmount: 1.25,
      uiAmountString: '1.25',
    });
    expect(node.tokenBalance(bob.publicKey.toBase58(), mint.toBase58())).toBe(1_250_000_000n);
    const parsed = await connection.getParsedAccountInfo(bobAta.address);
    const data = parsed.value?.data as ParsedAccountData; // a token account renders as jsonParsed
    expect(data.program).toBe('spl-token');
    expect(data.parsed).toMatchObject({
      type: 'account',
      info: { mint: mint.toBase58(), owner: bob.publicKey.toBase58(), tokenAmount: { amount: '1250000000' } },
    });
    const missing = Keypair.generate().publicKey;
    const many = await connection.getMultipleAccountsInfo([aliceAta.address, missing, mint]);
    expect(many.map((a) => a?.owner.toBase58() ?? null)).toEqual([TOKEN_PROGRAM_ID.toBase58(), null, TOKEN_PROGRAM_ID.toBase58()]);
    expect(many[0]?.data.length).toBe(165);
    const manyParsed = await connection.getMultipleParsedAccounts([mint]);
    expect((manyParsed.value[0]?.data as ParsedAccountData).parsed).toMatchObject({
      type: 'mint',
      info: { decimals: 9, supply: '5000000000' },
    }); // a mint renders as jsonParsed
    const byOwner = await connection.getTokenAccountsByOwner(bob.publicKey, { mint });
    expect(byOwner.value.map((a) => a.pubkey.toBase58())).toEqual([bobAta.address.toBase58()]);
  });

  it('node.mintTo creates the owner ATA, for SPL Token and Token-2022 mints', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    await node.mintTo(owner, node.usdcMint, 7_000_000n);
    expect(node.tokenBalance(owner, node.usdcMint)).toBe(7_000_000n);
    const mint2022 = await node.createMint(2, { tokenProgram: TOKEN_2022_PROGRAM_ID.toBase58() });
    await node.mintTo(owner, mint2022, 12_345n);
    expect(node.tokenBalance(owner, mint2022)).toBe(12_345n);
    const ata = associatedTokenAddress(owner, mint2022, TOKEN_2022_PROGRAM_ID.toBase58());
    const info = await connection.getAccountInfo(new PublicKey(ata));
    expect(info?.owner.toBase58()).toBe(TOKEN_2022_PROGRAM_ID.toBase58());
  });
});

describe('sandbox Solana node: address lookup tables', () => {
  it('lands a v0 transaction whose accounts come from a lookup table created on the node', async () => {
    const recipients = [Keypair.generate().publicKey, Keypair.generate().publicKey, Keypair.generate().publicKey];
    const recentSlot = await connection.getSlot();
    const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: payer.publicKey, payer: payer.publicKey, recentSlot });
    const extend = AddressLookupTableProgram.extendLookupTable({
      lookupTable: table,
      authority: payer.publicKey,
      payer: payer.publicKey,
      addresses: recipients,
    });
    const setup = await signedV0(connection, [payer], [create, extend]);
    const setupSig = await connection.sendRawTransaction(setup.tx.serialize());
    const extendedAt = (await connection.getSignatureStatus(setupSig)).value!.slot;
    await waitFor(async () => ((await connection.getSlot()) > extendedAt ? true : undefined));
    const lookup = (await connection.getAddressLookupTable(table)).value;
    expect(lookup?.state.addresses.map((a) => a.toBase58())).toEqual(recipients.map((r) => r.toBase58()));

    const transfers = recipients.map((r, i) =>
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: r, lamports: (i + 1) * LAMPORTS_PER_SOL }),
    );
    const { tx } = await signedV0(connection, [payer], transfers, [lookup!]);
    expect(tx.message.addressTableLookups).toHaveLength(1);
    expect(tx.message.staticAccountKeys.map((k) => k.toBase58())).not.toContain(recipients[0]!.toBase58());
    const signature = await connection.sendRawTransaction(tx.serialize());
    for (const [i, r] of recipients.entries()) expect(await connection.getBalance(r)).toBe((i + 1) * LAMPORTS_PER_SOL);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.loadedAddresses?.writable.map((k) => k.toBase58())).toEqual(recipients.map((r) => r.toBase58()));
    expect(landed?.meta?.postBalances.slice(-3)).toEqual([LAMPORTS_PER_SOL, 2 * LAMPORTS_PER_SOL, 3 * LAMPORTS_PER_SOL]);
  });

  it('refuses a lookup index past the table end (InvalidAddressLookupTableIndex)', async () => {
    const recentSlot = await connection.getSlot();
    const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: payer.publicKey, payer: payer.publicKey, recentSlot });
    const target = Keypair.generate().publicKey;
    const extend = AddressLookupTableProgram.extendLookupTable({
      lookupTable: table,
      authority: payer.publicKey,
      payer: payer.publicKey,
      addresses: [target],
    });
    const setup = await signedV0(connection, [payer], [create, extend]);
    await connection.sendRawTransaction(setup.tx.serialize());
    await waitFor(async () => ((await connection.getAddressLookupTable(table)).value?.isActive() ? true : undefined));
    const lookup = (await connection.getAddressLookupTable(table)).value!;
    const { tx } = await signedV0(
      connection,
      [payer],
      [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: target, lamports: LAMPORTS_PER_SOL })],
      [lookup],
    );
    tx.message.addressTableLookups[0]!.writableIndexes[0] = 7; // points past the one address
    tx.sign([payer]);
    await expect(connection.sendRawTransaction(tx.serialize())).rejects.toThrow(/address table lookup uses an invalid index/);
    expect(await connection.getBalance(target)).toBe(0);
  });
});
