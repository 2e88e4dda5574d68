/**
 * The withdrawals table (migration 5) on a real SQLite file: guarded transitions written with their history
 * events, the write-ahead fields each state requires, and what completing a withdrawal does to its transfer (a
 * deposited transfer becomes `withdrawn` and leaves the in-flight set; a failure is resolved and its route
 * pause ends).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { pausedRoutes } from '../../../src/cycle/pausedRoutes.ts';
import { MIGRATIONS } from '../../../src/store/migrations.ts';
import { listUnresolvedFailures } from '../../../src/store/failures.ts';
import { createTransfer, getTransfer, listInFlightTransfers, transitionTransfer } from '../../../src/store/transfers.ts';
import {
  completeWithdrawal,
  createRefusedWithdrawal,
  createWithdrawal,
  dropReadyTx,
  failWithdrawal,
  getWithdrawal,
  listOpenWithdrawals,
  markAttested,
  recordJob,
  recordReadyTx,
  recordSigned,
  reopenWithdrawal,
  restartWithdrawal,
  setReadyTxStatus,
  transferIdOfRequest,
  type NewWithdrawal,
} from '../../../src/store/withdrawals.ts';
import { newTransfer, tempDb, type TempDb } from '../store/helpers.ts';

let tmp: TempDb;
let db: Database.Database;
beforeEach(() => {
  tmp = tempDb();
  db = tmp.open();
});
afterEach(() => tmp.cleanup());

function deposited(status: 'deposited' | 'failure' = 'deposited', requestId = `0x${'ab'.repeat(32)}`): number {
  const { transferId } = createTransfer(db, newTransfer(db, { requestId }));
  transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 2100 });
  transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: 2200 });
  if (status === 'failure') transitionTransfer(db, transferId, 'deposited', 'failure', { nowMs: 2300, relayStatus: 'failure' });
  return transferId;
}

function fields(transferId: number): NewWithdrawal {
  const t = getTransfer(db, transferId)!;
  return {
    transferId, requestId: t.requestId!, chain: 'base', chainId: 8453, chainSlug: 'base', wallet: 'treasury', owner: t.user,
    recipient: t.user, currency: t.originCurrency, amount: t.amountIn, depositTx: t.txs.at(-1)!.txHash, nowMs: 3000,
  };
}

/** Walks a new withdrawal to `processing` with job `job-1`. */
function toProcessing(transferId: number): number {
  const id = createWithdrawal(db, fields(transferId));
  markAttested(db, id, 3100);
  recordSigned(db, id, { nonce: '0x01', preparedAmount: 100_000_000n, additionalData: null, signature: '0xsig', nowMs: 3200 });
  recordJob(db, id, { jobId: 'job-1', jobStatus: 'processing', adopted: false, nowMs: 3300 });
  return id;
}

describe('withdrawals store', () => {
  it('is migration 5, after the spending-limit table', () => {
    expect(MIGRATIONS.map((m) => m.version).slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(MIGRATIONS[4]!.name).toMatch(/withdraw/);
    const columns = (db.prepare("SELECT name FROM pragma_table_info('transfers')").all() as { name: string }[]).map((c) => c.name);
    // The rebuilt transfers table keeps every column of migrations 1-3.
    expect(columns).toEqual(expect.arrayContaining(['resolved_at_ms', 'resolution', 'stalled_at_ms', 'absence_block', 'absence_at_ms', 'out_tx_hashes_json']));
    expect(columns).toHaveLength(29);
  });

  it('walks attesting → attested → executing → processing → sending → executed and makes the transfer withdrawn', () => {
    const transferId = deposited();
    expect(transferIdOfRequest(db, `0x${'ab'.repeat(32)}`)).toBe(transferId);
    const id = toProcessing(transferId);
    expect(getWithdrawal(db, id)).toMatchObject({ state: 'processing', attempts: 1, nonce: '0x01', preparedAmount: 100_000_000n, jobId: 'job-1' });
    recordReadyTx(db, id, { tx: { transaction: { chainId: 8453 } }, txHash: '0xtx', rawTx: '0x02f8', nowMs: 3400 });
    setReadyTxStatus(db, id, 'sent', 3500);
    setReadyTxStatus(db, id, 'confirmed', 3600);
    setReadyTxStatus(db, id, 'confirmed', 3601); // a receipt recorded again after a restart
    expect(listOpenWithdrawals(db).map((w) => w.id)).toEqual([id]);
    expect(completeWithdrawal(db, id, { detail: 'job job-1, transaction 0xtx', nowMs: 3700 })).toBe('withdrawn');
    const w = getWithdrawal(db, id)!;
    expect(w).toMatchObject({ state: 'executed', finishedAtMs: 3700, txStatus: 'confirmed' });
    expect(listOpenWithdrawals(db)).toEqual([]);
    const t = getTransfer(db, transferId)!;
    expect(t.status).toBe('withdrawn');
    expect(t.resolution).toBe('withdrawn: job job-1, transaction 0xtx');
    expect(listInFlightTransfers(db)).toEqual([]);
    const details = t.events.map((e) => e.detail ?? '');
    expect(details.filter((d) => d.startsWith(`withdrawal ${id}:`))).toHaveLength(6); // created, attested, signed, job, ready tx, withdrawn
    expect(t.events.at(-1)).toMatchObject({ fromStatus: 'deposited', toStatus: 'withdrawn' });
  });

  it('resolves a failure as withdrawn, which ends its route pause', () => {
    const transferId = deposited('failure');
    expect(pausedRoutes(listUnresolvedFailures(db))).toHaveLength(1);
    const id = toProcessing(transferId);
    expect(completeWithdrawal(db, id, { detail: 'job job-1 executed', nowMs: 4000 })).toBe('failure_resolved');
    const t = getTransfer(db, transferId)!;
    expect(t).toMatchObject({ status: 'failure', resolvedAtMs: 4000, resolution: 'withdrawn: job job-1 executed' });
    expect(pausedRoutes(listUnresolvedFailures(db))).toEqual([]);
  });

  it('guards every transition and restarts, fails and reopens with the fields cleared', () => {
    const transferId = deposited();
    const id = toProcessing(transferId);
    expect(() => markAttested(db, id, 5000)).toThrow(/is processing, not attesting/);
    expect(() => recordSigned(db, id, { nonce: '0x2', preparedAmount: 1n, additionalData: null, signature: '0x', nowMs: 5000 })).toThrow(/STORE|not attested/);
    restartWithdrawal(db, id, { from: ['processing'], reason: 'job job-1 expired', nowMs: 5100 });
    expect(getWithdrawal(db, id)).toMatchObject({ state: 'attested', attempts: 1, jobId: null, nonce: null, signature: null, reason: 'job job-1 expired' });
    recordSigned(db, id, { nonce: '0x02', preparedAmount: 100_000_000n, additionalData: { k: 1 }, signature: '0xsig2', nowMs: 5200 });
    expect(getWithdrawal(db, id)).toMatchObject({ state: 'executing', attempts: 2, additionalData: { k: 1 } });
    recordJob(db, id, { jobId: 'job-2', jobStatus: 'processing', adopted: true, nowMs: 5300 });
    recordReadyTx(db, id, { tx: {}, txHash: '0xt2', rawTx: '0x02', nowMs: 5400 });
    dropReadyTx(db, id, { why: 'ready transaction 0xt2 reverted', revertedTx: '0xt2', nowMs: 5500 });
    expect(getWithdrawal(db, id)).toMatchObject({ state: 'processing', txHash: null, rawTx: null, jobId: 'job-2', revertedTx: '0xt2' });
    failWithdrawal(db, id, { reason: 'WITHDRAWAL_GAVE_UP: enough', nowMs: 5600 });
    expect(getWithdrawal(db, id)).toMatchObject({ state: 'failed', finishedAtMs: 5600 });
    expect(() => failWithdrawal(db, id, { reason: 'again', nowMs: 5700 })).toThrow(/is failed/);
    expect(() => completeWithdrawal(db, id, { detail: 'x', nowMs: 5700 })).toThrow(/is failed/);
    expect(getTransfer(db, transferId)!.status).toBe('deposited'); // nothing leaked into the transfer
    reopenWithdrawal(db, id, 5800);
    expect(getWithdrawal(db, id)).toMatchObject({ state: 'attesting', attempts: 0, finishedAtMs: null, jobId: null, revertedTx: null });
  });

  it('keeps one withdrawal per transfer, one holder per job, and the write-ahead fields each state needs', () => {
    const a = deposited('deposited', '0xaa');
    const b = deposited('deposited', '0xbb');
    toProcessing(a);
    expect(() => createWithdrawal(db, fields(a))).toThrow(/UNIQUE/);
    const idB = createWithdrawal(db, fields(b));
    markAttested(db, idB, 3100);
    expect(() => db.prepare("UPDATE withdrawals SET state = 'executing' WHERE id = ?").run(idB)).toThrow(/CHECK/);
    recordSigned(db, idB, { nonce: '0x01', preparedAmount: 1n, additionalData: null, signature: '0xs', nowMs: 3200 });
    expect(() => recordJob(db, idB, { jobId: 'job-1', jobStatus: 'processing', adopted: false, nowMs: 3300 })).toThrow(/UNIQUE/);
    expect(getWithdrawal(db, idB)!.state).toBe('executing');
  });

  it('records a refusal as a failed withdrawal with its reason, once', () => {
    const transferId = deposited('failure');
    const id = createRefusedWithdrawal(db, { ...fields(transferId), reason: 'WITHDRAWAL_OWNER_UNSUPPORTED: bitcoin' });
    expect(getWithdrawal(db, id)).toMatchObject({ state: 'failed', attempts: 0, reason: 'WITHDRAWAL_OWNER_UNSUPPORTED: bitcoin' });
    expect(getTransfer(db, transferId)!.events.at(-1)!.detail).toBe(`withdrawal ${id} refused: WITHDRAWAL_OWNER_UNSUPPORTED: bitcoin`);
    expect(pausedRoutes(listUnresolvedFailures(db))).toHaveLength(1); // still paused: nothing was recovered
  });
});
