/**
 * The withdrawals table (migration 5) on a real store, SQLite and PostgreSQL: guarded transitions written with
 * their history events, the write-ahead fields each state requires, and what completing a withdrawal does to its
 * transfer (a deposited transfer becomes `withdrawn` and leaves the in-flight set; a failure is resolved and its
 * route pause ends); a job that paid less than the deposit leaves the remainder open (migration 9,
 * `received_amount`) and the transfer as it is; the fees of mined ready transactions add up (migration 18,
 * `gas_paid`), unknown once one could not be read.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { pausedRoutes } from '../../../packages/ballast/src/cycle/pausedRoutes.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { MIGRATIONS } from '../../../packages/ballast/src/store/migrations.ts';
import { listUnresolvedFailures } from '../../../packages/ballast/src/store/failures.ts';
import { createTransfer, getTransfer, listInFlightTransfers, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import {
  completeWithdrawal,
  createRefusedWithdrawal,
  createWithdrawal,
  dropReadyTx,
  failWithdrawal,
  getWithdrawal,
  listOpenRemainders,
  listOpenWithdrawals,
  markAttested,
  recordJob,
  recordPartialReturn,
  recordReadyTx,
  recordSigned,
  reopenWithdrawal,
  restartWithdrawal,
  setReadyTxStatus,
  transferIdOfRequest,
  type NewWithdrawal,
} from '../../../packages/ballast/src/store/withdrawals.ts';
import { describeEachEngine, expectConstraint, tableColumns } from '../../helpers/storeEngines.ts';
import { newTransfer } from '../store/helpers.ts';

describeEachEngine('withdrawals table', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  async function deposited(status: 'deposited' | 'failure' = 'deposited', requestId = `0x${'ab'.repeat(32)}`): Promise<number> {
    const { transferId } = await createTransfer(db, await newTransfer(db, { requestId }));
    await transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 2100 });
    await transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: 2200 });
    if (status === 'failure') await transitionTransfer(db, transferId, 'deposited', 'failure', { nowMs: 2300, relayStatus: 'failure' });
    return transferId;
  }

  async function fields(transferId: number): Promise<NewWithdrawal> {
    const t = (await getTransfer(db, transferId))!;
    return {
      transferId,
      requestId: t.requestId!,
      chain: 'base',
      chainId: 8453,
      chainSlug: 'base',
      wallet: 'treasury',
      owner: t.user,
      recipient: t.user,
      currency: t.originCurrency,
      amount: t.amountIn,
      depositTx: t.txs.at(-1)!.txHash,
      nowMs: 3000,
    };
  }

  /** Walks a new withdrawal to `processing` with job `job-1`. */
  async function toProcessing(transferId: number): Promise<number> {
    const id = await createWithdrawal(db, await fields(transferId));
    await markAttested(db, id, 3100);
    await recordSigned(db, id, { nonce: '0x01', preparedAmount: 100_000_000n, additionalData: null, signature: '0xsig', nowMs: 3200 });
    await recordJob(db, id, { jobId: 'job-1', jobStatus: 'processing', adopted: false, nowMs: 3300 });
    return id;
  }

  describe('withdrawals store', () => {
    it('is migration 5, after the spending-limit table', async () => {
      expect(MIGRATIONS.map((m) => m.version).slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
      expect(MIGRATIONS[4]!.name).toMatch(/withdraw/);
      const columns = await tableColumns(db, 'transfers');
      // The rebuilt transfers table keeps every column of migrations 1-3.
      expect(columns).toEqual(
        expect.arrayContaining(['resolved_at_ms', 'resolution', 'stalled_at_ms', 'absence_block', 'absence_at_ms', 'out_tx_hashes_json']),
      );
      expect(columns).toHaveLength(33); // 29, plus the four refund follow-up columns of migration 12
    });

    it('walks attesting → attested → executing → processing → sending → executed and makes the transfer withdrawn', async () => {
      const transferId = await deposited();
      expect(await transferIdOfRequest(db, `0x${'ab'.repeat(32)}`)).toBe(transferId);
      const id = await toProcessing(transferId);
      expect(await getWithdrawal(db, id)).toMatchObject({
        state: 'processing',
        attempts: 1,
        nonce: '0x01',
        preparedAmount: 100_000_000n,
        jobId: 'job-1',
      });
      await recordReadyTx(db, id, { tx: { transaction: { chainId: 8453 } }, txHash: '0xtx', rawTx: '0x02f8', nowMs: 3400 });
      await setReadyTxStatus(db, id, 'sent', 3500);
      await setReadyTxStatus(db, id, 'confirmed', 3600);
      await setReadyTxStatus(db, id, 'confirmed', 3601); // a receipt recorded again after a restart
      expect((await listOpenWithdrawals(db)).map((w) => w.id)).toEqual([id]);
      expect(await completeWithdrawal(db, id, { detail: 'job job-1, transaction 0xtx', readyTxFee: 21_000n, nowMs: 3700 })).toBe(
        'withdrawn',
      );
      const w = (await getWithdrawal(db, id))!;
      expect(w).toMatchObject({ state: 'executed', finishedAtMs: 3700, txStatus: 'confirmed', gasPaid: 21_000n });
      expect(await listOpenWithdrawals(db)).toEqual([]);
      const t = (await getTransfer(db, transferId))!;
      expect(t.status).toBe('withdrawn');
      expect(t.resolution).toBe('withdrawn: job job-1, transaction 0xtx');
      expect(await listInFlightTransfers(db)).toEqual([]);
      const details = t.events.map((e) => e.detail ?? '');
      expect(details.filter((d) => d.startsWith(`withdrawal ${id}:`))).toHaveLength(6); // created, attested, signed, job, ready tx, withdrawn
      expect(t.events.at(-1)).toMatchObject({ fromStatus: 'deposited', toStatus: 'withdrawn' });
    });

    it('resolves a failure as withdrawn, which ends its route pause', async () => {
      const transferId = await deposited('failure');
      expect(pausedRoutes(await listUnresolvedFailures(db))).toHaveLength(1);
      const id = await toProcessing(transferId);
      expect(await completeWithdrawal(db, id, { detail: 'job job-1 executed', nowMs: 4000 })).toBe('failure_resolved');
      const t = (await getTransfer(db, transferId))!;
      expect(t).toMatchObject({ status: 'failure', resolvedAtMs: 4000, resolution: 'withdrawn: job job-1 executed' });
      expect(pausedRoutes(await listUnresolvedFailures(db))).toEqual([]);
    });

    it('guards every transition and restarts, fails and reopens with the fields cleared', async () => {
      const transferId = await deposited();
      const id = await toProcessing(transferId);
      await expect(markAttested(db, id, 5000)).rejects.toThrow(/is processing, not attesting/);
      await expect(
        recordSigned(db, id, { nonce: '0x2', preparedAmount: 1n, additionalData: null, signature: '0x', nowMs: 5000 }),
      ).rejects.toThrow(/STORE|not attested/);
      await restartWithdrawal(db, id, { from: ['processing'], reason: 'job job-1 expired', nowMs: 5100 });
      expect(await getWithdrawal(db, id)).toMatchObject({
        state: 'attested',
        attempts: 1,
        jobId: null,
        nonce: null,
        signature: null,
        reason: 'job job-1 expired',
      });
      await recordSigned(db, id, {
        nonce: '0x02',
        preparedAmount: 100_000_000n,
        additionalData: { k: 1 },
        signature: '0xsig2',
        nowMs: 5200,
      });
      expect(await getWithdrawal(db, id)).toMatchObject({ state: 'executing', attempts: 2, additionalData: { k: 1 } });
      await recordJob(db, id, { jobId: 'job-2', jobStatus: 'processing', adopted: true, nowMs: 5300 });
      await recordReadyTx(db, id, { tx: {}, txHash: '0xt2', rawTx: '0x02', nowMs: 5400 });
      await dropReadyTx(db, id, { why: 'ready transaction 0xt2 reverted', revertedTx: '0xt2', nowMs: 5500 });
      expect(await getWithdrawal(db, id)).toMatchObject({
        state: 'processing',
        txHash: null,
        rawTx: null,
        jobId: 'job-2',
        revertedTx: '0xt2',
      });
      await failWithdrawal(db, id, { reason: 'WITHDRAWAL_GAVE_UP: enough', nowMs: 5600 });
      expect(await getWithdrawal(db, id)).toMatchObject({ state: 'failed', finishedAtMs: 5600 });
      await expect(failWithdrawal(db, id, { reason: 'again', nowMs: 5700 })).rejects.toThrow(/is failed/);
      await expect(completeWithdrawal(db, id, { detail: 'x', nowMs: 5700 })).rejects.toThrow(/is failed/);
      expect((await getTransfer(db, transferId))!.status).toBe('deposited'); // nothing leaked into the transfer
      await reopenWithdrawal(db, id, 5800);
      expect(await getWithdrawal(db, id)).toMatchObject({
        state: 'attesting',
        attempts: 0,
        finishedAtMs: null,
        jobId: null,
        revertedTx: null,
      });
    });

    it('keeps one withdrawal per transfer, one holder per job, and the write-ahead fields each state needs', async () => {
      const a = await deposited('deposited', '0xaa');
      const b = await deposited('deposited', '0xbb');
      await toProcessing(a);
      await expectConstraint(createWithdrawal(db, await fields(a)), 'unique');
      const idB = await createWithdrawal(db, await fields(b));
      await markAttested(db, idB, 3100);
      await expectConstraint(db.run("UPDATE withdrawals SET state = 'executing' WHERE id = ?", idB), 'check');
      await recordSigned(db, idB, { nonce: '0x01', preparedAmount: 1n, additionalData: null, signature: '0xs', nowMs: 3200 });
      await expectConstraint(recordJob(db, idB, { jobId: 'job-1', jobStatus: 'processing', adopted: false, nowMs: 3300 }), 'unique');
      expect((await getWithdrawal(db, idB))!.state).toBe('executing');
    });

    it('records a short job as received with the remainder open, and withdraws the transfer only when all is back', async () => {
      expect(await tableColumns(db, 'withdrawals')).toContain('received_amount');
      const transferId = await deposited();
      const id = await createWithdrawal(db, await fields(transferId));
      expect(await getWithdrawal(db, id)).toMatchObject({ receivedAmount: 0n, gasPaid: 0n });
      await markAttested(db, id, 3100);
      await recordSigned(db, id, { nonce: '0x01', preparedAmount: 70_000_000n, additionalData: null, signature: '0xs', nowMs: 3200 });
      await recordJob(db, id, { jobId: 'job-1', jobStatus: 'processing', adopted: false, nowMs: 3300 });
      await expect(completeWithdrawal(db, id, { detail: 'job job-1 executed', nowMs: 3400 })).rejects.toThrow(
        /only 70000000 of 100000000 is back, 30000000 still open/,
      );
      expect(await getWithdrawal(db, id)).toMatchObject({ state: 'processing', receivedAmount: 0n });
      expect(await recordPartialReturn(db, id, { detail: 'job job-1 executed', readyTxFee: 7n, nowMs: 3500 })).toEqual({
        received: 70_000_000n,
        remainder: 30_000_000n,
      });
      expect(await getWithdrawal(db, id)).toMatchObject({
        state: 'attested',
        receivedAmount: 70_000_000n,
        attempts: 0,
        jobId: null,
        preparedAmount: null,
        nonce: null,
        gasPaid: 7n,
      });
      expect((await listOpenRemainders(db)).map((w) => w.id)).toEqual([id]);
      let t = (await getTransfer(db, transferId))!;
      expect(t.status).toBe('deposited');
      expect(t.events.at(-1)!.detail).toContain('30000000 still open in the hub');
      // A restart keeps what came back; the last 30,000,000 closes it.
      await recordSigned(db, id, { nonce: '0x02', preparedAmount: 30_000_000n, additionalData: null, signature: '0xs', nowMs: 3600 });
      await restartWithdrawal(db, id, { from: ['executing'], reason: 'stale nonce', nowMs: 3700 });
      expect((await getWithdrawal(db, id))!.receivedAmount).toBe(70_000_000n);
      await recordSigned(db, id, { nonce: '0x03', preparedAmount: 30_000_000n, additionalData: null, signature: '0xs', nowMs: 3800 });
      await recordJob(db, id, { jobId: 'job-2', jobStatus: 'processing', adopted: false, nowMs: 3900 });
      await expect(recordPartialReturn(db, id, { detail: 'job job-2 executed', nowMs: 4000 })).rejects.toThrow(/closes the deposit/);
      expect(await completeWithdrawal(db, id, { detail: 'job job-2 executed', readyTxFee: null, nowMs: 4100 })).toBe('withdrawn');
      // The second transaction's fee could not be read: the total is no longer known.
      expect(await getWithdrawal(db, id)).toMatchObject({ state: 'executed', receivedAmount: 100_000_000n, gasPaid: null });
      expect(await listOpenRemainders(db)).toEqual([]);
      t = (await getTransfer(db, transferId))!;
      expect(t.status).toBe('withdrawn');
    });

    it('records a refusal as a failed withdrawal with its reason, once', async () => {
      const transferId = await deposited('failure');
      const id = await createRefusedWithdrawal(db, { ...(await fields(transferId)), reason: 'WITHDRAWAL_OWNER_UNSUPPORTED: bitcoin' });
      expect(await getWithdrawal(db, id)).toMatchObject({ state: 'failed', attempts: 0, reason: 'WITHDRAWAL_OWNER_UNSUPPORTED: bitcoin' });
      expect((await getTransfer(db, transferId))!.events.at(-1)!.detail).toBe(
        `withdrawal ${id} refused: WITHDRAWAL_OWNER_UNSUPPORTED: bitcoin`,
      );
      expect(pausedRoutes(await listUnresolvedFailures(db))).toHaveLength(1); // still paused: nothing was recovered
    });
  });
});
