/**
 * End-to-end: the sandbox Bitcoin node's fault hooks (lost broadcasts, 503 bursts by path prefix) and its
 * smaller routes (`/api` prefix, fee estimates, method and path errors, address validation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinNodeError } from '../../../../packages/sandbox/src/bvm/errors.ts';
import { startEsploraNode, type BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { buildSigned, getJson, getText, p2wpkhWallet, postTx } from './btcWallets.ts';

let node: BitcoinSandboxNode;
beforeAll(async () => {
  node = await startEsploraNode();
});
afterAll(async () => {
  await node?.close();
});

function signedSpend() {
  const owner = p2wpkhWallet();
  const { txid, vout } = node.faucet(owner.address, 10_000n);
  return buildSigned([{ txid, vout, value: 10_000n, owner }], [{ address: p2wpkhWallet().address, value: 9_000n }]);
}

describe('sandbox Bitcoin node faults', () => {
  it('dropNextBroadcasts: the txid is answered but the transaction is never kept', async () => {
    const first = signedSpend();
    const second = signedSpend();
    node.dropNextBroadcasts(2);
    expect(await postTx(node.url, first.toHex())).toEqual({ status: 200, text: first.getId() });
    expect(await postTx(node.url, second.toHex())).toEqual({ status: 200, text: second.getId() });
    expect(await getText(`${node.url}/tx/${first.getId()}`)).toEqual({ status: 404, text: 'Transaction not found' });
    expect(node.mempoolTxids()).toEqual([]);
    // The burst is used up: a rebroadcast now lands.
    expect(await postTx(node.url, first.toHex())).toEqual({ status: 200, text: first.getId() });
    expect(node.mempoolTxids()).toEqual([first.getId()]);
    node.mine();
  });

  it('failNextRequests: 503 for matching paths (with or without /api), others unaffected', async () => {
    const who = p2wpkhWallet().address;
    node.failNextRequests('/address', 2);
    expect(await getText(`${node.url}/address/${who}`)).toEqual({ status: 503, text: 'Service Unavailable' });
    expect((await getText(`${node.url}/blocks/tip/height`)).status).toBe(200);
    expect((await getText(`${node.url}/api/address/${who}/utxo`)).status).toBe(503);
    expect((await getText(`${node.url}/address/${who}`)).status).toBe(200);

    const tx = signedSpend();
    node.failNextRequests('/tx', 1);
    expect((await postTx(node.url, tx.toHex())).status).toBe(503);
    expect(node.mempoolTxids()).toEqual([]);
    expect(await postTx(node.url, tx.toHex())).toEqual({ status: 200, text: tx.getId() });
  });

  it('serves the API under /api too, fee estimates, and text errors for bad input', async () => {
    expect(await getText(`${node.url}/api/blocks/tip/height`)).toEqual({ status: 200, text: String(node.tipHeight()) });
    const fees = await getJson<Record<string, number>>(`${node.url}/fee-estimates`);
    expect(Object.keys(fees)).toEqual(expect.arrayContaining(['1', '6', '144', '1008']));
    node.setFeeEstimates({ '1': 12.5, '6': 3 });
    expect(await getJson(`${node.url}/fee-estimates`)).toEqual({ '1': 12.5, '6': 3 });
    expect(await getText(`${node.url}/tx/xyz`)).toEqual({ status: 400, text: 'Invalid hex string' });
    expect(await getText(`${node.url}/address/notanaddress`)).toEqual({ status: 400, text: 'Invalid Bitcoin address' });
    expect((await getText(`${node.url}/tx`)).status).toBe(405);
    expect(() => node.faucet('notanaddress', 1n)).toThrow(BitcoinNodeError);
    expect(() => node.faucet(p2wpkhWallet().address, 0n)).toThrow(/faucet amount/);
  });
});
