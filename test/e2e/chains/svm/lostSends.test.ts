/**
 * End-to-end against the sandbox Solana node: what the Solana adapter answers about transactions that did not
 * simply land (the money-path contract in src/chains/adapter.ts). A send the node drops is `unknown` while
 * its blockhash can still land — and re-sending the same bytes then lands that one deposit — and `dropped`
 * only once the block height has passed the blockhash's last valid height; only after `dropped` is the item
 * signed again, and the order still gets exactly one deposit. Node faults throw (never `dropped`, never
 * "not found"); processed-only is `pending`; `finalized` waits for finality; an abandoned fork is `removed`.
 */
import { LAMPORTS_PER_SOL } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { SvmBlockhashExpiredError, SvmInclusionTimeoutError, SvmRpcError } from '../../../../packages/ballast/src/chains/svm/errors.ts';
import type { RecordedTx, SignedOriginTx } from '../../../../packages/ballast/src/chains/adapter.ts';
import {
  adapterFor,
  adapterNodePerFile,
  DEPOSITORY,
  rpcTap,
  sandboxQuote,
  SVM_PDAS,
  WALLET,
  WALLET_NAME,
  type RpcBody,
} from './svmAdapterKit.ts';

const env = adapterNodePerFile({ lamports: 40n * BigInt(LAMPORTS_PER_SOL) });
const me = WALLET.publicKey.toBase58();

/** The transaction as the store hands it back (its record through JSON). */
const recorded = (s: SignedOriginTx): RecordedTx => ({
  txHash: s.txHash,
  rawTx: s.rawTx,
  request: JSON.parse(JSON.stringify(s.request)) as unknown,
}); // untyped JSON
const depositsOf = (id: string) => env.node.listDeposits().filter((d) => d.event.id === id);

describe('svm adapter: a send the node drops', () => {
  it('is unknown while its blockhash is valid; the same bytes sent again land as the one deposit', async () => {
    const q = sandboxQuote(env.node, 'native', env.table);
    const signed = await env.adapter.sign(WALLET_NAME, q.item);
    env.node.dropNextSends(1);
    await env.adapter.broadcast(signed.rawTx); // answered with the signature, never landed
    expect(await env.adapter.knows(signed.txHash)).toBe(false);
    expect(await env.adapter.lookup(recorded(signed), me)).toEqual({ state: 'unknown' });
    await expect(env.adapter.waitForInclusion(signed, 600)).rejects.toThrow(SvmInclusionTimeoutError);

    await env.adapter.broadcast(signed.rawTx); // what reconciliation does with an unknown transaction
    const mined = await env.adapter.waitForInclusion(recorded(signed), 10_000);
    expect(mined).toMatchObject({ kind: 'mined', status: 'confirmed' });
    expect(await env.adapter.lookup(recorded(signed), me)).toMatchObject({ state: 'mined', status: 'confirmed' });
    expect(depositsOf(q.orderId).map((d) => d.signature)).toEqual([signed.txHash]);
  });

  it('is dropped only after the blockhash expired; signed again then, the order gets exactly one deposit', async () => {
    const q = sandboxQuote(env.node, 'native', env.table);
    const vaultBefore = env.node.balance(SVM_PDAS.vault);
    const first = await env.adapter.sign(WALLET_NAME, q.item);
    env.node.dropNextSends(1);
    await env.adapter.broadcast(first.rawTx);
    expect(await env.adapter.lookup(recorded(first), me)).toEqual({ state: 'unknown' });

    env.node.expireBlockhashes();
    expect(await env.adapter.lookup(recorded(first), me)).toEqual({ state: 'dropped' });
    // The expired transaction can no longer land: the node refuses it, and it stays dropped.
    await expect(env.adapter.broadcast(first.rawTx)).rejects.toThrow(
      /^chains\.solana\.rpcUrl: sendTransaction failed: .*[Bb]lockhash not found/,
    );
    expect(await env.adapter.lookup(recorded(first), me)).toEqual({ state: 'dropped' });
    const query = { depository: DEPOSITORY, orderId: q.orderId, user: me, amount: q.amount };
    expect(await env.adapter.findDeposit(query)).toEqual({ kind: 'none', atBlock: expect.any(BigInt) });

    const second = await env.adapter.sign(WALLET_NAME, q.item);
    expect(second.txHash).not.toBe(first.txHash);
    await env.adapter.broadcast(second.rawTx);
    const mined = await env.adapter.waitForInclusion(second, 10_000);
    if (mined.kind !== 'mined') throw new Error('unreachable');
    await expect(env.adapter.broadcast(first.rawTx)).rejects.toThrow(SvmRpcError);
    expect(await env.adapter.lookup(recorded(first), me)).toEqual({ state: 'dropped' });
    expect(depositsOf(q.orderId).map((d) => d.signature)).toEqual([second.txHash]);
    expect(env.node.balance(SVM_PDAS.vault) - vaultBefore).toBe(q.amount);
    expect(await env.adapter.findDeposit(query)).toEqual({
      kind: 'found',
      deposit: { txHash: second.txHash, blockNumber: mined.blockNumber, blockHash: mined.blockHash },
    });
  });

  it('stops waitForInclusion once its blockhash expired', async () => {
    const signed = await env.adapter.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
    env.node.dropNextSends(1);
    await env.adapter.broadcast(signed.rawTx);
    env.node.expireBlockhashes();
    await expect(env.adapter.waitForInclusion(signed, 10_000)).rejects.toThrow(SvmBlockhashExpiredError);
  });

  it('is unknown, not dropped, for a record without a blockhash to prove expiry', async () => {
    const signed = await env.adapter.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
    env.node.dropNextSends(1);
    await env.adapter.broadcast(signed.rawTx);
    env.node.expireBlockhashes();
    expect(await env.adapter.lookup({ ...recorded(signed), request: { source: 'depository event' } }, me)).toEqual({ state: 'unknown' });
  });
});

describe('svm adapter: node faults throw, never prove anything', () => {
  it.each(['getSignatureStatuses', 'getEpochInfo', 'isBlockhashValid'])(
    'lookup of an expired send throws when %s fails',
    async (method) => {
      const signed = await env.adapter.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
      env.node.dropNextSends(1);
      await env.adapter.broadcast(signed.rawTx);
      env.node.expireBlockhashes();
      env.node.failNextRpc(method, 1);
      await expect(env.adapter.lookup(recorded(signed), me)).rejects.toThrow(
        new RegExp(`^chains\\.solana\\.rpcUrl: ${method} failed: .*Internal error`),
      );
      expect(await env.adapter.lookup(recorded(signed), me)).toEqual({ state: 'dropped' });
    },
  );

  it('knows answers false, and head, txBlock, findDeposit, waitForInclusion and broadcast throw', async () => {
    const signed = await env.adapter.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
    env.node.failNextRpc('sendTransaction', 1);
    await expect(env.adapter.broadcast(signed.rawTx)).rejects.toThrow(/^chains\.solana\.rpcUrl: sendTransaction failed/);
    await env.adapter.broadcast(signed.rawTx);
    await env.adapter.waitForInclusion(signed, 10_000);
    env.node.failNextRpc('getSignatureStatuses', 3);
    expect(await env.adapter.knows(signed.txHash)).toBe(false);
    await expect(env.adapter.txBlock(signed.txHash)).rejects.toThrow(SvmRpcError);
    await expect(env.adapter.waitForInclusion(signed, 1_000)).rejects.toThrow(SvmRpcError);
    env.node.failNextRpc('getSlot', 1);
    await expect(env.adapter.head()).rejects.toThrow(/^chains\.solana\.rpcUrl: getSlot failed/);
    const query = { depository: DEPOSITORY, orderId: '0x' + '00'.repeat(32), user: me, amount: 1n };
    env.node.failNextRpc('getTransaction', 1);
    await expect(env.adapter.findDeposit(query)).rejects.toThrow(/^chains\.solana\.rpcUrl: getTransaction failed/);
    env.node.failNextRpc('getSignaturesForAddress', 1);
    await expect(env.adapter.findDeposit(query)).rejects.toThrow(/^chains\.solana\.rpcUrl: getSignaturesForAddress failed/);
    expect(await env.adapter.findDeposit(query)).toEqual({ kind: 'none', atBlock: expect.any(BigInt) });
  });
});

/** Makes the node report `signature` as only processed (confirmations 0). */
function onlyProcessed(signature: string) {
  return (body: RpcBody, params: unknown): RpcBody => {
    const asked = (params as unknown[])[0] as string[]; // getSignatureStatuses([signatures], config)
    const result = body.result as { value: (Record<string, unknown> | null)[] }; // the node's status answer
    result.value = result.value.map((s, i) =>
      asked[i] === signature && s ? { ...s, confirmations: 0, confirmationStatus: 'processed' } : s,
    );
    return body;
  };
}

describe('svm adapter: commitment', () => {
  it('a processed-only transaction is pending, not mined, and not yet a fill block; then mined', async () => {
    const tap = rpcTap();
    const watched = adapterFor(env.node, { tap });
    const signed = await watched.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
    tap.rewrite('getSignatureStatuses', onlyProcessed(signed.txHash));
    await watched.broadcast(signed.rawTx);
    expect(await watched.lookup(recorded(signed), me)).toEqual({ state: 'pending' });
    expect(await watched.knows(signed.txHash)).toBe(true);
    expect(await watched.txBlock(signed.txHash)).toBeNull();
    await expect(watched.waitForInclusion(signed, 400)).rejects.toThrow(
      /did not reach confirmed within 400 ms \(last seen processed at slot \d+\)/,
    );
    tap.rewrite('getSignatureStatuses', undefined);
    expect(await watched.lookup(recorded(signed), me)).toMatchObject({ state: 'mined', status: 'confirmed' });
  });

  it('with commitment finalized, waitForInclusion returns only once finalized, and recheck is final only then', async () => {
    const finalized = adapterFor(env.node, { commitment: 'finalized' });
    const signed = await finalized.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
    await finalized.broadcast(signed.rawTx);
    const mined = await finalized.waitForInclusion(signed, 20_000);
    if (mined.kind !== 'mined') throw new Error('unreachable');
    expect(BigInt(env.node.slot()) - mined.blockNumber).toBeGreaterThanOrEqual(4n); // the sandbox finalizes 4 slots after landing
    const atRecorded = { ...recorded(signed), status: 'confirmed' as const, blockNumber: mined.blockNumber, blockHash: mined.blockHash };
    expect(await finalized.recheck(atRecorded, await finalized.head())).toEqual({ kind: 'same', final: true });

    const next = await finalized.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
    await finalized.broadcast(next.rawTx);
    const seen = await env.adapter.waitForInclusion(next, 10_000); // the confirmed adapter returns at once
    if (seen.kind !== 'mined') throw new Error('unreachable');
    const slot = seen.blockNumber;
    const nextAt = { ...recorded(next), status: 'confirmed' as const, blockNumber: slot, blockHash: seen.blockHash };
    // Landed a slot or so ago, well short of the 4 slots (1.6 s) the sandbox takes to finalize.
    expect(await finalized.recheck(nextAt, await finalized.head())).toEqual({ kind: 'same', final: false });
    await finalized.waitForInclusion(next, 20_000);
    expect(await finalized.recheck(nextAt, await finalized.head())).toEqual({ kind: 'same', final: true });
  });

  it('recheck: a signature gone on a node past its slot is removed; below the slot, unknown', async () => {
    const tap = rpcTap();
    const watched = adapterFor(env.node, { tap });
    const signed = await watched.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
    await watched.broadcast(signed.rawTx);
    const mined = await watched.waitForInclusion(signed, 10_000);
    if (mined.kind !== 'mined') throw new Error('unreachable');
    tap.rewrite('getSignatureStatuses', (body) => {
      (body.result as { value: unknown[] }).value = [null]; // the node's status answer, now without the signature
      return body;
    });
    const atRecorded = { ...recorded(signed), status: 'confirmed' as const, blockNumber: mined.blockNumber, blockHash: mined.blockHash };
    expect(await watched.recheck(atRecorded, await watched.head())).toEqual({ kind: 'removed' });
    expect(await watched.recheck(atRecorded, mined.blockNumber - 1n)).toEqual({
      kind: 'unknown',
      why: `the head slot ${mined.blockNumber - 1n} is below the recorded slot ${mined.blockNumber}`,
    });
    expect(
      await watched.recheck({ ...atRecorded, blockNumber: BigInt(env.node.slot() + 1_000) }, BigInt(env.node.slot() + 1_000)),
    ).toMatchObject({ kind: 'unknown' });
  });
});
