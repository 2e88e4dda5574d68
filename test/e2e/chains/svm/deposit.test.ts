/**
 * End-to-end against the sandbox Solana node: a Solana-origin quote built as the Relay API builds it
 * (deposit_native / deposit_token from `depositAccounts` + `encodeDepositData`, sender = depositor = our
 * wallet, compiled against a lookup table created on the node) passes `verifyQuote` with the lookup tables
 * the adapter read, is signed by the adapter exactly as verified, sent, and waited for; the funds reach the
 * depository vault; every lookup agrees (mined, same slot, final), and `findDeposit` finds the deposit only
 * for its own order id, depositor and amount. Items the adapter must not sign are refused before anything
 * is sent.
 */
import { Keypair, LAMPORTS_PER_SOL, VersionedTransaction } from '@solana/web3.js';
import { base58, base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { SvmAdapterError } from '../../../../packages/ballast/src/chains/svm/errors.ts';
import { parseSvmTxRecord } from '../../../../packages/ballast/src/chains/svm/txRecord.ts';
import { depositAccounts, encodeDepositData } from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import { verifyQuote } from '../../../../packages/ballast/src/verify/verifyQuote.ts';
import { instructionJson } from '../../../fixtures/svmQuote.ts';
import { orderId } from '../../sandbox/svm/svmTestKit.ts';
import {
  adapterNodePerFile,
  DEPOSITORY,
  sandboxQuote,
  SVM_PDAS,
  tableContents,
  WALLET,
  WALLET_NAME,
  type SandboxQuote,
} from './svmAdapterKit.ts';

const env = adapterNodePerFile({ lamports: 20n * BigInt(LAMPORTS_PER_SOL), usdcBaseUnits: 2_000_000_000n });
const me = WALLET.publicKey.toBase58();

/** Verifies the quote with the facts the adapter read on chain; fails the test on any failed rule. */
async function verified(q: SandboxQuote): Promise<void> {
  const origin = await env.adapter.originFacts(q.input.quote, me);
  expect(origin.lookupTables?.[env.table]).toEqual(tableContents(env.node));
  const verdict = await verifyQuote({ ...q.input, origin, limits: env.adapter.depositLimits });
  expect(verdict.rules.filter((r) => !r.ok)).toEqual([]);
  expect(verdict.ok).toBe(true);
  expect(verdict.orderId).toBe(q.orderId);
}

const vaultHolds = (currency: string | null) =>
  currency === null ? env.node.balance(SVM_PDAS.vault) : env.node.tokenBalance(SVM_PDAS.vault, currency);
const walletHolds = (currency: string | null) => (currency === null ? env.node.balance(me) : env.node.tokenBalance(me, currency));

describe.each([
  ['native', null],
  ['token', 'usdc'],
] as const)('svm adapter: a verified %s deposit, signed, sent and found', (kind, token) => {
  it('moves exactly the payment to the vault and every read agrees about it', async () => {
    const currency = token === null ? null : env.node.usdcMint;
    const q = sandboxQuote(env.node, kind, env.table);
    await verified(q);
    const vaultBefore = vaultHolds(currency);
    const walletBefore = walletHolds(currency);
    const depositsBefore = env.node.listDeposits().length;
    const solBefore = env.node.balance(me);

    const signed = await env.adapter.sign(WALLET_NAME, q.item);
    // Signed exactly as verified: our wallet pays and alone signs; the v0 message uses the table.
    const wire = VersionedTransaction.deserialize(base64.decode(signed.rawTx));
    expect(base58.encode(wire.signatures[0]!)).toBe(signed.txHash);
    expect(wire.signatures).toHaveLength(1);
    expect(wire.message.staticAccountKeys[0]!.toBase58()).toBe(me);
    expect(wire.message.addressTableLookups.map((l) => l.accountKey.toBase58())).toEqual([env.table]);
    expect(wire.message.compiledInstructions).toHaveLength(kind === 'native' ? 1 : 3);
    const record = parseSvmTxRecord(signed.request);
    expect(record).toMatchObject({ vm: 'svm', feePayer: me, blockhash: wire.message.recentBlockhash });
    expect(record!.lastValidBlockHeight).toBeGreaterThan(env.node.slot());
    expect(signed.chainId).toBe(792703809);

    await env.adapter.broadcast(signed.rawTx);
    const mined = await env.adapter.waitForInclusion(signed, 10_000);
    expect(mined).toEqual({
      kind: 'mined',
      status: 'confirmed',
      blockNumber: expect.any(BigInt),
      blockHash: expect.stringMatching(/^slot:\d+$/),
    });
    if (mined.kind !== 'mined') throw new Error('unreachable');
    expect(mined.blockHash).toBe(`slot:${mined.blockNumber}`);

    expect(vaultHolds(currency) - vaultBefore).toBe(q.amount);
    const spent = walletBefore - walletHolds(currency);
    expect(spent).toBe(token === null ? q.amount + 5_000n : q.amount);
    // The network cost is the payer's SOL spend less the SOL deposited: the fee, and for the token deposit also
    // the rent of the vault's token account it creates (5,000 base + 200 priority + 2,039,280 lamports).
    const solSpent = solBefore - env.node.balance(me);
    const cost = await env.adapter.capabilities.gasMeter.gasPaid(signed.txHash);
    expect([cost, solSpent]).toEqual(token === null ? [5_000n, q.amount + 5_000n] : [solSpent, 5_200n + 2_039_280n]);
    const landed = env.node.listDeposits().slice(depositsBefore);
    expect(landed).toHaveLength(1);
    expect(landed[0]).toMatchObject({ signature: signed.txHash, slot: Number(mined.blockNumber), sender: me });
    expect(landed[0]!.event).toEqual({ depositor: me, token: currency, amount: q.amount, id: q.orderId });

    const recorded = { txHash: signed.txHash, rawTx: signed.rawTx, request: signed.request };
    expect(await env.adapter.knows(signed.txHash)).toBe(true);
    expect(await env.adapter.lookup(recorded, me)).toEqual({
      state: 'mined',
      status: 'confirmed',
      blockNumber: mined.blockNumber,
      blockHash: mined.blockHash,
    });
    expect(await env.adapter.txBlock(signed.txHash)).toBe(mined.blockNumber);
    const head = await env.adapter.head();
    expect(head).toBeGreaterThanOrEqual(mined.blockNumber);
    const atRecorded = { ...recorded, status: 'confirmed' as const, blockNumber: mined.blockNumber, blockHash: mined.blockHash };
    expect(await env.adapter.recheck(atRecorded, head)).toEqual({ kind: 'same', final: true });
    expect(await env.adapter.recheck({ ...atRecorded, blockNumber: mined.blockNumber - 1n }, head)).toEqual({
      kind: 'moved',
      status: 'confirmed',
      blockNumber: mined.blockNumber,
      blockHash: mined.blockHash,
    });

    const query = { depository: DEPOSITORY, orderId: q.orderId, user: me, amount: q.amount };
    expect(await env.adapter.findDeposit(query)).toEqual({
      kind: 'found',
      deposit: { txHash: signed.txHash, blockNumber: mined.blockNumber, blockHash: mined.blockHash },
    });
    const none = { kind: 'none', atBlock: expect.any(BigInt) };
    expect(await env.adapter.findDeposit({ ...query, orderId: orderId(0x77) })).toEqual(none);
    expect(await env.adapter.findDeposit({ ...query, amount: q.amount - 1n })).toEqual(none);
    expect(await env.adapter.findDeposit({ ...query, user: Keypair.generate().publicKey.toBase58() })).toEqual(none);
    expect(await env.adapter.findDeposit({ ...query, depository: Keypair.generate().publicKey.toBase58() })).toEqual(none);
  });
});

describe('svm adapter: findDeposit and the depositor', () => {
  it('does not take a deposit we sent for another depositor as ours', async () => {
    const stranger = Keypair.generate().publicKey.toBase58();
    const id = orderId(0x5d);
    const keys = depositAccounts({ programId: DEPOSITORY, sender: me, depositor: stranger });
    const data = {
      instructions: [instructionJson({ programId: DEPOSITORY, keys, data: encodeDepositData('native', 7_000n, id) })],
      addressLookupTableAddresses: [],
    };
    const signed = await env.adapter.sign(WALLET_NAME, { stepId: 'deposit', itemIndex: 0, data });
    await env.adapter.broadcast(signed.rawTx);
    expect(await env.adapter.waitForInclusion(signed, 10_000)).toMatchObject({ kind: 'mined', status: 'confirmed' });
    expect(env.node.listDeposits().at(-1)?.event).toEqual({ depositor: stranger, token: null, amount: 7_000n, id });
    const search = await env.adapter.findDeposit({ depository: DEPOSITORY, orderId: id, user: me, amount: 7_000n });
    expect(search).toEqual({ kind: 'none', atBlock: expect.any(BigInt) });
    if (search.kind !== 'none') throw new Error('unreachable');
    expect(search.atBlock).toBeGreaterThanOrEqual(BigInt(env.node.listDeposits().at(-1)!.slot));
  });
});

describe('svm adapter: sign refuses, nothing is sent', () => {
  const nativeItem = () => sandboxQuote(env.node, 'native', env.table).item;

  it('for a wallet it does not hold', async () => {
    await expect(env.adapter.sign('other', nativeItem())).rejects.toThrow(
      new SvmAdapterError('wallet other is not a Solana wallet; it cannot sign on chain solana'),
    );
  });

  it('for data that is not Solana step data', async () => {
    await expect(env.adapter.sign(WALLET_NAME, { stepId: 'deposit', itemIndex: 0, data: { to: '0x01', data: '0x' } })).rejects.toThrow(
      /^deposit item 0: data is not Solana step data \(instructions: .*\); nothing is signed on chain solana$/,
    );
  });

  it('for a lookup table that does not exist on chain', async () => {
    const missing = Keypair.generate().publicKey.toBase58();
    const item = sandboxQuote(env.node, 'native', missing).item;
    await expect(env.adapter.sign(WALLET_NAME, item)).rejects.toThrow(
      `deposit item 0: lookup table(s) ${missing} are missing, deactivated or not lookup tables on chain solana; nothing is signed`,
    );
  });

  it('for a transaction another key must sign', async () => {
    const other = Keypair.generate().publicKey.toBase58();
    const keys = depositAccounts({ programId: DEPOSITORY, sender: other, depositor: me });
    const data = { instructions: [instructionJson({ programId: DEPOSITORY, keys, data: encodeDepositData('native', 1n, orderId(0x01)) })] };
    await expect(env.adapter.sign(WALLET_NAME, { stepId: 'deposit', itemIndex: 0, data })).rejects.toThrow(
      `deposit item 0: the transaction needs signatures of ${me}, ${other}; only our wallet ${me} signs`,
    );
  });

  it('for a transaction over 1232 bytes', async () => {
    const keys = depositAccounts({ programId: DEPOSITORY, sender: me, depositor: me });
    const big = instructionJson({ programId: DEPOSITORY, keys, data: new Uint8Array(1_100) });
    await expect(env.adapter.sign(WALLET_NAME, { stepId: 'deposit', itemIndex: 0, data: { instructions: [big] } })).rejects.toThrow(
      /^deposit item 0: the transaction is 1\d{3} bytes, \d+ over the 1232-byte limit; nothing is signed$/,
    );
  });

  it('when the node cannot give a blockhash', async () => {
    env.node.failNextRpc('getLatestBlockhash', 1);
    await expect(env.adapter.sign(WALLET_NAME, nativeItem())).rejects.toThrow(
      /^chains\.solana\.rpcUrl: getLatestBlockhash failed: .*Internal error/,
    );
  });
});
