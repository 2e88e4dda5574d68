/**
 * Store support for recovery after a crash: migration 3 rebuilds `cycles` (outcome `aborted`) without losing
 * rows or breaking references; unfinished cycles of a dead run are closed as `aborted`; stalled transfers are
 * flagged once with a history event; a request id the service files our deposit under is adopted; two attempts
 * may carry the same transaction hash.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { migrate, schemaVersion } from '../../../src/store/database.ts';
import { MIGRATIONS } from '../../../src/store/migrations.ts';
import { closeAbandonedCycles, finishCycle, getCycle, startCycle } from '../../../src/store/cycles.ts';
import { recordBalances } from '../../../src/store/balances.ts';
import { StoreTransitionError } from '../../../src/store/errors.ts';
import {
  adoptRequestId,
  createTransfer,
  getTransfer,
  listRecentTransfers,
  markTransferStalled,
  recordAbsenceProof,
  transitionTransfer,
} from '../../../src/store/transfers.ts';
import { newTransfer, tempDb, type TempDb } from './helpers.ts';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
});
afterEach(() => t.cleanup());

describe('migration 3 (cycles rebuilt with outcome aborted)', () => {
  it('keeps every cycle and the rows that reference them, and foreign keys still hold afterwards', async () => {
    const Database = (await import('better-sqlite3')).default;
    const { mkdirSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    mkdirSync(dirname(t.file), { recursive: true });
    const old = new Database(t.file);
    old.pragma('foreign_keys = ON');
    migrate(old, t.file, MIGRATIONS.slice(0, 2));
    const done = startCycle(old, { mode: 'once', startedAtMs: 10 });
    finishCycle(old, done, { outcome: 'ok', finishedAtMs: 20, summary: { planned: 1 } });
    const running = startCycle(old, { mode: 'daemon', startedAtMs: 30 });
    recordBalances(old, running, [
      { chain: 'alpha', chainId: 1, asset: 'USDC', wallet: 'w', address: '0x1', currency: '0x2', amount: 5n, readAtMs: 31 },
    ]);
    const transferId = createTransfer(old, newTransfer(old, { cycleId: running })).transferId;
    expect(() => old.prepare("UPDATE cycles SET outcome = 'aborted', finished_at_ms = 1 WHERE id = ?").run(running)).toThrow(/CHECK/);
    old.close();

    const db = t.open(); // openDatabase applies migration 3
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(getCycle(db, done)).toMatchObject({ outcome: 'ok', finishedAtMs: 20, summary: { planned: 1 } });
    expect(getCycle(db, running)).toMatchObject({ outcome: null, finishedAtMs: null });
    expect(db.prepare('SELECT cycle_id FROM balances').all()).toEqual([{ cycle_id: running }]);
    expect(getTransfer(db, transferId)?.stalledAtMs).toBeNull();
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    const orphan = "INSERT INTO balances (cycle_id, chain, chain_id, asset, wallet, address, currency, amount, read_at_ms) VALUES (999, 'a', 1, 'U', 'w', '0x', '0x', '1', 1)";
    expect(() => db.prepare(orphan).run()).toThrow(/FOREIGN KEY/);
    db.prepare("UPDATE cycles SET outcome = 'aborted', finished_at_ms = 40 WHERE id = ?").run(running);
    expect(getCycle(db, running)?.outcome).toBe('aborted');
  });
});

describe('closeAbandonedCycles', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = t.open();
  });

  it('closes unfinished once/daemon cycles as aborted and leaves plan cycles and finished ones alone', () => {
    const finished = startCycle(db, { mode: 'once', startedAtMs: 1 });
    finishCycle(db, finished, { outcome: 'error', finishedAtMs: 2, error: 'x' });
    const deadOnce = startCycle(db, { mode: 'once', startedAtMs: 3 });
    const deadDaemon = startCycle(db, { mode: 'daemon', startedAtMs: 4 });
    const plan = startCycle(db, { mode: 'plan', startedAtMs: 5 });
    expect(closeAbandonedCycles(db, 100)).toEqual([deadOnce, deadDaemon]);
    for (const id of [deadOnce, deadDaemon]) {
      expect(getCycle(db, id)).toMatchObject({ outcome: 'aborted', finishedAtMs: 100 });
      expect(getCycle(db, id)?.error).toMatch(/ended before this cycle finished/);
    }
    expect(getCycle(db, finished)).toMatchObject({ outcome: 'error', finishedAtMs: 2 });
    expect(getCycle(db, plan)).toMatchObject({ outcome: null });
    expect(closeAbandonedCycles(db, 200)).toEqual([]);
    expect(getCycle(db, deadOnce)?.finishedAtMs).toBe(100);
  });
});

describe('stalled transfers and adopted request ids', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = t.open();
  });

  it('flags an in-flight transfer once, with a history event that keeps its status', () => {
    const { transferId } = createTransfer(db, newTransfer(db));
    expect(markTransferStalled(db, transferId, { nowMs: 5_000, detail: 'prepared for over 60 s' })).toBe(true);
    expect(markTransferStalled(db, transferId, { nowMs: 6_000, detail: 'again' })).toBe(false);
    const row = getTransfer(db, transferId)!;
    expect(row.status).toBe('prepared');
    expect(row.stalledAtMs).toBe(5_000);
    expect(row.events.map((e) => [e.fromStatus, e.toStatus, e.detail])).toEqual([
      [null, 'prepared', 'created'],
      ['prepared', 'prepared', 'stalled: prepared for over 60 s'],
    ]);
  });

  it('keeps the first proof of absence as data (block, time) with a history event, and refuses a second one', () => {
    const { transferId } = createTransfer(db, newTransfer(db));
    expect(getTransfer(db, transferId)?.absenceProof).toBeNull();
    recordAbsenceProof(db, transferId, { block: 2n ** 64n + 7n, nowMs: 5_000, detail: 'no deposit up to block 18446744073709551623' });
    const row = getTransfer(db, transferId)!;
    expect(row.absenceProof).toEqual({ block: 2n ** 64n + 7n, atMs: 5_000 });
    expect(row.status).toBe('prepared');
    expect(row.events.at(-1)).toMatchObject({ fromStatus: 'prepared', toStatus: 'prepared', detail: 'no deposit up to block 18446744073709551623' });
    expect(() => recordAbsenceProof(db, transferId, { block: 9n, nowMs: 6_000, detail: 'again' })).toThrow(/already has a proof of absence/);
    expect(getTransfer(db, transferId)?.absenceProof).toEqual({ block: 2n ** 64n + 7n, atMs: 5_000 });
  });

  it('refuses to flag a final transfer', () => {
    const { transferId } = createTransfer(db, newTransfer(db));
    transitionTransfer(db, transferId, 'prepared', 'origin_failed', { nowMs: 3_000, error: 'x' });
    expect(() => markTransferStalled(db, transferId, { nowMs: 5_000, detail: 'x' })).toThrow(StoreTransitionError);
    expect(getTransfer(db, transferId)?.stalledAtMs).toBeNull();
  });

  it('adopts the request id of a deposited transfer and records it; refuses for other statuses', () => {
    const { transferId } = createTransfer(db, newTransfer(db));
    expect(() => adoptRequestId(db, transferId, '0xother', { nowMs: 3_000, detail: 'x' })).toThrow(StoreTransitionError);
    transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 3_000 });
    transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: 3_000 });
    adoptRequestId(db, transferId, '0xother', { nowMs: 4_000, detail: 'filed under 0xother' });
    const row = getTransfer(db, transferId)!;
    expect(row.requestId).toBe('0xother');
    expect(row.status).toBe('deposited');
    expect(row.events.at(-1)).toMatchObject({ fromStatus: 'deposited', toStatus: 'deposited', detail: 'filed under 0xother' });
  });

  it('accepts the same transaction hash in two attempts and lists both', () => {
    const first = createTransfer(db, newTransfer(db)).transferId;
    transitionTransfer(db, first, 'prepared', 'origin_failed', { nowMs: 3_000, error: 'deadline' });
    const second = createTransfer(db, newTransfer(db, { requestId: `0x${'ef'.repeat(32)}` })).transferId; // same signed approve
    const rows = listRecentTransfers(db, 10);
    expect(rows.map((r) => r.id)).toEqual([second, first]);
    expect(rows.map((r) => r.txs[0]!.txHash)).toEqual([`0x${'11'.repeat(32)}`, `0x${'11'.repeat(32)}`]);
  });
});
