/**
 * Store setup shared by the cycle tests that work on a bare SQLite store rather than a whole pipeline world: a
 * fresh store file per test, a cycle with one planned transfer, and a transfer seeded up to `deposited`.
 */
import { afterEach, beforeEach } from 'vitest';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { recordPlannedTransfers, type PlannedTransferRecord } from '../../../packages/ballast/src/store/plans.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import type { SqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import {
  createTransfer,
  markTxConfirmed,
  markTxSent,
  transitionTransfer,
  type NewTransfer,
} from '../../../packages/ballast/src/store/transfers.ts';
import { tempDb, type TempDb } from '../store/helpers.ts';

/** The store of the running test (test/unit/store/helpers.ts {@link tempDb}), read through getters. */
export interface TestStore {
  /** The open store of the running test. */
  readonly db: SqliteStoreDb;
  /** Its temp directory (removed after the test). */
  readonly dir: string;
}

/**
 * Opens a fresh SQLite store file before each test of the calling file (or `describe` block) and deletes it
 * after. Read `db` and `dir` inside tests and hooks, not at collection time.
 *
 * @throws Error when `db` or `dir` is read outside a test
 */
export function useTestStore(): TestStore {
  let tmp: TempDb | undefined;
  let db: SqliteStoreDb | undefined;
  beforeEach(() => {
    tmp = tempDb();
    db = tmp.open();
  });
  afterEach(() => {
    tmp?.cleanup();
    tmp = undefined;
    db = undefined;
  });
  return {
    get db() {
      if (!db) throw new Error('the test store is open only while a test runs');
      return db;
    },
    get dir() {
      if (!tmp) throw new Error('the test store is open only while a test runs');
      return tmp.dir;
    },
  };
}

/**
 * Starts a cycle (mode `once`) at `startedAtMs` and records `plan` as its one planned transfer.
 *
 * @returns the cycle id and the plan row id
 */
export async function seedPlan(
  db: StoreDb,
  startedAtMs: number,
  plan: PlannedTransferRecord,
): Promise<{ cycleId: number; planId: number }> {
  const cycleId = await startCycle(db, { mode: 'once', startedAtMs });
  const [planId] = await recordPlannedTransfers(db, cycleId, [plan]);
  return { cycleId, planId: planId! }; // one row recorded
}

/** When a seeded transfer's steps happened (ms since epoch). */
export interface DepositTimes {
  /** Its transactions sent and the transfer `broadcast`. */
  sentAtMs: number;
  /** Its transactions mined (block 10). */
  confirmedAtMs: number;
  /** The transfer `deposited`. */
  depositedAtMs: number;
}

/**
 * Creates `transfer` and moves it to `deposited`: every transaction sent and confirmed in block 10, the transfer
 * `prepared` → `broadcast` → `deposited` at the given times.
 *
 * @returns the transfer id
 */
export async function seedDeposited(db: StoreDb, transfer: NewTransfer, at: DepositTimes): Promise<number> {
  const { transferId, txIds } = await createTransfer(db, transfer);
  for (const id of txIds) {
    await markTxSent(db, id, at.sentAtMs);
    await markTxConfirmed(db, id, { status: 'confirmed', blockNumber: 10n, nowMs: at.confirmedAtMs });
  }
  await transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: at.sentAtMs });
  await transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: at.depositedAtMs });
  return transferId;
}
