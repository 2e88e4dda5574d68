/**
 * End-to-end over HTTP: the sandbox Bitcoin node's mempool policy as an Esplora client sees it — a fee
 * under the minimum relay fee and a non-final lock time refused with Bitcoin Core's text, a full-RBF
 * replacement taking over (the original 404, the outspend naming the replacement), an under-paying
 * replacement refused, evicted transactions gone then re-broadcast and mined, reads of a backend that has
 * not seen a mempool transaction, the opt-in mode (`fullRbf: false`) and the sandbox admin route that arms
 * these faults.
 */
import { Psbt, type Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postBitcoinFaults } from '../../../../packages/sandbox/src/api/bitcoinFaultRoutes.ts';
import type { EsploraAddress, EsploraOutspend, EsploraStatus } from '../../../../packages/sandbox/src/bvm/esploraJson.ts';
import { startEsploraNode, type BitcoinNodeEvent, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { SandboxApiError } from '../../../../packages/sandbox/src/quote/errors.ts';
import { getJson, getText, p2trWallet, p2wpkhWallet, postTx, regtest, rpcError, type Coin, type TestWallet } from './btcWallets.ts';

let node: BitcoinSandboxNode;
let optInNode: BitcoinSandboxNode;
const events: BitcoinNodeEvent[] = [];
beforeAll(async () => {
  node = await startEsploraNode();
  optInNode = await startEsploraNode({ fullRbf: false });
  node.onEvent((e) => events.push(e));
});
afterAll(async () => {
  await node?.close();
  await optInNode?.close();
});

const sink = p2wpkhWallet();

/** Signs a one-output spend of P2TR `coins` to `to` paying exactly `fee` (P2TR: the vsize does not depend on amounts). */
function withFee(coins: Coin[], fee: bigint, opts: { to?: TestWallet; sequence?: number; locktime?: number } = {}): Transaction {
  const psbt = new Psbt({ network: regtest });
  if (opts.locktime !== undefined) psbt.setLocktime(opts.locktime);
  for (const c of coins) {
    psbt.addInput({
      hash: c.txid,
      index: c.vout,
      sequence: opts.sequence ?? 0xffffffff,
      witnessUtxo: { script: c.owner.output, value: c.value },
      tapInternalKey: c.owner.internalKey!, // P2TR coins only
    });
  }
  psbt.addOutput({ script: (opts.to ?? sink).output, value: coins.reduce((s, c) => s + c.value, 0n) - fee });
  coins.forEach((c, i) => psbt.signInput(i, c.owner.signer));
  psbt.finalizeAllInputs();
  return psbt.extractTransaction();
}

function coinOn(n: BitcoinSandboxNode, value = 50_000n): Coin {
  const owner = p2trWallet();
  return { ...n.faucet(owner.address, value), value, owner };
}

const vsizeOf = (c: Coin) => BigInt(withFee([c], 1_000n).virtualSize());

describe('sandbox Bitcoin node mempool policy over HTTP', () => {
  it('refuses a fee under the minimum relay fee and a non-final lock time with Core text (400)', async () => {
    const c = coinOn(node);
    const vsize = vsizeOf(c);
    const low = withFee([c], vsize - 1n);
    expect(await postTx(node.url, low.toHex())).toEqual({
      status: 400,
      text: rpcError(-26, `min relay fee not met, ${vsize - 1n} < ${vsize}`),
    });
    const locked = withFee([c], vsize, { locktime: node.tipHeight() + 1, sequence: 0xfffffffd });
    expect(await postTx(node.url, locked.toHex())).toEqual({ status: 400, text: rpcError(-26, 'non-final') });
    expect(await getText(`${node.url}/tx/${low.getId()}`)).toEqual({ status: 404, text: 'Transaction not found' });
    expect(node.mempoolTxids()).toEqual([]);
  });

  it('replace-by-fee: the replacement takes over, the original answers 404, an under-paying replacement is refused', async () => {
    const c = coinOn(node);
    const vsize = vsizeOf(c);
    expect(vsize).toBe(99n); // 1 P2TR input, 1 P2WPKH output: the fee texts below are written for two digits
    const original = withFee([c], 1_000n); // no BIP-125 signal: full-RBF replaces it anyway
    expect(await postTx(node.url, original.toHex())).toEqual({ status: 200, text: original.getId() });
    const replacement = withFee([c], 1_000n + vsize);
    expect(await postTx(node.url, replacement.toHex())).toEqual({ status: 200, text: replacement.getId() });

    expect(await getText(`${node.url}/tx/${original.getId()}`)).toEqual({ status: 404, text: 'Transaction not found' });
    expect(await getText(`${node.url}/tx/${original.getId()}/status`)).toEqual({ status: 404, text: 'Transaction not found' });
    expect(await getJson<EsploraOutspend>(`${node.url}/tx/${c.txid}/outspend/0`)).toEqual({
      spent: true,
      txid: replacement.getId(),
      vin: 0,
      status: { confirmed: false },
    });
    expect(await getJson<string[]>(`${node.url}/mempool/txids`)).toEqual([replacement.getId()]);
    expect(events).toContainEqual({ type: 'removed', reason: 'replaced', txids: [original.getId()], by: replacement.getId() });

    const under = withFee([c], 1_000n + 2n * vsize - 1n); // one satoshi short of paying its own vsize on top
    expect(await postTx(node.url, under.toHex())).toEqual({
      status: 400,
      text: rpcError(
        -26,
        `insufficient fee, rejecting replacement ${under.getId()}, not enough additional fees to relay; 0.000000${vsize - 1n} < 0.000000${vsize}`,
      ),
    });
    expect(await postTx(node.url, original.toHex())).toEqual({
      status: 400,
      text: rpcError(
        -26,
        `insufficient fee, rejecting replacement ${original.getId()}; new feerate ${rate(1_000n, vsize)} <= old feerate ${rate(1_000n + vsize, vsize)}`,
      ),
    });
    node.mine();
    expect(await getJson<EsploraStatus>(`${node.url}/tx/${replacement.getId()}/status`)).toMatchObject({ confirmed: true });
    expect(await postTx(node.url, original.toHex())).toEqual({ status: 400, text: rpcError(-25, 'bad-txns-inputs-missingorspent') });
  });

  it('an evicted transaction disappears (404, outspend unspent, address stats), then is broadcast again and mined', async () => {
    const owner = p2trWallet();
    const c = coinOn(node);
    const tx = withFee([c], 2_000n, { to: owner });
    node.evictNextBroadcasts(1);
    expect(await postTx(node.url, tx.toHex())).toEqual({ status: 200, text: tx.getId() });
    expect(await getText(`${node.url}/tx/${tx.getId()}`)).toEqual({ status: 404, text: 'Transaction not found' });
    expect(await getJson<EsploraOutspend>(`${node.url}/tx/${c.txid}/outspend/0`)).toEqual({ spent: false });
    const stats = await getJson<EsploraAddress>(`${node.url}/address/${owner.address}`);
    expect(stats.mempool_stats).toMatchObject({ funded_txo_count: 0, tx_count: 0 });
    expect(node.pendingFaults().evictNextBroadcasts).toBe(0);

    expect(await postTx(node.url, tx.toHex())).toEqual({ status: 200, text: tx.getId() });
    expect((await getJson<EsploraAddress>(`${node.url}/address/${owner.address}`)).mempool_stats).toMatchObject({
      funded_txo_count: 1,
      tx_count: 1,
    });
    expect(node.evict(tx.getId())).toEqual([tx.getId()]);
    expect((await getJson<EsploraAddress>(`${node.url}/address/${owner.address}`)).mempool_stats).toMatchObject({
      funded_txo_count: 0,
      tx_count: 0,
    });
    expect(events).toContainEqual({ type: 'removed', reason: 'evicted', txids: [tx.getId()] });

    expect(await postTx(node.url, tx.toHex())).toEqual({ status: 200, text: tx.getId() });
    node.mine();
    expect(await getJson<EsploraStatus>(`${node.url}/tx/${tx.getId()}/status`)).toMatchObject({
      confirmed: true,
      block_height: node.tipHeight(),
    });
    expect((await getJson<EsploraAddress>(`${node.url}/address/${owner.address}`)).chain_stats).toMatchObject({ funded_txo_count: 1 });
  });

  it('forgetMempoolReads: reads of a mempool transaction answer 404 for the next N, mined ones are unaffected', async () => {
    const mined = withFee([coinOn(node)], 1_000n);
    node.broadcast(mined.toHex());
    node.mine();
    const pending = withFee([coinOn(node)], 1_000n);
    expect(await postTx(node.url, pending.toHex())).toEqual({ status: 200, text: pending.getId() });
    node.forgetMempoolReads(2);
    expect((await getText(`${node.url}/tx/${mined.getId()}`)).status).toBe(200);
    expect(await getText(`${node.url}/tx/${pending.getId()}`)).toEqual({ status: 404, text: 'Transaction not found' });
    expect((await getText(`${node.url}/api/tx/${pending.getId()}/status`)).status).toBe(404);
    expect((await getText(`${node.url}/tx/${pending.getId()}`)).status).toBe(200);
    node.mine();
  });

  it('fullRbf: false refuses to replace a transaction that does not signal BIP-125', async () => {
    const c = coinOn(optInNode);
    const original = withFee([c], 1_000n, { sequence: 0xfffffffe });
    expect((await postTx(optInNode.url, original.toHex())).status).toBe(200);
    expect(await postTx(optInNode.url, withFee([c], 5_000n).toHex())).toEqual({ status: 400, text: rpcError(-26, 'txn-mempool-conflict') });
    expect(optInNode.mempoolTxids()).toEqual([original.getId()]);
  });

  it('the sandbox admin route arms the counts and evicts given txids, refusing a txid not in the mempool', async () => {
    const tx = withFee([coinOn(node)], 1_000n);
    node.broadcast(tx.toHex());
    expect(postBitcoinFaults(node, { evictNextBroadcasts: 2, forgetMempoolReads: 1, evict: [tx.getId().toUpperCase()] })).toEqual({
      status: 200,
      body: { pending: { dropNextBroadcasts: 0, evictNextBroadcasts: 2, forgetMempoolReads: 1 }, evicted: [tx.getId()] },
    });
    expect(await getText(`${node.url}/tx/${tx.getId()}`)).toEqual({ status: 404, text: 'Transaction not found' });
    const bad = (body: unknown) => {
      try {
        postBitcoinFaults(node, body);
      } catch (error) {
        return error instanceof SandboxApiError ? `${error.status} ${error.message}` : error;
      }
      return 'accepted';
    };
    expect(bad({ evict: [tx.getId()] })).toMatch(/^400 .*evict: [0-9a-f]{64} is not in the mempool/);
    expect(bad({ evictNextBroadcasts: -1 })).toMatch(/^400 .*evictNextBroadcasts/);
    expect(bad({ evictNextBroadcast: 1 })).toMatch(/^400 /);
    expect(node.pendingFaults()).toEqual({ dropNextBroadcasts: 0, evictNextBroadcasts: 2, forgetMempoolReads: 1 });
    expect(postBitcoinFaults(node, { evictNextBroadcasts: 0, forgetMempoolReads: 0 }).body).toMatchObject({ evicted: [] });
  });
});

/** Core's CFeeRate::ToString of fee over vsize (below 1 BTC/kvB). */
function rate(fee: bigint, vsize: bigint): string {
  return `0.${((fee * 1000n) / vsize).toString().padStart(8, '0')} BTC/kvB`;
}
