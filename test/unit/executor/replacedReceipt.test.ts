/**
 * The executor against a real SQLite store and a scripted in-memory node: a receipt for another hash than ours
 * means our transaction was replaced (it is not recorded as confirmed; the transfer stays in flight for
 * reconciliation), and a run that lost its lock between two items signs nothing more.
 */
import type { Hex } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTransfer } from '../../../packages/ballast/src/executor/executeTransfer.ts';
import { getTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { tempDb, type TempDb } from '../store/helpers.ts';
import { offlineExecution, scriptedNode } from './scriptedNode.ts';

const REPLACEMENT: Hex = `0x${'ab'.repeat(32)}`;

let t: TempDb;
beforeEach(() => {
  t = tempDb();
});
afterEach(() => t.cleanup());

describe('executeTransfer on a scripted node', () => {
  it('does not take a replacement receipt for ours: the deposit stays unconfirmed and the transfer in flight', async () => {
    const db = t.open();
    const { client, sent } = scriptedNode((n, hash) =>
      n === 1
        ? { transactionHash: hash, status: 'success', blockNumber: 1n }
        : { transactionHash: REPLACEMENT, status: 'success', blockNumber: 2n },
    );
    const { deps, args } = await offlineExecution(db, client);
    const result = await executeTransfer(deps, args);
    expect(sent).toHaveLength(2);
    expect(result.status).toBe('broadcast');
    expect(result.error).toContain(`was replaced by ${REPLACEMENT}`);
    const transfer = (await getTransfer(db, result.transferId))!;
    expect(transfer.status).toBe('broadcast');
    expect(transfer.txs.map((x) => [x.stepId, x.status])).toEqual([
      ['approve', 'confirmed'],
      ['deposit', 'sent'],
    ]);
  });

  it('signs nothing more once the run lost its lock: the approve is mined, the deposit never signed', async () => {
    const db = t.open();
    const lost = new AbortController();
    const { client, sent } = scriptedNode((_n, hash) => {
      lost.abort(); // the lock is lost while the approve's receipt is awaited
      return { transactionHash: hash, status: 'success', blockNumber: 1n };
    });
    const { deps, args } = await offlineExecution(db, client, lost.signal);
    const result = await executeTransfer(deps, args);
    expect(sent).toHaveLength(1);
    expect(result.status).toBe('origin_failed');
    expect(result.error).toContain('deposit not signed: the run lost its lock');
    expect((await getTransfer(db, result.transferId))!.txs.map((x) => [x.stepId, x.status])).toEqual([['approve', 'confirmed']]);
  });
});
