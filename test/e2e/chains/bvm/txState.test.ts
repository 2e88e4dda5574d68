/**
 * End-to-end: what the Bitcoin adapter says of recorded transactions on the sandbox Esplora node. `lookup`:
 * dropped only once another transaction spending one of our inputs is mined at the reorg depth (a conflicting
 * spend still in the mempool proves nothing; one mined less deep is pending), unknown after a broadcast the node
 * dropped, and an HTTP 503 throws. `cancel`: a replacement spending the deposit's inputs back to our wallet,
 * priced for the market and re-priced up to its cap, which proves the deposit dead once mined deep enough. `recheck`: final only at the reorg depth
 * (and never before the confirmations a high-value transfer needs); moved, or removed, after the tip is
 * invalidated; unknown while the node lags.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SignedOriginTx } from '../../../../packages/ballast/src/chains/adapter.ts';
import type { BvmChainAdapter } from '../../../../packages/ballast/src/chains/bvm/adapter.ts';
import { startEsploraNode, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { AMOUNT } from '../../../fixtures/bvmQuote.ts';
import { adapterFor, depositItem, depositQuote, depositSpec, fundedCase, regtestKey } from './harness.ts';

let node: BitcoinSandboxNode;
beforeAll(async () => {
  node = await startEsploraNode();
});
afterAll(async () => {
  await node?.close();
});
afterEach(() => node.setFeeEstimates({ '1': 2, '2': 2, '6': 1.5, '144': 1, '1008': 1 }));

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
    // Mined one block deep: a reorg could still take the rival out and let ours in, so nothing is proven yet.
    expect(await adapter.lookup(signed, key.address)).toEqual({
      state: 'pending',
      detail: expect.stringMatching(/mined 1 block\(s\) deep \(proof at 6\)/),
    });
    for (let i = 0; i < 4; i++) node.mine();
    expect(await adapter.lookup(signed, key.address)).toMatchObject({ state: 'pending', detail: expect.stringMatching(/mined 5 block/) });
    node.mine();
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'dropped', by: rival.txHash });
    expect(await adapter.lookup({ txHash: signed.txHash, rawTx: signed.rawTx, request: null }, key.address)).toEqual({
      state: 'dropped',
      by: rival.txHash,
    });
    // Neither inputs in the record nor raw bytes: nothing can be proven.
    expect(await adapter.lookup({ txHash: signed.txHash, rawTx: '0x', request: { note: 'legacy' } }, key.address)).toEqual({
      state: 'unknown',
    });
    // The rival itself is mined, not dropped, though its input is spent (by itself).
    expect(await adapter.lookup(rival, key.address)).toMatchObject({
      state: 'mined',
      status: 'confirmed',
      blockNumber: BigInt(node.tipHeight() - 5),
    });
  });

  it('unknown after a broadcast the node answered but dropped; pending once sent again', async () => {
    const { key, adapter, signed } = await signedDeposit();
    node.dropNextBroadcasts(1);
    await adapter.broadcast(signed.rawTx); // the node answers with the txid
    expect(await adapter.knows(signed.txHash)).toBe(false);
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'unknown' });
    await expect(adapter.waitForInclusion(signed, 100)).rejects.toMatchObject({
      code: 'BVM_INCLUSION_TIMEOUT',
      message: expect.stringMatching(/not mined within 100 ms \(last seen unknown to the node\)/),
    });
    await adapter.broadcast(signed.rawTx);
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'pending' });
    await expect(adapter.waitForInclusion(signed, 100)).rejects.toThrow(/last seen in the mempool/);
  });

  it('an HTTP 503 throws instead of answering', async () => {
    const { key, adapter, signed } = await signedDeposit();
    node.failNextRequests(`/tx/${signed.txHash}`, 1);
    await expect(adapter.lookup(signed, key.address)).rejects.toMatchObject({
      code: 'BVM_ESPLORA_HTTP',
      status: 503,
      message: expect.stringMatching(/chains\.btc\.esploraUrl answered HTTP 503/),
    });
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

describe('Bitcoin adapter cancel', () => {
  it('replaces an unmined deposit with a transaction returning its inputs to our wallet, priced for the market; the deposit is then dropped by it', async () => {
    const { key, adapter, c, signed } = await signedDeposit();
    node.dropNextBroadcasts(1); // the deposit reached other nodes, maybe, but not ours
    await adapter.broadcast(signed.rawTx);
    node.setFeeEstimates({ '1': 9, '2': 7, '6': 3, '144': 1 }); // the market rose above the deposit's rate
    const canceller = adapter.capabilities.depositCanceller;
    const result = await canceller.cancel(key.address, signed, []);
    if (result.kind !== 'signed') throw new Error(`no cancel signed: ${JSON.stringify(result)}`);
    const cancel = result.signed;
    const depositFee = BigInt(String(signed.request.fee));
    const fee = BigInt(String(cancel.request.fee));
    const vsize = BigInt(Number(cancel.request.vsize));
    // BIP-125 rule 4 (at least the original fee plus 1 sat/vB of its own size), and the 2-block market rate.
    expect(fee).toBeGreaterThanOrEqual(depositFee + vsize);
    expect(fee).toBeGreaterThanOrEqual(7n * vsize);
    expect(result).toMatchObject({ feeSat: fee, capped: false });
    expect(cancel.request).toMatchObject({
      inputs: signed.request.inputs,
      outputs: `${key.address}:${c.utxos[0]!.value - fee}`,
      replaces: signed.txHash,
      signedAtHeight: String(node.tipHeight()),
    });
    expect(await canceller.send(cancel.rawTx)).toEqual({ accepted: true });
    expect(await canceller.send(cancel.rawTx)).toEqual({ accepted: true }); // already in the mempool: still accepted
    expect(await canceller.repriceDue(cancel)).toBe(false);
    for (let i = 0; i < 5; i++) node.mine();
    expect(await adapter.lookup(signed, key.address)).toMatchObject({ state: 'pending' }); // 5 deep: not yet proof
    node.mine();
    expect(await adapter.lookup(signed, key.address)).toEqual({ state: 'dropped', by: cancel.txHash });
    expect(await adapter.lookup(cancel, key.address)).toMatchObject({ state: 'mined' });
    expect(await adapter.capabilities.gasMeter.gasPaid(cancel.txHash)).toBe(fee);
  });

  it('re-prices a cancel over the last one, refuses above the caps, and reports what the node refused', async () => {
    const { key, adapter, signed } = await signedDeposit({ maxCancelFeeSats: 6_000n, cancelRepriceAfterBlocks: 2 });
    await adapter.broadcast(signed.rawTx);
    node.setFeeEstimates({ '1': 3, '2': 3, '144': 1 });
    const canceller = adapter.capabilities.depositCanceller;
    const first = await canceller.cancel(key.address, signed, []);
    if (first.kind !== 'signed') throw new Error('no first cancel');
    expect(await canceller.send(first.signed.rawTx)).toEqual({ accepted: true });
    const again = await canceller.send(signed.rawTx); // the deposit again, now that a cancel replaced it: refused
    expect(again).toMatchObject({ accepted: false, reason: expect.stringMatching(/insufficient fee/) });
    expect(await canceller.repriceDue(first.signed)).toBe(false);
    node.mine(2);
    expect(await canceller.repriceDue(first.signed)).toBe(true); // heights only: 2 blocks after it was signed
    const second = await canceller.cancel(key.address, signed, [first.signed]);
    if (second.kind !== 'signed') throw new Error('no second cancel');
    // Each re-price pays at least 1.5 × the last one (and out-pays it by BIP-125), so it reaches the cap in few steps.
    expect(second.feeSat * 2n).toBeGreaterThanOrEqual(first.feeSat * 3n);
    let last = second;
    const chainOf = [first.signed, second.signed];
    for (;;) {
      const next = await canceller.cancel(key.address, signed, chainOf);
      if (next.kind !== 'signed') {
        expect(next).toMatchObject({ kind: 'atCap', detail: expect.stringMatching(/above its caps of 6000 sat/) });
        break;
      }
      expect(next.feeSat).toBeLessThanOrEqual(6_000n);
      expect(next.feeSat).toBeGreaterThan(last.feeSat);
      chainOf.push(next.signed);
      last = next;
      expect(chainOf.length).toBeLessThan(8); // bounded
    }
    expect(last).toMatchObject({ capped: true, feeSat: 6_000n });
  });

  it('refuses a wallet that is not ours', async () => {
    const { adapter, signed } = await signedDeposit();
    await expect(adapter.capabilities.depositCanceller.cancel(regtestKey('p2wpkh', 0x7e).address, signed, [])).rejects.toMatchObject({
      code: 'BVM_ADAPTER_REFUSED',
    });
  });
});

describe('Bitcoin adapter recheck', () => {
  it('final only at the reorg depth, and never before the confirmations a high-value transfer needs', async () => {
    const { adapter, signed } = await signedDeposit({ highValueSats: AMOUNT, highValueConfirmations: 3, reorgDepth: 2 });
    const tx = await mined(adapter, signed);
    const head = await adapter.head();
    expect(head).toBe(tx.blockNumber);
    expect(await adapter.recheck({ ...tx, amountIn: AMOUNT - 1n }, head)).toEqual({ kind: 'same', final: false }); // 1 deep, reorg depth 2
    node.mine();
    expect(await adapter.recheck({ ...tx, amountIn: AMOUNT - 1n }, await adapter.head())).toEqual({ kind: 'same', final: true });
    expect(await adapter.recheck({ ...tx, amountIn: AMOUNT }, await adapter.head())).toEqual({ kind: 'same', final: false }); // needs 3
    expect(await adapter.recheck(tx, await adapter.head())).toEqual({ kind: 'same', final: false }); // amount unknown: the stricter count
    node.mine();
    expect(await adapter.recheck({ ...tx, amountIn: AMOUNT }, await adapter.head())).toEqual({ kind: 'same', final: true });
  });

  it('a deposit final for its fill is still re-checked until the default depth of 6', async () => {
    const { adapter, signed } = await signedDeposit();
    const tx = await mined(adapter, signed);
    for (let i = 0; i < 4; i++) node.mine();
    expect(await adapter.recheck({ ...tx, amountIn: 1n }, await adapter.head())).toEqual({ kind: 'same', final: false }); // 5 deep
    node.mine();
    expect(await adapter.recheck({ ...tx, amountIn: 1n }, await adapter.head())).toEqual({ kind: 'same', final: true });
  });

  it('moved when the invalidated block is replaced by one holding it again; removed when the new block lacks it', async () => {
    const { adapter, signed } = await signedDeposit();
    const tx = await mined(adapter, signed);
    node.invalidateTip(); // our transaction is back in the mempool
    expect(await adapter.recheck(tx, await adapter.head())).toEqual({
      kind: 'unknown',
      why: `the node's tip ${tx.blockNumber - 1n} is below the recorded block ${tx.blockNumber}`,
    });
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
    expect(await adapter.recheck(ghost, await adapter.head())).toMatchObject({
      kind: 'unknown',
      why: expect.stringMatching(/still canonical/),
    });
  });
});
