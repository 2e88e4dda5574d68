/**
 * End-to-end: the sandbox Solana node answers an unmodified @solana/web3.js Connection (HTTP + websocket):
 * airdrops and balances, a SOL transfer confirmed over the websocket, finality, legacy/base58 wire, fees,
 * and the refusals and faults a real node would show (AlreadyProcessed, BlockhashNotFound, bad signature,
 * dropped sends, failing RPC calls, unknown methods).
 */
import {
  ComputeBudgetProgram,
  Keypair,
  LAMPORTS_PER_SOL,
  SendTransactionError,
  SystemProgram,
  Transaction,
  type Connection,
} from '@solana/web3.js';
import { base58 } from '@scure/base';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINALIZATION_DEPTH_SLOTS } from '../../../../packages/sandbox/src/svm/slotClock.ts';
import { startSolanaNode, type SolanaSandboxNode } from '../../../../packages/sandbox/src/svm/startSolanaNode.ts';
import { connect, rawRpc, signedV0, waitFor } from './svmTestKit.ts';

let node: SolanaSandboxNode;
let connection: Connection;
let alice: Keypair;

beforeAll(async () => {
  node = await startSolanaNode();
  connection = connect(node);
  alice = Keypair.generate();
  await node.airdrop(alice.publicKey.toBase58(), 50n * BigInt(LAMPORTS_PER_SOL));
});

afterAll(async () => {
  await node?.close();
});

/** A signed 1-SOL transfer alice → a new account. */
async function transferTx(lamports = BigInt(LAMPORTS_PER_SOL)) {
  const to = Keypair.generate().publicKey;
  const built = await signedV0(connection, [alice], [SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: to, lamports })]);
  return { ...built, to, signature: base58.encode(built.tx.signatures[0]!) };
}

describe('sandbox Solana node: accounts and transfers', () => {
  it('requestAirdrop lands and getBalance / node.balance report it', async () => {
    const bob = Keypair.generate();
    const signature = await connection.requestAirdrop(bob.publicKey, 2 * LAMPORTS_PER_SOL);
    expect(await connection.getBalance(bob.publicKey)).toBe(2 * LAMPORTS_PER_SOL);
    await node.airdrop(bob.publicKey.toBase58(), 500n);
    expect(node.balance(bob.publicKey.toBase58())).toBe(2_000_000_500n);
    const status = await connection.getSignatureStatus(signature);
    expect(status.value).toMatchObject({ err: null, confirmationStatus: 'confirmed' });
  });

  it('lands a SOL transfer, notifies its signature over the websocket and confirmTransaction resolves', async () => {
    const before = node.balance(alice.publicKey.toBase58());
    const { tx, to, signature, blockhash, lastValidBlockHeight } = await transferTx();
    const notified = new Promise<{ err: unknown; slot: number }>((resolve) => {
      connection.onSignature(signature, (result, context) => resolve({ err: result.err, slot: context.slot }), 'confirmed');
    });
    expect(await connection.sendRawTransaction(tx.serialize())).toBe(signature);
    const note = await notified;
    const confirmed = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight });
    expect(note.err).toBeNull();
    expect(confirmed.value.err).toBeNull();
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.slot).toBe(note.slot);
    expect(landed?.meta?.fee).toBe(5000);
    expect(landed?.meta?.logMessages).toEqual([
      'Program 11111111111111111111111111111111 invoke [1]',
      'Program 11111111111111111111111111111111 success',
    ]);
    expect(await connection.getBalance(to)).toBe(LAMPORTS_PER_SOL);
    expect(node.balance(alice.publicKey.toBase58())).toBe(before - BigInt(LAMPORTS_PER_SOL) - 5000n);
    expect(landed?.meta?.preBalances[0]! - landed!.meta!.postBalances[0]!).toBe(LAMPORTS_PER_SOL + 5000);
  });

  it(`reports finalized ${FINALIZATION_DEPTH_SLOTS} slots after landing`, async () => {
    const { tx, signature, blockhash, lastValidBlockHeight } = await transferTx();
    await connection.sendRawTransaction(tx.serialize());
    const first = await connection.getSignatureStatus(signature);
    expect(first.value?.confirmationStatus).toBe('confirmed');
    const result = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'finalized');
    expect(result.value.err).toBeNull();
    const final = await connection.getSignatureStatus(signature);
    expect(final.value).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
    expect(node.slot() - final.value!.slot).toBeGreaterThanOrEqual(FINALIZATION_DEPTH_SLOTS);
  });

  it('lands a legacy transaction sent as base58 and serves it to getTransaction without a version', async () => {
    const to = Keypair.generate().publicKey;
    const { blockhash } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: alice.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: to, lamports: LAMPORTS_PER_SOL }),
    );
    tx.sign(alice);
    const sent = await rawRpc(node.rpcUrl, 'sendTransaction', [base58.encode(tx.serialize())]);
    expect(sent.result).toBe(base58.encode(tx.signature!));
    const legacy = await connection.getTransaction(sent.result as string, { maxSupportedTransactionVersion: 0 }); // checked equal to a string above
    expect(legacy?.version).toBe('legacy');
    expect(legacy?.transaction.message.staticAccountKeys.map((k) => k.toBase58())).toContain(to.toBase58());
    expect(await connection.getBalance(to)).toBe(LAMPORTS_PER_SOL);
  });

  it('asks for maxSupportedTransactionVersion before serving a v0 transaction', async () => {
    const { tx, signature } = await transferTx();
    await connection.sendRawTransaction(tx.serialize());
    const res = await rawRpc(node.rpcUrl, 'getTransaction', [signature, { encoding: 'json', commitment: 'confirmed' }]);
    expect(res.error?.code).toBe(-32015);
  });

  it('charges the fee getFeeForMessage predicts, compute-unit price included', async () => {
    const to = Keypair.generate().publicKey;
    const built = await signedV0(
      connection,
      [alice],
      [
        ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }),
        SystemProgram.transfer({ fromPubkey: alice.publicKey, toPubkey: to, lamports: LAMPORTS_PER_SOL }),
      ],
    );
    const predicted = await connection.getFeeForMessage(built.tx.message);
    expect(predicted.value).toBe(5_300); // 5 000 per signature + ceil(1 000 µlamports × 300 000 CU / 10^6)
    const before = node.balance(alice.publicKey.toBase58());
    const signature = await connection.sendRawTransaction(built.tx.serialize());
    expect(before - node.balance(alice.publicKey.toBase58())).toBe(BigInt(LAMPORTS_PER_SOL) + 5_300n);
    expect((await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.meta?.fee).toBe(5_300);
  });
});

describe('sandbox Solana node: refusals and faults', () => {
  it('refuses a resend of a landed signature as AlreadyProcessed; nothing moves twice', async () => {
    const { tx, to } = await transferTx();
    await connection.sendRawTransaction(tx.serialize());
    const after = node.balance(alice.publicKey.toBase58());
    const resend = connection.sendRawTransaction(tx.serialize());
    await expect(resend).rejects.toBeInstanceOf(SendTransactionError);
    await expect(resend).rejects.toThrow(/This transaction has already been processed/);
    const raw = await rawRpc(node.rpcUrl, 'sendTransaction', [
      Buffer.from(tx.serialize()).toString('base64'),
      { encoding: 'base64', skipPreflight: true },
    ]);
    expect(raw.error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });
    expect(node.balance(alice.publicKey.toBase58())).toBe(after);
    expect(await connection.getBalance(to)).toBe(LAMPORTS_PER_SOL);
  });

  it('refuses a transaction whose blockhash expired (expireBlockhashes) with BlockhashNotFound', async () => {
    const { tx, to, blockhash, lastValidBlockHeight } = await transferTx();
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true);
    node.expireBlockhashes();
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(false);
    expect(await connection.getBlockHeight()).toBeGreaterThan(lastValidBlockHeight);
    const before = node.balance(alice.publicKey.toBase58());
    const raw = await rawRpc(node.rpcUrl, 'sendTransaction', [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64' }]);
    expect(raw.error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Blockhash not found',
      data: { err: 'BlockhashNotFound' },
    });
    expect(node.balance(alice.publicKey.toBase58())).toBe(before);
    expect(await connection.getBalance(to)).toBe(0);
  });

  it('refuses a transaction with a bad signature (-32003)', async () => {
    const { tx, to, signature } = await transferTx();
    const sig = tx.signatures[0]!;
    sig[10] = sig[10]! ^ 0xff;
    const raw = await rawRpc(node.rpcUrl, 'sendTransaction', [
      Buffer.from(tx.serialize()).toString('base64'),
      { encoding: 'base64', skipPreflight: true },
    ]);
    expect(raw.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });
    expect(await connection.getBalance(to)).toBe(0);
    expect((await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value).toBeNull();
  });

  it('dropNextSends: answers the signature, never lands it, then lands the next send', async () => {
    const dropped = await transferTx();
    node.dropNextSends(1);
    const before = node.balance(alice.publicKey.toBase58());
    expect(await connection.sendRawTransaction(dropped.tx.serialize())).toBe(dropped.signature);
    const sentAt = node.slot();
    await waitFor(() => (node.slot() >= sentAt + 2 ? true : undefined)); // slots pass; it still never lands
    const status = await connection.getSignatureStatuses([dropped.signature], { searchTransactionHistory: true });
    expect(status.value).toEqual([null]);
    expect(node.balance(alice.publicKey.toBase58())).toBe(before);
    // The same bytes sent again land: the drop used itself up and nothing was recorded.
    await connection.sendRawTransaction(dropped.tx.serialize());
    expect((await connection.getSignatureStatus(dropped.signature)).value?.err).toBeNull();
    expect(await connection.getBalance(dropped.to)).toBe(LAMPORTS_PER_SOL);
  });

  it('failNextRpc answers -32603 the next n times, then the method works again', async () => {
    node.failNextRpc('getBalance', 2);
    const first = await rawRpc(node.rpcUrl, 'getBalance', [alice.publicKey.toBase58()]);
    const second = await rawRpc(node.rpcUrl, 'getBalance', [alice.publicKey.toBase58()]);
    const third = await rawRpc(node.rpcUrl, 'getBalance', [alice.publicKey.toBase58()]);
    expect(first.error).toEqual({ code: -32603, message: 'Internal error' });
    expect(second.error?.code).toBe(-32603);
    expect(third.result).toMatchObject({ value: Number(node.balance(alice.publicKey.toBase58())) });
  });

  it('answers unknown methods with -32601 naming the method, and bad params with -32602', async () => {
    expect((await rawRpc(node.rpcUrl, 'getFancyThing', [])).error).toEqual({ code: -32601, message: 'Method not found: getFancyThing' });
    expect((await rawRpc(node.rpcUrl, 'getBalance', ['not-a-key'])).error?.code).toBe(-32602);
  });
});

describe('sandbox Solana node: cluster facts', () => {
  it('advances slots on its timer and answers the cluster methods', async () => {
    const start = await connection.getSlot();
    await waitFor(async () => ((await connection.getSlot()) >= start + 2 ? true : undefined), 3_000);
    const epoch = await connection.getEpochInfo();
    expect(epoch.absoluteSlot).toBeGreaterThanOrEqual(start + 2);
    expect(epoch.blockHeight).toBe(epoch.absoluteSlot);
    expect(await connection.getVersion()).toMatchObject({ 'solana-core': expect.any(String) });
    expect(await connection.getGenesisHash()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect((await rawRpc(node.rpcUrl, 'getHealth')).result).toBe('ok');
    expect(await connection.getRecentPrioritizationFees()).toEqual([]);
    expect(await connection.getMinimumBalanceForRentExemption(0)).toBe(890_880);
    const finalized = await connection.getSlot('finalized');
    const confirmed = await connection.getSlot('confirmed');
    // A timer slot may fall between the two calls.
    expect([FINALIZATION_DEPTH_SLOTS, FINALIZATION_DEPTH_SLOTS + 1]).toContain(confirmed - finalized);
  });

  it('notifies slots over the websocket (slotSubscribe)', async () => {
    const seen: number[] = [];
    const id = connection.onSlotChange((info) => seen.push(info.slot));
    await waitFor(() => (seen.length >= 2 ? true : undefined), 3_000);
    await connection.removeSlotChangeListener(id);
    expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(1);
    expect(seen.at(-1)).toBeLessThanOrEqual(node.slot());
  });

  it('simulateTransaction runs without changing anything', async () => {
    const { tx, to, signature } = await transferTx();
    const before = node.balance(alice.publicKey.toBase58());
    const sim = await connection.simulateTransaction(tx, { sigVerify: true });
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs).toEqual([
      'Program 11111111111111111111111111111111 invoke [1]',
      'Program 11111111111111111111111111111111 success',
    ]);
    expect(node.balance(alice.publicKey.toBase58())).toBe(before);
    expect(await connection.getBalance(to)).toBe(0);
    expect((await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value).toBeNull();
  });

  it('speaks the validator websocket protocol: subscribe answer, notification, faults, unknown methods', async () => {
    const { tx, signature } = await transferTx();
    await connection.sendRawTransaction(tx.serialize());
    const landedSlot = (await connection.getSignatureStatus(signature)).value!.slot;
    const socket = new WebSocket(node.wsUrl);
    const messages: unknown[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(raw.toString())));
    await new Promise((resolve) => socket.once('open', resolve));
    node.failNextRpc('signatureSubscribe', 1);
    const subscribe = (id: number) =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'signatureSubscribe', params: [signature, { commitment: 'confirmed' }] }));
    subscribe(1);
    subscribe(2);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'blockSubscribe', params: [] }));
    await waitFor(() => (messages.length >= 4 ? true : undefined));
    socket.close();
    const subId = (messages[1] as { result: number }).result; // the second answer is the subscription id
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
      { jsonrpc: '2.0', id: 2, result: expect.any(Number) },
      {
        jsonrpc: '2.0',
        method: 'signatureNotification',
        params: { result: { context: { slot: landedSlot }, value: { err: null } }, subscription: subId },
      },
      { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: blockSubscribe' } },
    ]);
  });

  it('answers a JSON-RPC batch in order', async () => {
    const res = await fetch(node.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'getHealth' },
        { jsonrpc: '2.0', id: 'b', method: 'nope' },
      ]),
    });
    expect(await res.json()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: 'ok' },
      { jsonrpc: '2.0', id: 'b', error: { code: -32601, message: 'Method not found: nope' } },
    ]);
  });

  it('close() stops the servers', async () => {
    const other = await startSolanaNode();
    expect((await rawRpc(other.rpcUrl, 'getHealth')).result).toBe('ok');
    await other.close();
    await expect(fetch(other.rpcUrl, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
