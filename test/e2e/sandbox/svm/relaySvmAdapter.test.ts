/**
 * End-to-end: the published Relay SDK's Solana adapter (`@relayprotocol/relay-svm-wallet-adapter`) executes
 * a deposit step against the sandbox Solana node exactly as it would against a real cluster: it fetches a
 * blockhash, loads the step's address lookup tables, compiles a v0 message, hands it to the wallet callback
 * (which signs and sends it through web3.js), then confirms it with the blockhash strategy. One case uses a
 * step built here; one the real step data beside the genuine fixtures (skipped with one printed line when
 * absent), with its wallet swapped for ours and its lookup table replaced by one created on the node.
 * Every request stays on 127.0.0.1.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  AddressLookupTableProgram,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  type Connection,
  type VersionedTransaction,
} from '@solana/web3.js';
import { bytesToHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RELAY_DEPOSITORY_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  depositAccounts,
  encodeDepositData,
  type SvmAccountMeta,
} from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import { startSolanaNode, type SolanaSandboxNode } from '../../../../packages/sandbox/src/svm/startSolanaNode.ts';
import { relayFixturesDir } from '../../../fixtures/relay.ts';
import { installLoopbackGuard, type LoopbackGuard } from '../../helpers/loopbackGuard.ts';
import { connect, orderId, signedV0, waitFor } from './svmTestKit.ts';

const REAL_STEP = path.join(relayFixturesDir, 'real', 'UNATTRIBUTED-solana-origin-deposit-native-step-data.json');
const realPresent = existsSync(REAL_STEP);
if (!realPresent) console.log(`real Solana step data not found at ${REAL_STEP} (set BALLAST_RELAY_FIXTURES): its adapter test is skipped`);
const REAL_USER = '27q8k7t3VAdZgeG679xpgmm9WD4g3EgVfNQaVgfGocPL';
const SOLANA_CHAIN_ID = 792703809;

type Adapter = typeof import('@relayprotocol/relay-svm-wallet-adapter');
interface StepData {
  instructions: { keys: SvmAccountMeta[]; programId: string; data: string }[];
  addressLookupTableAddresses: string[];
}

let guard: LoopbackGuard;
let adapter: Adapter;
let node: SolanaSandboxNode;
let connection: Connection;
let user: Keypair;
let table: string;

beforeAll(async () => {
  guard = installLoopbackGuard();
  const sdk = await import('@relayprotocol/relay-sdk');
  adapter = await import('@relayprotocol/relay-svm-wallet-adapter');
  sdk.createClient({ baseApiUrl: 'http://127.0.0.1:9', source: 'ballast-e2e', chains: [], logLevel: sdk.LogLevel.None });
  node = await startSolanaNode();
  connection = connect(node);
  user = Keypair.generate();
  await node.airdrop(user.publicKey.toBase58(), 5n * BigInt(LAMPORTS_PER_SOL));
  // A lookup table like Relay's: the depository's PDAs and the system program.
  const recentSlot = await connection.getSlot();
  const [create, key] = AddressLookupTableProgram.createLookupTable({ authority: user.publicKey, payer: user.publicKey, recentSlot });
  const addresses = [node.depository.relayDepository, node.depository.vault, SYSTEM_PROGRAM_ID].map((a) => new PublicKey(a));
  const extend = AddressLookupTableProgram.extendLookupTable({
    lookupTable: key,
    authority: user.publicKey,
    payer: user.publicKey,
    addresses,
  });
  const { tx } = await signedV0(connection, [user], [create, extend]);
  await connection.sendRawTransaction(tx.serialize());
  table = key.toBase58();
  await waitFor(async () => ((await connection.getAddressLookupTable(key)).value?.isActive() ? true : undefined));
});

afterAll(async () => {
  await node?.close();
  guard?.uninstall();
});

/** Runs one step item through the adapter; returns the signature, the confirmation and the sent transaction. */
async function runStep(data: StepData) {
  let sent: VersionedTransaction | undefined;
  const wallet = adapter.adaptSolanaWallet(user.publicKey.toBase58(), SOLANA_CHAIN_ID, connection, async (tx: VersionedTransaction) => {
    tx.sign([user]);
    sent = tx;
    return { signature: await connection.sendRawTransaction(tx.serialize()) };
  });
  // The adapter reads only `data` of the step item and never the step itself; the rest of the SDK's types is unused.
  const stepItem = { status: 'incomplete', data } as unknown as Parameters<typeof wallet.handleSendTransactionStep>[1];
  const step = {} as Parameters<typeof wallet.handleSendTransactionStep>[2]; // unused by the Solana adapter (see above)
  const signature = await wallet.handleSendTransactionStep(SOLANA_CHAIN_ID, stepItem, step);
  if (signature === undefined) throw new Error('the adapter returned no signature');
  const receipt = await wallet.handleConfirmTransactionStep(
    signature,
    SOLANA_CHAIN_ID,
    () => undefined,
    () => undefined,
  );
  return { signature, receipt, sent: sent! };
}

describe('Relay svm wallet adapter against the sandbox Solana node', () => {
  it('executes and confirms a native deposit step that uses a lookup table', async () => {
    const vaultBefore = node.balance(node.depository.vault);
    const keys = depositAccounts({
      programId: RELAY_DEPOSITORY_PROGRAM_ID,
      sender: user.publicKey.toBase58(),
      depositor: user.publicKey.toBase58(),
    });
    const data: StepData = {
      instructions: [
        {
          keys,
          programId: RELAY_DEPOSITORY_PROGRAM_ID,
          data: bytesToHex(encodeDepositData('native', 30_000_000n, orderId(0x44))).slice(2),
        },
      ],
      addressLookupTableAddresses: [table],
    };
    const { signature, receipt, sent } = await runStep(data);
    expect(sent.message.addressTableLookups.map((l) => l.accountKey.toBase58())).toEqual([table]);
    expect(receipt).toMatchObject({ txHash: signature });
    expect(node.balance(node.depository.vault) - vaultBefore).toBe(30_000_000n);
    const deposit = node.listDeposits().find((d) => d.signature === signature);
    expect(deposit?.slot).toBe((receipt as { blockNumber: number }).blockNumber); // the Solana adapter returns an SvmReceipt
    expect(deposit?.event).toEqual({ depositor: user.publicKey.toBase58(), token: null, amount: 30_000_000n, id: orderId(0x44) });
    expect(guard.offLoopback).toEqual([]);
  });

  it.skipIf(!realPresent)('executes the real Solana deposit step data with our wallet in place of its user', async () => {
    const real = JSON.parse(readFileSync(REAL_STEP, 'utf8')) as StepData; // the published step-data shape
    const me = user.publicKey.toBase58();
    const data: StepData = {
      instructions: real.instructions.map((ix) => ({
        ...ix,
        keys: ix.keys.map((k) => (k.pubkey === REAL_USER ? { ...k, pubkey: me } : k)),
      })),
      addressLookupTableAddresses: [table],
    };
    expect(data.instructions[0]!.keys[3]!.pubkey).toBe(node.depository.vault); // the mainnet PDA, served by this node
    const vaultBefore = node.balance(node.depository.vault);
    const { signature } = await runStep(data);
    expect(node.balance(node.depository.vault) - vaultBefore).toBe(10_000_000n);
    const deposit = node.listDeposits().find((d) => d.signature === signature);
    expect(deposit?.event).toEqual({
      depositor: me,
      token: null,
      amount: 10_000_000n,
      id: '0x14dde76fee19fe608e718acf1c9d29bdcf3caa142b82f2df800530cae1572cd7',
    });
    expect(guard.offLoopback).toEqual([]);
  });
});
