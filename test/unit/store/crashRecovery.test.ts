/**
 * Store support for recovery after a crash: migration 3 rebuilds `cycles` (outcome `aborted`) without losing
 * rows or breaking references; unfinished cycles of a dead run (or of a leader whose term ended) are closed as
 * `aborted`, the row saying which; stalled transfers are flagged once with a history event; a request id the
 * service files our deposit under is adopted; two attempts may carry the same transaction hash.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../packages/ballast/src/store/database.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { sqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import { MIGRATIONS } from '../../../packages/ballast/src/store/migrations.ts';
import { closeAbandonedCycles, finishCycle, getCycle, startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { recordBalances } from '../../../packages/ballast/src/store/balances.ts';
import { StoreTransitionError } from '../../../packages/ballast/src/store/errors.ts';
import {
  adoptRequestId,
  createTransfer,
  getTransfer,
  listRecentTransfers,
  markTransferStalled,
  recordAbsenceProof,
  transitionTransfer,
} from '../../../packages/ballast/src/store/transfers.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';
import { newTransfer, tempDb, type TempDb } from './helpers.ts';

// SQLite only: PostgreSQL changes the CHECK in place (src/store/pg/migrations.ts), there is no rebuild to test.
describe('migration 3 (cycles rebuilt with outcome aborted)', () => {
  let t: TempDb;
  beforeEach(() => {
    t = tempDb();
  });
  afterEach(() => t.cleanup());

  it('keeps every cycle and the rows that reference them, and foreign keys still hold afterwards', async () => {
    const Database = (await import('better-sqlite3')).default;
    const { mkdirSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    mkdirSync(dirname(t.file), { recursive: true });
    const raw = new Database(t.file);
    raw.pragma('foreign_keys = ON');
    migrate(raw, t.file, MIGRATIONS.slice(0, 2));
    const old = sqliteStoreDb(raw, t.file); // the store code on a schema at version 2
    const done = await startCycle(old, { mode: 'once', startedAtMs: 10 });
    await finishCycle(old, done, { outcome: 'ok', finishedAtMs: 20, summary: { planned: 1 } });
    const running = await startCycle(old, { mode: 'daemon', startedAtMs: 30 });
    await recordBalances(old, running, [
      { chain: 'alpha', chainId: 1, asset: 'USDC', wallet: 'w', address: '0x1', currency: '0x2', amount: 5n, readAtMs: 31 },
    ]);
    const transferId = (await createTransfer(old, await newTransfer(old, { cycleId: running }))).transferId;
    expect(() => raw.prepare("UPDATE cycles SET outcome = 'aborted', finished_at_ms = 1 WHERE id = ?").run(running)).toThrow(/CHECK/);
    await old.close();

    const db = t.open(); // openDatabase applies migration 3
    expect(schemaVersion(db.sqlite)).toBe(MIGRATIONS.length);
    expect(await getCycle(db, done)).toMatchObject({ outcome: 'ok', finishedAtMs: 20, summary: { planned: 1 } });
    expect(await getCycle(db, running)).toMatchObject({ outcome: null, finishedAtMs: null });
    expect(await db.all('SELECT cycle_id FROM balances')).toEqual([{ cycle_id: running }]);
    expect((await getTransfer(db, transferId))?.stalledAtMs).toBeNull();
    expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.sqlite.pragma('foreign_key_check')).toEqual([]);
    const orphan =
      "INSERT INTO balances (cycle_id, chain, chain_id, asset, wallet, address, currency, amount, read_at_ms) VALUES (999, 'a', 1, 'U', 'w', '0x', '0x', '1', 1)";
    await expect(db.run(orphan)).rejects.toThrow(/FOREIGN KEY/);
    await db.run("UPDATE cycles SET outcome = 'aborted', finished_at_ms = 40 WHERE id = ?", running);
    expect((await getCycle(db, running))?.outcome).toBe('aborted');
  });
});

describeEachEngine('crash recovery store', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  describe('closeAbandonedCycles', () => {
    it('closes unfinished once/daemon cycles as aborted and leaves plan cycles and finished ones alone', async () => {
      const finished = await startCycle(db, { mode: 'once', startedAtMs: 1 });
      await finishCycle(db, finished, { outcome: 'error', finishedAtMs: 2, error: 'x' });
      const deadOnce = await startCycle(db, { mode: 'once', startedAtMs: 3 });
      const deadDaemon = await startCycle(db, { mode: 'daemon', startedAtMs: 4 });
      const plan = await startCycle(db, { mode: 'plan', startedAtMs: 5 });
      expect(await closeAbandonedCycles(db, 100)).toEqual([deadOnce, deadDaemon]);
      for (const id of [deadOnce, deadDaemon]) {
        expect(await getCycle(db, id)).toMatchObject({ outcome: 'aborted', finishedAtMs: 100 });
        expect((await getCycle(db, id))?.error).toMatch(/ended before this cycle finished/);
      }
      expect(await getCycle(db, finished)).toMatchObject({ outcome: 'error', finishedAtMs: 2 });
      expect(await getCycle(db, plan)).toMatchObject({ outcome: null });
      expect(await closeAbandonedCycles(db, 200)).toEqual([]);
      expect((await getCycle(db, deadOnce))?.finishedAtMs).toBe(100);
    });

    it("with a leader lease says the leader's term ended and the leader that took over closed it, not a crash", async () => {
      const left = await startCycle(db, { mode: 'daemon', startedAtMs: 3 });
      expect(await closeAbandonedCycles(db, 100, 'term_ended')).toEqual([left]);
      const row = await getCycle(db, left);
      expect(row).toMatchObject({ outcome: 'aborted', finishedAtMs: 100 });
      expect(row?.error).toBe(
        "its leader's term ended before this cycle finished (crash, pause, or cut off from the database); closed by the leader that took over, which reconciles its transfers",
      );
      expect(row?.error).not.toMatch(/power loss|next run/);
    });
  });

  describe('stalled transfers and adopted request ids', () => {
    it('flags an in-flight transfer once, with a history event that keeps its status', async () => {
      const { transferId } = await createTransfer(db, await newTransfer(db));
      expect(await markTransferStalled(db, transferId, { nowMs: 5_000, detail: 'prepared for over 60 s' })).toBe(true);
      expect(await markTransferStalled(db, transferId, { nowMs: 6_000, detail: 'again' })).toBe(false);
      const row = (await getTransfer(db, transferId))!;
      expect(row.status).toBe('prepared');
      expect(row.stalledAtMs).toBe(5_000);
      expect(row.events.map((e) => [e.fromStatus, e.toStatus, e.detail])).toEqual([
        [null, 'prepared', 'created'],
        ['prepared', 'prepared', 'stalled: prepared for over 60 s'],
      ]);
    });

    it('keeps the first proof of absence as data (block, time) with a history event, and refuses a second one', async () => {
      const { transferId } = await createTransfer(db, await newTransfer(db));
      expect((await getTransfer(db, transferId))?.absenceProof).toBeNull();
      await recordAbsenceProof(db, transferId, {
        block: 2n ** 64n + 7n,
        nowMs: 5_000,
        detail: 'no deposit up to block 18446744073709551623',
      });
      const row = (await getTransfer(db, transferId))!;
      expect(row.absenceProof).toEqual({ block: 2n ** 64n + 7n, atMs: 5_000 });
      expect(row.status).toBe('prepared');
      expect(row.events.at(-1)).toMatchObject({
        fromStatus: 'prepared',
        toStatus: 'prepared',
        detail: 'no deposit up to block 18446744073709551623',
      });
      await expect(recordAbsenceProof(db, transferId, { block: 9n, nowMs: 6_000, detail: 'again' })).rejects.toThrow(
        /already has a proof of absence/,
      );
      expect((await getTransfer(db, transferId))?.absenceProof).toEqual({ block: 2n ** 64n + 7n, atMs: 5_000 });
    });

    it('refuses to flag a final transfer', async () => {
      const { transferId } = await createTransfer(db, await newTransfer(db));
      await transitionTransfer(db, transferId, 'prepared', 'origin_failed', { nowMs: 3_000, error: 'x' });
      await expect(markTransferStalled(db, transferId, { nowMs: 5_000, detail: 'x' })).rejects.toThrow(StoreTransitionError);
      expect((await getTransfer(db, transferId))?.stalledAtMs).toBeNull();
    });

    it('adopts the request id of a deposited transfer and records it; refuses for other statuses', async () => {
      const { transferId } = await createTransfer(db, await newTransfer(db));
      await expect(adoptRequestId(db, transferId, '0xother', { nowMs: 3_000, detail: 'x' })).rejects.toThrow(StoreTransitionError);
      await transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 3_000 });
      await transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: 3_000 });
      await adoptRequestId(db, transferId, '0xother', { nowMs: 4_000, detail: 'filed under 0xother' });
      const row = (await getTransfer(db, transferId))!;
      expect(row.requestId).toBe('0xother');
      expect(row.status).toBe('deposited');
      expect(row.events.at(-1)).toMatchObject({ fromStatus: 'deposited', toStatus: 'deposited', detail: 'filed under 0xother' });
    });

    it('accepts the same transaction hash in two attempts and lists both', async () => {
      const first = (await createTransfer(db, await newTransfer(db))).transferId;
      await transitionTransfer(db, first, 'prepared', 'origin_failed', { nowMs: 3_000, error: 'deadline' });
      const second = (await createTransfer(db, await newTransfer(db, { requestId: `0x${'ef'.repeat(32)}` }))).transferId; // same signed approve
      const rows = await listRecentTransfers(db, 10);
      expect(rows.map((r) => r.id)).toEqual([second, first]);
      expect(rows.map((r) => r.txs[0]!.txHash)).toEqual([`0x${'11'.repeat(32)}`, `0x${'11'.repeat(32)}`]);
    });
  });
});
