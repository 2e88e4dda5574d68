/**
 * The PostgreSQL store's write-ahead fencing against a real server: a write-ahead (a transfer row with its signed
 * transactions, a withdrawal's signature or ready transaction) commits only while the token's owner holds the
 * lease at the token's epoch; otherwise nothing is written. Other writes (guarded transitions) are not fenced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStore } from '../../../packages/ballast/src/store/openStore.ts';
import type { PgStoreDb } from '../../../packages/ballast/src/store/pg/pgDb.ts';
import { tryAcquireLease, type FencingToken } from '../../../packages/ballast/src/store/pg/lease.ts';
import { addTransferTx, createTransfer, getTransfer, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { createDatabase, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import { newTransfer } from '../../unit/store/helpers.ts';
import {
  closeRequest,
  createApprovalRequest,
  getApprovalRequest,
  rejectRequest,
} from '../../../packages/ballast/src/store/approvalRequests.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { recordPlannedTransfers } from '../../../packages/ballast/src/store/plans.ts';

let server: PostgresServer;
const stores: PgStoreDb[] = [];
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  await server?.stop();
});

async function store(name: string): Promise<PgStoreDb> {
  const db = await openPgStore(await createDatabase(server.url, name));
  stores.push(db);
  return db;
}

const count = async (db: PgStoreDb, table: string): Promise<number> =>
  (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PgStoreDb.writeAhead', () => {
  it('commits under the held lease and refuses, writing nothing, once another replica took it', async () => {
    const db = await store('fenced_taken');
    const a = { name: 'ballast', owner: 'replica-a:1:x' };
    const held = await tryAcquireLease(db.pool, a, 300, null);
    expect(held.held).toBe(true);
    let token: FencingToken | null = { ...a, epoch: held.epoch! };
    db.setFencing(() => token);

    const first = await createTransfer(db, await newTransfer(db));
    expect(first.txIds).toHaveLength(2);

    await sleep(400); // a's lease expires on the database clock; b takes it at the next epoch
    const b = await tryAcquireLease(db.pool, { name: 'ballast', owner: 'replica-b:2:y' }, 10_000, null);
    expect([b.held, b.epoch]).toEqual([true, held.epoch! + 1n]);

    // a still presents its old token (a process that does not know yet): the database refuses it.
    const before = { transfers: await count(db, 'transfers'), txs: await count(db, 'transfer_txs') };
    await expect(createTransfer(db, await newTransfer(db, { requestId: `0x${'ef'.repeat(32)}` }))).rejects.toMatchObject({
      code: 'STORE_LEASE_LOST',
    });
    await expect(
      addTransferTx(db, first.transferId, {
        stepId: 'deposit',
        itemIndex: 1,
        chainId: 8453,
        request: {},
        txHash: `0x${'33'.repeat(32)}`,
        rawTx: '0x02',
        nowMs: 3_000,
      }),
    ).rejects.toMatchObject({ code: 'STORE_LEASE_LOST' });
    expect({ transfers: await count(db, 'transfers'), txs: await count(db, 'transfer_txs') }).toEqual(before);

    // A process whose term ended locally presents no token at all.
    token = null;
    await expect(createTransfer(db, await newTransfer(db, { requestId: `0x${'ee'.repeat(32)}` }))).rejects.toMatchObject({
      code: 'STORE_NOT_LEADER',
    });
    expect(await count(db, 'transfers')).toBe(before.transfers);

    // Guarded transitions are not write-aheads: the transfer can still be closed by whoever tracks it.
    await transitionTransfer(db, first.transferId, 'prepared', 'broadcast', { nowMs: 4_000 });
    expect((await getTransfer(db, first.transferId))?.status).toBe('broadcast');
  });

  it('lets a non-leader record an attempt that signed nothing (no transaction: history, not a write-ahead)', async () => {
    const db = await store('fenced_history');
    db.setFencing(() => null); // not the leader
    await expect(createTransfer(db, await newTransfer(db))).rejects.toMatchObject({ code: 'STORE_NOT_LEADER' });
    const recorded = await createTransfer(db, { ...(await newTransfer(db)), txs: [] });
    expect(recorded.txIds).toEqual([]);
    expect(await count(db, 'transfers')).toBe(1);
    expect(await count(db, 'transfer_txs')).toBe(0);
  });

  it('refuses a write-ahead when no fencing source was set', async () => {
    const db = await store('fenced_unset');
    await expect(createTransfer(db, await newTransfer(db))).rejects.toThrow(/without a fencing source/);
    expect(await count(db, 'transfers')).toBe(0);
  });

  it('creates and closes approval requests only under the held lease; a rejection from the CLI is not fenced', async () => {
    const db = await store('fenced_approvals');
    const a = { name: 'ballast', owner: 'replica-a:1:x' };
    const held = await tryAcquireLease(db.pool, a, 300, null);
    let token: FencingToken | null = { ...a, epoch: held.epoch! };
    db.setFencing(() => token);
    const cycleId = await startCycle(db, { mode: 'daemon', startedAtMs: 1_000 });
    const [planId] = await recordPlannedTransfers(db, cycleId, [
      { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', amountIn: 1_000n, reason: 'arbitrum below min' },
    ]);
    const request = (asset: string) => ({
      asset,
      origin: { chain: 'base', wallet: 'treasury', currency: '0xusdc-base' },
      destination: { chain: 'arbitrum', wallet: 'treasury', currency: '0xusdc-arb' },
      bound: { origin: { chainId: 8453, address: '0xa' }, destination: { chainId: 42161, address: '0xb' } },
      cycleId,
      planId: planId!,
      amountIn: 1_000n,
      amountUsd: '1',
      maxFees: {},
      reason: 'arbitrum below min',
      required: 1,
      createdAtMs: 1_000,
      expiresAtMs: 3_600_000,
    });
    const open = await createApprovalRequest(db, request('USDC'));

    await sleep(400); // a's lease expires; b takes it
    await tryAcquireLease(db.pool, { name: 'ballast', owner: 'replica-b:2:y' }, 10_000, null);
    await expect(createApprovalRequest(db, request('USDT'))).rejects.toMatchObject({ code: 'STORE_LEASE_LOST' });
    await expect(closeRequest(db, open.id, 'not_needed', 'stale', 2_000)).rejects.toMatchObject({ code: 'STORE_LEASE_LOST' });
    token = null;
    await expect(closeRequest(db, open.id, 'expired', 'stale', 2_000)).rejects.toMatchObject({ code: 'STORE_NOT_LEADER' });
    expect(await count(db, 'approval_requests')).toBe(1);
    expect((await getApprovalRequest(db, open.id))?.status).toBe('pending');
    // A human's rejection through the CLI can only stop a transfer: it is not fenced.
    expect(await rejectRequest(db, { requestId: open.id, reason: 'not today', nowMs: 2_500 })).toEqual({ ok: true });
    expect((await getApprovalRequest(db, open.id))?.status).toBe('rejected');
  });
});
