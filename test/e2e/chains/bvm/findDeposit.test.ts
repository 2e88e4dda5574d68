/**
 * End-to-end: finding an order's Bitcoin deposit among the depository's transactions on the sandbox Esplora
 * node. Found when mined (also past the first page of history), `none` at the tip read before the search when
 * absent, a throw while it is only in the mempool; a payment carrying another order's memo, made by another
 * depositor, or of another amount is not the order's deposit; a search that cannot cover its window, or an
 * HTTP error, proves nothing and throws.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BvmKey } from '../../../../packages/ballast/src/chains/bvm/wallet.ts';
import { createEsploraClient } from '../../../../packages/ballast/src/chains/bvm/esploraClient.ts';
import { findBvmDeposit } from '../../../../packages/ballast/src/chains/bvm/findDeposit.ts';
import { signBvmPsbt } from '../../../../packages/ballast/src/chains/bvm/signPsbt.ts';
import { startEsploraNode, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { AMOUNT, buildPsbt, SIGN_LIMITS, type BvmCase } from '../../../fixtures/bvmQuote.ts';
import { adapterFor, depositSpec, fundedCase, regtestKey, type DepositVariant } from './harness.ts';

let node: BitcoinSandboxNode;
beforeAll(async () => {
  node = await startEsploraNode();
});
afterAll(async () => {
  await node?.close();
});

let nextKey = 0x50;
const freshKey = (type: 'p2wpkh' | 'p2tr' = 'p2wpkh'): BvmKey => regtestKey(type, nextKey++);

/** Signs and broadcasts (in-process) a deposit from `key`'s funded case `c`. @returns the txid */
async function send(key: BvmKey, c: BvmCase, variant: DepositVariant = {}): Promise<string> {
  const signed = await signBvmPsbt(key, buildPsbt(c, depositSpec(c, variant)).toHex(), SIGN_LIMITS);
  return node.broadcast(signed.rawTx);
}

const blockHash = async (height: number): Promise<string> => (await fetch(`${node.url}/block-height/${height}`)).text();

describe('Bitcoin adapter findDeposit', () => {
  it('finds a mined deposit past the first page of the depository’s history', async () => {
    const key = freshKey('p2tr');
    const adapter = adapterFor(node, {});
    const c = fundedCase(node, key, [200_000n]);
    const txid = await send(key, c);
    const height = node.mine();
    for (let i = 0; i < 30; i++) node.faucet(c.depository.address, 1_000n + BigInt(i)); // 30 newer payments: two more pages
    const query = { depository: c.depository.address, orderId: c.orderId, user: key.address, amount: AMOUNT };
    expect(await adapter.findDeposit(query)).toEqual({
      kind: 'found',
      deposit: { txHash: txid, blockNumber: BigInt(height), blockHash: await blockHash(height) },
    });
    // The order id compares in any case.
    expect(await adapter.findDeposit({ ...query, orderId: c.orderId.toUpperCase().replace('0X', '0x') })).toMatchObject({ kind: 'found' });

    // A search allowed one page cannot reach the deposit, so it proves nothing.
    const esplora = createEsploraClient({ name: 'btc', esploraUrl: node.url });
    await expect(findBvmDeposit(esplora, query, { maxPages: 1 })).rejects.toMatchObject({ code: 'BVM_DEPOSIT_SEARCH_INCOMPLETE' });
    expect(await findBvmDeposit(esplora, query, { maxPages: 3 })).toMatchObject({ kind: 'found', deposit: { txHash: txid } });
  });

  it('none at the tip read before the search; a mempool deposit throws until it is mined', async () => {
    const key = freshKey();
    const adapter = adapterFor(node, {});
    const c = fundedCase(node, key, [200_000n]);
    const query = { depository: c.depository.address, orderId: c.orderId, user: key.address, amount: AMOUNT };
    expect(await adapter.findDeposit(query)).toEqual({ kind: 'none', atBlock: BigInt(node.tipHeight()) });
    const txid = await send(key, c);
    await expect(adapter.findDeposit(query)).rejects.toMatchObject({
      code: 'BVM_DEPOSIT_UNCONFIRMED',
      message: `deposit ${txid} for order ${c.orderId} is in the mempool, not yet mined; look again after the next block`,
    });
    const height = node.mine();
    expect(await adapter.findDeposit(query)).toEqual({
      kind: 'found',
      deposit: { txHash: txid, blockNumber: BigInt(height), blockHash: await blockHash(height) },
    });
  });

  it('does not take another order’s memo, another amount or a memo that is not an order id', async () => {
    const key = freshKey();
    const adapter = adapterFor(node, {});
    const c = fundedCase(node, key, [150_000n, 150_000n, 150_000n]);
    const other = `0x${'cd'.repeat(32)}`;
    await send(key, c, { memo: other, utxos: [c.utxos[0]!] });
    await send(key, c, { amount: AMOUNT - 1n, utxos: [c.utxos[1]!] });
    await send(key, c, { memo: `${c.orderId} `, utxos: [c.utxos[2]!] });
    node.mine();
    const query = { depository: c.depository.address, orderId: c.orderId, user: key.address, amount: AMOUNT };
    expect(await adapter.findDeposit(query)).toEqual({ kind: 'none', atBlock: BigInt(node.tipHeight()) });
    // The payment under the other order id is that order's deposit.
    expect(await adapter.findDeposit({ ...query, orderId: other })).toMatchObject({ kind: 'found' });
    expect(await adapter.findDeposit({ ...query, amount: AMOUNT - 1n })).toMatchObject({ kind: 'found' });
  });

  it('does not take a payment of our order made by another depositor (its first input is not ours)', async () => {
    const ours = freshKey();
    const stranger = freshKey('p2tr');
    const adapter = adapterFor(node, {});
    const c = fundedCase(node, ours, [150_000n]);
    const query = { depository: c.depository.address, orderId: c.orderId, user: ours.address, amount: AMOUNT };
    // The stranger pays our order with no depositor in the memo: it credits the stranger, not us. (A memo with
    // `|depositor=` is longer than the 83 bytes the node relays; the unit tests cover that form.)
    const s1 = fundedCase(node, stranger, [150_000n]);
    const txid = await send(stranger, s1, { memo: c.orderId });
    node.mine();
    expect(await adapter.findDeposit(query)).toEqual({ kind: 'none', atBlock: BigInt(node.tipHeight()) });
    expect(await adapter.findDeposit({ ...query, user: stranger.address })).toMatchObject({ kind: 'found', deposit: { txHash: txid } });
  });

  it('an HTTP error while reading the history throws', async () => {
    const key = freshKey();
    const adapter = adapterFor(node, {});
    const c = fundedCase(node, key, [150_000n]);
    node.failNextRequests(`/address/${c.depository.address}/txs`, 1);
    await expect(
      adapter.findDeposit({ depository: c.depository.address, orderId: c.orderId, user: key.address, amount: AMOUNT }),
    ).rejects.toMatchObject({
      code: 'BVM_ESPLORA_HTTP',
      status: 503,
    });
  });
});
