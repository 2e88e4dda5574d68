/**
 * A deposit on our own unconfirmed change (only with `allowOwnUnconfirmedInputs`) keeps its unconfirmed ancestors'
 * raw transactions (src/chains/bvm/ancestors.ts), so that once a parent is replaced by our cancel of it and the node
 * forgets it, `lookup` still proves the child dead: the parent's own input spent by the cancel at the reorg depth.
 * Against a scripted Esplora (injected fetch, no network).
 */
import { Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import type { RecordedTx } from '../../../../packages/ballast/src/chains/adapter.ts';
import { readUnconfirmedAncestors } from '../../../../packages/ballast/src/chains/bvm/ancestors.ts';
import { recordedAncestors } from '../../../../packages/ballast/src/chains/bvm/txRecord.ts';
import { createEsploraClient } from '../../../../packages/ballast/src/chains/bvm/esploraClient.ts';
import { lookupBvmTx } from '../../../../packages/ballast/src/chains/bvm/txState.ts';

const FUNDING = 'f0'.repeat(32);
const CANCEL = 'cc'.repeat(32);

/** A raw transaction spending `outpoints`, one output. */
function rawSpending(outpoints: [string, number][], value = 1_000n): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  for (const [txid, vout] of outpoints) tx.addInput(Buffer.from(txid, 'hex').reverse(), vout, 0xfffffffd);
  tx.addOutput(Buffer.from('0014' + '11'.repeat(20), 'hex'), value);
  return tx;
}

const parent = rawSpending([[FUNDING, 0]], 50_000n); // D1: our deposit, its change spent by D2
const child = rawSpending([[parent.getId(), 0]]); // D2: a deposit on D1's change

type Routes = Record<string, [number, unknown]>;

function esploraOf(routes: Routes) {
  const fetch: typeof globalThis.fetch = async (input) => {
    const path = new URL(String(input)).pathname;
    const [code, body] = routes[path] ?? [404, 'Transaction not found'];
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: code });
  };
  return createEsploraClient({ name: 'bitcoin', esploraUrl: 'http://esplora.test', fetch });
}

const recordedChild: RecordedTx = {
  txHash: child.getId(),
  rawTx: child.toHex(),
  request: { inputs: `${parent.getId()}:0`, ancestors: parent.toHex() },
};

/** The node after our cancel of D1 was mined at `height` with the tip at `tip`: D1 and D2 forgotten. */
function afterCancel(height: number, tip: number): Routes {
  return {
    '/blocks/tip/height': [200, String(tip)],
    [`/tx/${FUNDING}/outspend/0`]: [
      200,
      { spent: true, txid: CANCEL, vin: 0, status: { confirmed: true, block_height: height, block_hash: 'ee'.repeat(32) } },
    ],
  };
}

describe('unconfirmed ancestors', () => {
  it('are read at signing, nearest first, up to the first confirmed ones', async () => {
    const esplora = esploraOf({
      [`/tx/${parent.getId()}/status`]: [200, { confirmed: false }],
      [`/tx/${parent.getId()}/hex`]: [200, parent.toHex()],
      [`/tx/${FUNDING}/status`]: [200, { confirmed: true, block_height: 100, block_hash: 'dd'.repeat(32) }],
    });
    expect(await readUnconfirmedAncestors(esplora, [{ txid: parent.getId(), vout: 0 }])).toEqual([parent.toHex()]);
    expect(recordedAncestors(recordedChild)).toEqual([{ txid: parent.getId(), inputs: [{ txid: FUNDING, vout: 0 }] }]);
    await expect(readUnconfirmedAncestors(esploraOf({}), [{ txid: parent.getId(), vout: 0 }])).rejects.toThrow(
      /parent transaction .* is unknown to the node; a deposit on it is not signed/,
    );
  });

  it('a parent replaced by our cancel mined at the reorg depth proves the child dead; less deep, pending', async () => {
    expect(await lookupBvmTx(esploraOf(afterCancel(100, 105)), recordedChild, 6)).toEqual({ state: 'dropped', by: CANCEL });
    expect(await lookupBvmTx(esploraOf(afterCancel(100, 102)), recordedChild, 6)).toMatchObject({
      state: 'pending',
      detail: expect.stringMatching(/mined 3 block\(s\) deep \(proof at 6\)/),
    });
    // Without its ancestors recorded, nothing proves the child dead: the node answers 404 for its parent's outputs.
    const bare = { ...recordedChild, request: { inputs: `${parent.getId()}:0` } };
    expect(await lookupBvmTx(esploraOf(afterCancel(100, 105)), bare, 6)).toEqual({ state: 'unknown' });
  });

  it('a mined parent decides nothing about the child: its own inputs do', async () => {
    const mined: Routes = {
      ...afterCancel(100, 105),
      [`/tx/${parent.getId()}/status`]: [200, { confirmed: true, block_height: 99, block_hash: 'aa'.repeat(32) }],
    };
    expect(await lookupBvmTx(esploraOf(mined), recordedChild, 6)).toEqual({ state: 'unknown' });
  });
});
