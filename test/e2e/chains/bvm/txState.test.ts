/**
 * End-to-end: what the Bitcoin adapter says of recorded transactions on the sandbox Esplora node. `lookup`:
 * dropped only once another transaction spending one of our inputs is mined (a conflicting spend still in the
 * mempool proves nothing), unknown after a broadcast the node dropped, and an HTTP 503 throws. `recheck`:
 * final after 1 block, or 2 for a high-value transfer; moved, or removed, after the tip is invalidated; unknown
 * while the node lags.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedOriginTx } from '../../../../src/chains/adapter.ts';
import type { BvmChainAdapter } from '../../../../src/chains/bvm/adapter.ts';
import { startEsploraNode, type BitcoinSandboxNode } from '../../../../src/sandbox/bvm/startEsploraNode.ts';
import { AMOUNT } from '../../../fixtures/bvmQuote.ts';
import { adapterFor, depositItem, depositQuote, depositSpec, fundedCase, regtestKey } from './harness.ts';

let node: BitcoinSandboxNode;
beforeAll(async () => {
  node = await startEsploraNode();
});
afterAll(async () => {
  await node?.close();
});

let nextKey = 0x40;

/** A funded wallet, its adapter, and a signed (not sent) deposit spending its one output. */
async function signedDeposit(over: Parameters<typeof adapterFor>[2] = {}) {
  const key = regtestKey('p2wpkh', nextKey++);
  const adapter = adapterFor(node, { hot: key }, over);
  const c = fundedCase(node, key, [150_000n]);
  const signed = await adapter.sign('hot', depositItem(depositQuote(c, depositSpec(c))));
  return { key, adapter, c, signed };
}

/** Broadcasts and mines `signed`; returns its block as recorded by the executor. */
async function mined(adapter: BvmChainAdapter, signed: SignedOriginTx) {
  await adapter.broadcast(signed.rawTx);
  node.mine();
  const inclusion = await adapter.waitForInclusion(signed, 2_000);
  if (inclusion.kind !== 'mined') throw new Error('not mined');
  return { ...signed, status: 'confirmed' as const, blockNumber: inclusion.blockNumber, blockHash: inclusion.blockHash };
}

describe('Bitcoin adapter lookup', () => {
  it('dropped once another transaction spending our input is mined, from the record or from the raw bytes', async () => {
    const { key, adapter, c, signed } = await signedDeposit();
    // Another deposit spending the same output (a different fee, so a different transaction) goes first.
    const rival = await adapter.sign('hot', depositItem(depositQuote(c, depositSpec(c, { fee: 3_000n }))));
    expect(rival.txHash).not.toBe(signed.txHash);
    await adapter.broadcast(rival.rawTx);
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'unknown' }); // the rival may still be replaced
    node.mine();
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'dropped' });
    expect(await adapter.lookup({ txHash: signed.txHash, rawTx: signed.rawTx, request: null }, key.address)).toEqual({ state: 'dropped' });
    // Neither inputs in the record nor raw bytes: nothing can be proven.
    expect(await adapter.lookup({ txHash: signed.txHash, rawTx: '0x', request: { note: 'legacy' } }, key.address)).toEqual({ state: 'unknown' });
    // The rival itself is mined, not dropped, though its input is spent (by itself).
    expect(await adapter.lookup(rival, key.address)).toMatchObject({ state: 'mined', status: 'confirmed', blockNumber: BigInt(node.tipHeight()) });
  });

  it('unknown after a broadcast the node answered but dropped; pending once sent again', async () => {
    const { key, adapter, signed } = await signedDeposit();
    node.dropNextBroadcasts(1);
    await adapter.broadcast(signed.rawTx); // the node answers with the txid
    expect(await adapter.knows(signed.txHash)).toBe(false);
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'unknown' });
    await expect(adapter.waitForInclusion(signed, 100)).rejects.toMatchObject({ code: 'BVM_INCLUSION_TIMEOUT', message: expect.stringMatching(/not mined within 100 ms \(last seen unknown to the node\)/) });
    await adapter.broadcast(signed.rawTx);
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'pending' });
    await expect(adapter.waitForInclusion(signed, 100)).rejects.toThrow(/last seen in the mempool/);
  });

  it('an HTTP 503 throws instead of answering', async () => {
    const { key, adapter, signed } = await signedDeposit();
    node.failNextRequests(`/tx/${signed.txHash}`, 1);
    await expect(adapter.lookup(signed, key.address)).rejects.toMatchObject({ code: 'BVM_ESPLORA_HTTP', status: 503, message: expect.stringMatching(/chains\.btc\.esploraUrl answered HTTP 503/) });
    // The transaction is unknown, so its input's outspend is read next: a 503 there throws as well.
    const input = String(signed.request.inputs).split(':')[0]!;
    node.failNextRequests(`/tx/${input}/outspend`, 1);
    await expect(adapter.lookup(signed, key.address)).rejects.toMatchObject({ status: 503 });
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'unknown' });
    expect(await adapter.txBlock(signed.txHash)).toBeNull(); // 404: not on chain
    await adapter.broadcast(signed.rawTx);
    expect(await adapter.knows(signed.txHash)).toBe(true);
    node.failNextRequests('/tx/', 1);
    expect(await adapter.knows(signed.txHash)).toBe(false); // an error is not "known"
    expect(await adapter.txBlock(signed.txHash)).toBeNull(); // in the mempool, not in a block
    node.mine();
    node.failNextRequests('/tx/', 1);
    await expect(adapter.txBlock(signed.txHash)).rejects.toMatchObject({ status: 503 });
    expect(await adapter.txBlock(signed.txHash)).toBe(BigInt(node.tipHeight()));
  });
});

describe('Bitcoin adapter recheck', () => {
  it('final after 1 block below highValueSats, after 2 at or above it', async () => {
    const { adapter, signed } = await signedDeposit({ highValueSats: AMOUNT });
    const tx = await mined(adapter, signed);
    const head = await adapter.head();
    expect(head).toBe(tx.blockNumber);
    expect(await adapter.recheck({ ...tx, amountIn: AMOUNT - 1n }, head)).toEqual({ kind: 'same', final: true });
    expect(await adapter.recheck({ ...tx, amountIn: AMOUNT }, head)).toEqual({ kind: 'same', final: false });
    expect(await adapter.recheck(tx, head)).toEqual({ kind: 'same', final: false }); // amount unknown: the stricter count
    node.mine();
    expect(await adapter.recheck({ ...tx, amountIn: AMOUNT }, await adapter.head())).toEqual({ kind: 'same', final: true });
  });

  it('moved when the invalidated block is replaced by one holding it again; removed when the new block lacks it', async () => {
    const { adapter, signed } = await signedDeposit();
    const tx = await mined(adapter, signed);
    node.invalidateTip(); // our transaction is back in the mempool
    expect(await adapter.recheck(tx, await adapter.head())).toEqual({ kind: 'unknown', why: `the node's tip ${tx.blockNumber - 1n} is below the recorded block ${tx.blockNumber}` });
    node.mine(); // a new block at the same height takes it again
    const moved = await adapter.recheck(tx, await adapter.head());
    expect(moved).toMatchObject({ kind: 'moved', status: 'confirmed', blockNumber: tx.blockNumber });
    expect(moved.kind === 'moved' && moved.blockHash).not.toBe(tx.blockHash);

    const again = await mined(adapter, (await signedDeposit()).signed);
    node.invalidateTip();
    node.faucet(regtestKey('p2wpkh', 0x7f).address, 1_000n); // a new block at that height without our transaction
    expect(await adapter.recheck(again, await adapter.head())).toEqual({ kind: 'removed' });
    expect(await adapter.lookup(again, '')).toEqual({ state: 'pending' }); // back in the mempool, not lost
  });

  it('unknown while the node has the block but not the transaction in it (a lagging backend)', async () => {
    const { adapter, signed } = await signedDeposit();
    const tx = await mined(adapter, signed);
    node.failNextRequests(`/tx/${tx.txHash}/status`, 1);
    await expect(adapter.recheck(tx, await adapter.head())).rejects.toMatchObject({ status: 503 });
    // A record whose block is canonical but whose transaction the node places nowhere: the node lags.
    const ghost = { ...tx, txHash: 'ab'.repeat(32) };
    expect(await adapter.recheck(ghost, await adapter.head())).toMatchObject({ kind: 'unknown', why: expect.stringMatching(/still canonical/) });
  });
});
