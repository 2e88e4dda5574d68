/**
 * `approval_requests` and `approval_signoffs` (src/store/approvalRequests.ts) on both engines: a request stores
 * its canonical message naming its own id; one open request per asset and route; sign-offs are refused when the
 * request is expired, closed or already signed by the same approver, and the quorum turns it `approved`; reject,
 * expire and `executed` close it, the last only inside the transfer's write-ahead and only once.
 */
import { beforeEach, expect, it } from 'vitest';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import {
  closeRequest,
  countApprovalRequests,
  createApprovalRequest,
  executeRequest,
  getApprovalRequest,
  listApprovalRequests,
  openRequestFor,
  recordSignOff,
  rejectRequest,
  type NewApprovalRequest,
} from '../../../packages/ballast/src/store/approvalRequests.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { recordPlannedTransfers } from '../../../packages/ballast/src/store/plans.ts';
import { createTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { describeEachEngine, expectConstraint } from '../../helpers/storeEngines.ts';
import { newTransfer } from './helpers.ts';

const T0 = 1_767_225_600_000;

async function newRequest(db: StoreDb, over: Partial<NewApprovalRequest> = {}): Promise<NewApprovalRequest> {
  const cycleId = await startCycle(db, { mode: 'once', startedAtMs: T0 });
  const [planId] = await recordPlannedTransfers(db, cycleId, [
    { asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', amountIn: 25_000_000_000n, reason: 'arbitrum below min' },
  ]);
  return {
    cycleId,
    planId: planId!,
    asset: 'USDC',
    origin: { chain: 'base', wallet: 'treasury', currency: '0xusdc-base' },
    destination: { chain: 'arbitrum', wallet: 'treasury', currency: '0xusdc-arb' },
    bound: { origin: { chainId: 8453, address: '0xtreasury-base' }, destination: { chainId: 42161, address: '0xtreasury-arb' } },
    amountIn: 25_000_000_000n,
    amountUsd: '24998.75',
    maxFees: { totalBps: 30, components: { execution: { usd: '10' } } },
    reason: 'arbitrum below min',
    required: 2,
    createdAtMs: T0,
    expiresAtMs: T0 + 3_600_000,
    ...over,
  };
}

describeEachEngine('approval requests store', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  it('records a pending request whose message names its id, and one open request per asset and route', async () => {
    const input = await newRequest(db);
    const request = await createApprovalRequest(db, input);
    expect(request).toMatchObject({ status: 'pending', amountIn: 25_000_000_000n, amountUsd: '24998.75', signOffs: [], transferId: null });
    expect(JSON.parse(request.message)).toMatchObject({ id: request.id, amountIn: '25000000000', maxFees: input.maxFees });
    expect(await openRequestFor(db, input)).toMatchObject({ id: request.id });
    await expectConstraint(createApprovalRequest(db, input), 'unique');
    // Another route is a different request.
    const other = await createApprovalRequest(db, { ...input, destination: { ...input.destination, wallet: 'ops' } });
    expect(other.id).not.toBe(request.id);
    expect((await listApprovalRequests(db)).map((r) => r.id)).toEqual([other.id, request.id]);
  });

  it('counts distinct sign-offs to the quorum; refuses a second one by the same approver and one after expiry', async () => {
    const request = await createApprovalRequest(db, await newRequest(db));
    const sign = (approver: string, nowMs = T0 + 1_000) =>
      recordSignOff(db, { requestId: request.id, approver, signature: `0x${approver}`, required: 2, nowMs });
    expect(await sign('alice')).toEqual({ ok: true, approvers: ['alice'], required: 2, granted: false });
    expect(await sign('alice')).toMatchObject({ ok: false, reason: 'already_signed' });
    expect(await sign('bob', T0 + 3_600_000)).toMatchObject({ ok: false, reason: 'expired' });
    expect((await getApprovalRequest(db, request.id))!.status).toBe('pending');
    expect(await sign('bob')).toEqual({ ok: true, approvers: ['alice', 'bob'], required: 2, granted: true });
    const approved = (await getApprovalRequest(db, request.id))!;
    expect(approved.status).toBe('approved');
    expect(approved.signOffs.map((s) => [s.approver, s.recordedAtMs])).toEqual([
      ['alice', T0 + 1_000],
      ['bob', T0 + 1_000],
    ]);
    expect(await sign('carol')).toMatchObject({ ok: false, reason: 'not_pending' });
    expect(await recordSignOff(db, { requestId: 999, approver: 'x', signature: '0x', required: 1, nowMs: T0 })).toMatchObject({
      ok: false,
      reason: 'missing',
    });
  });

  it('rejects and expires open requests once; a closed request frees its route', async () => {
    const input = await newRequest(db);
    const first = await createApprovalRequest(db, input);
    expect(await rejectRequest(db, { requestId: first.id, reason: 'too large this week', by: 'alice', nowMs: T0 + 5 })).toEqual({
      ok: true,
    });
    expect(await getApprovalRequest(db, first.id)).toMatchObject({
      status: 'rejected',
      closedBy: 'alice',
      closeDetail: 'too large this week',
      closedAtMs: T0 + 5,
    });
    expect(await rejectRequest(db, { requestId: first.id, reason: 'again', nowMs: T0 + 6 })).toMatchObject({
      ok: false,
      reason: 'not_pending',
    });
    const second = await createApprovalRequest(db, input);
    expect(await closeRequest(db, second.id, 'expired', 'no quorum', T0 + 7)).toBe(true);
    expect(await closeRequest(db, second.id, 'not_needed', 'late', T0 + 8)).toBe(false);
    expect(await listApprovalRequests(db)).toEqual([]);
    expect((await listApprovalRequests(db, { all: true })).map((r) => r.status)).toEqual(['expired', 'rejected']);
    const counts = await countApprovalRequests(db);
    expect([counts.get('expired'), counts.get('rejected'), counts.get('pending')]).toEqual([1, 1, undefined]);
  });

  it('closes `executed` inside the write-ahead of the transfer, once: a second use rolls the transfer back', async () => {
    const input = await newRequest(db);
    const request = await createApprovalRequest(db, input);
    for (const approver of ['alice', 'bob']) {
      await recordSignOff(db, { requestId: request.id, approver, signature: '0x', required: 2, nowMs: T0 + 1 });
    }
    const t = await newTransfer(db, { cycleId: input.cycleId });
    const { transferId } = await createTransfer(db, t, (id) => executeRequest(db, request.id, id, T0 + 2));
    expect(await getApprovalRequest(db, request.id)).toMatchObject({
      status: 'executed',
      transferId,
      closeDetail: `transfer ${transferId}`,
    });
    const again = { ...t, requestId: `0x${'ef'.repeat(32)}`, orderId: `0x${'fe'.repeat(32)}` };
    await expect(createTransfer(db, again, (id) => executeRequest(db, request.id, id, T0 + 3))).rejects.toThrow(/cannot be used/);
    const transfers = await db.all<{ n: number }>('SELECT COUNT(*) AS n FROM transfers');
    expect(Number(transfers[0]!.n)).toBe(1);
  });

  it('refuses to execute an expired approval: nothing is written', async () => {
    const input = await newRequest(db);
    const request = await createApprovalRequest(db, input);
    const t = await newTransfer(db, { cycleId: input.cycleId });
    await expect(createTransfer(db, t, (id) => executeRequest(db, request.id, id, input.expiresAtMs))).rejects.toThrow(/expired/);
    expect((await getApprovalRequest(db, request.id))!.status).toBe('pending');
    const transfers = await db.all<{ n: number }>('SELECT COUNT(*) AS n FROM transfers');
    expect(Number(transfers[0]!.n)).toBe(0);
  });
});
