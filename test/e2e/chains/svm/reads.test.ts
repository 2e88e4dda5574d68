/**
 * End-to-end against the sandbox Solana node: the Solana adapter's reads. Balances of SOL, the node's USDC
 * (SPL Token) and a Token-2022 mint, with a missing token account read as 0, all in ONE getMultipleAccounts
 * round trip at one slot; per-holding errors for what is not a mint; the cluster check by genesis hash; mint
 * decimals; lookup tables resolved on chain for the verifier; and node faults surfacing as errors naming
 * `chains.solana.rpcUrl`, never as zero balances.
 */
import { Keypair, LAMPORTS_PER_SOL, type Connection } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvmRpcError } from '../../../../packages/ballast/src/chains/svm/errors.ts';
import { SYSTEM_PROGRAM_ID } from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import { startSolanaNode, type SolanaSandboxNode } from '../../../../packages/sandbox/src/svm/startSolanaNode.ts';
import { connect, rawRpc } from '../../sandbox/svm/svmTestKit.ts';
import { adapterFor, createLookupTable, DEPOSITORY, rpcTap, sandboxQuote, tableContents, WALLET } from './svmAdapterKit.ts';

let node: SolanaSandboxNode;
let connection: Connection;
let mint2022: string;
const me = WALLET.publicKey.toBase58();
const stranger = Keypair.generate().publicKey.toBase58();

beforeAll(async () => {
  node = await startSolanaNode({ depositoryProgramId: DEPOSITORY });
  connection = connect(node);
  await node.airdrop(me, 3n * BigInt(LAMPORTS_PER_SOL) + 123n);
  await node.mintTo(me, node.usdcMint, 42_500_000n);
  mint2022 = await node.createMint(2, { tokenProgram: TOKEN_2022_PROGRAM_ID.toBase58() });
  await node.mintTo(me, mint2022, 12_345n);
});

afterAll(async () => {
  await node?.close();
});

describe('svm adapter: the seam constants', () => {
  it('names SOL, 9 decimals, case-sensitive currencies and the configured fee caps', () => {
    const adapter = adapterFor(node);
    expect(adapter.vm).toBe('svm');
    expect(adapter.nativeCurrency).toBe(SYSTEM_PROGRAM_ID);
    expect(adapter.nativeDecimals).toBe(9);
    expect(adapter.currencyKey(node.usdcMint)).toBe(node.usdcMint);
    expect(adapter.currencyKey(node.usdcMint.toLowerCase())).not.toBe(adapter.currencyKey(node.usdcMint));
    expect(adapter.validateAddress(me)).toBeNull();
    expect(adapter.validateAddress('0x03508bb71268bba25ecacc8f620e01866650532c')).toMatch(/EVM address/);
    expect(adapter.depositLimits).toEqual({ svmMaxMicroLamportsPerCu: 1_000_000n, svmMaxComputeUnits: 1_400_000 });
  });
});

describe('svm adapter: readBalances', () => {
  it('reads SOL, SPL USDC, Token-2022 and a missing token account in one getMultipleAccounts call at one slot', async () => {
    const tap = rpcTap();
    const adapter = adapterFor(node, { tap });
    const slotBefore = node.slot();
    const read = await adapter.readBalances([
      { address: me, currency: SYSTEM_PROGRAM_ID },
      { address: me, currency: node.usdcMint },
      { address: me, currency: mint2022 },
      { address: stranger, currency: node.usdcMint },
      { address: stranger, currency: SYSTEM_PROGRAM_ID },
    ]);
    expect(tap.calls).toEqual(['getMultipleAccounts']);
    expect(read).toEqual({
      ok: true,
      atBlock: expect.any(BigInt),
      amounts: [{ amount: node.balance(me) }, { amount: 42_500_000n }, { amount: 12_345n }, { amount: 0n }, { amount: 0n }],
    });
    expect(node.balance(me)).toBe(3n * BigInt(LAMPORTS_PER_SOL) + 123n);
    if (!read.ok) throw new Error('unreachable');
    expect(read.atBlock).toBeGreaterThanOrEqual(BigInt(slotBefore));
    expect(read.atBlock).toBeLessThanOrEqual(BigInt(node.slot()));
  });

  it('reports per holding what is not a mint, a missing mint and a bad address, and still reads the rest', async () => {
    const adapter = adapterFor(node);
    const missingMint = Keypair.generate().publicKey.toBase58();
    const read = await adapter.readBalances([
      { address: me, currency: me },
      { address: me, currency: missingMint },
      { address: '0x03508bb71268bba25ecacc8f620e01866650532c', currency: SYSTEM_PROGRAM_ID },
      { address: me, currency: node.usdcMint },
    ]);
    if (!read.ok) throw new Error(read.error);
    expect(read.amounts).toEqual([
      { amount: null, error: `${me} is not a token mint (its account belongs to ${SYSTEM_PROGRAM_ID})` },
      { amount: null, error: `mint ${missingMint} does not exist on this chain` },
      { amount: null, error: '0x03508bb71268bba25ecacc8f620e01866650532c is not a Solana address' },
      { amount: 42_500_000n },
    ]);
  });

  it('checks the cluster by genesis hash once, and refuses another cluster', async () => {
    const genesis = (await rawRpc(node.rpcUrl, 'getGenesisHash')).result as string; // a base58 hash
    const tap = rpcTap();
    const adapter = adapterFor(node, { tap, genesisHash: genesis });
    expect((await adapter.readBalances([{ address: me, currency: SYSTEM_PROGRAM_ID }])).ok).toBe(true);
    expect((await adapter.readBalances([{ address: me, currency: SYSTEM_PROGRAM_ID }])).ok).toBe(true);
    expect(tap.calls).toEqual(['getGenesisHash', 'getMultipleAccounts', 'getMultipleAccounts']);

    const mainnet = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
    const wrong = await adapterFor(node, { genesisHash: mainnet }).readBalances([{ address: me, currency: SYSTEM_PROGRAM_ID }]);
    expect(wrong).toEqual({
      ok: false,
      error: `chains.solana.rpcUrl serves the cluster with genesis hash ${genesis}, but chains.solana expects ${mainnet}; point rpcUrl at that cluster`,
    });
  });

  it('answers ok: false naming chains.solana.rpcUrl when the node fails, never zero balances', async () => {
    const adapter = adapterFor(node);
    node.failNextRpc('getMultipleAccounts', 1);
    const read = await adapter.readBalances([{ address: me, currency: SYSTEM_PROGRAM_ID }]);
    expect(read.ok).toBe(false);
    if (read.ok) throw new Error('unreachable');
    expect(read.error).toMatch(/^chains\.solana\.rpcUrl: getMultipleAccounts failed: .*Internal error/);
    expect(read.error).not.toContain(node.rpcUrl);
    expect((await adapter.readBalances([{ address: me, currency: SYSTEM_PROGRAM_ID }])).ok).toBe(true);
  });
});

describe('svm adapter: readDecimals', () => {
  it('reads mint decimals (SPL and Token-2022), null for what is not a mint', async () => {
    const adapter = adapterFor(node);
    const missing = Keypair.generate().publicKey.toBase58();
    expect(await adapter.readDecimals([node.usdcMint, mint2022, me, missing, 'not-a-key'])).toEqual([6, 2, null, null, null]);
  });

  it('throws the node error instead of answering null', async () => {
    const adapter = adapterFor(node);
    node.failNextRpc('getMultipleAccounts', 1);
    const error = await adapter.readDecimals([node.usdcMint]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvmRpcError);
    expect((error as SvmRpcError).message).toMatch(/^chains\.solana\.rpcUrl: getMultipleAccounts failed/); // checked just above
  });
});

describe('svm adapter: originFacts', () => {
  it('resolves the lookup tables the quote names on chain, leaving out what is not a usable table', async () => {
    const payer = Keypair.generate();
    await node.airdrop(payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL));
    const table = await createLookupTable(connection, payer, tableContents(node));
    const notATable = me;
    const missing = Keypair.generate().publicKey.toBase58();
    const { input, item } = sandboxQuote(node, 'native', table);
    item.data['addressLookupTableAddresses'] = [table, notATable, missing];
    const tap = rpcTap();
    const facts = await adapterFor(node, { tap }).originFacts(input.quote, me);
    expect(facts).toEqual({ lookupTables: { [table]: tableContents(node) } });
    expect(tap.calls).toEqual(['getMultipleAccounts']);
  });

  it('throws when the node fails', async () => {
    const { input } = sandboxQuote(node, 'native', Keypair.generate().publicKey.toBase58());
    node.failNextRpc('getMultipleAccounts', 1);
    await expect(adapterFor(node).originFacts(input.quote, me)).rejects.toThrow(/^chains\.solana\.rpcUrl: getMultipleAccounts failed/);
  });
});
