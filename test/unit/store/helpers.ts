/**
 * Store test helpers: a fresh SQLite store file in a temp directory per test, and a valid new transfer.
 * Suites that run on both engines use test/helpers/storeEngines.ts instead of {@link tempDb}.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { openSqliteStore } from '../../../packages/ballast/src/store/openStore.ts';
import type { SqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import type { NewTransfer } from '../../../packages/ballast/src/store/transfers.ts';

/**
 * A temp directory with a database file path; `cleanup()` closes every opened store and deletes it. `cleanup()`
 * is synchronous (it closes the raw connections), so `afterEach(() => t.cleanup())` needs no await.
 */
export interface TempDb {
  dir: string;
  file: string;
  /** Opens (and tracks) a store on `file` (created and migrated when missing); `.sqlite` is the raw connection. */
  open(): SqliteStoreDb;
  cleanup(): void;
}

/** Creates a temp database location (the file is created by the first `open()`). */
export function tempDb(): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'ballast-store-'));
  const file = join(dir, 'nested', 'ballast.db');
  const open: SqliteStoreDb[] = [];
  return {
    dir,
    file,
    open() {
      const db = openSqliteStore(file);
      open.push(db);
      return db;
    },
    cleanup() {
      for (const db of open) if (db.sqlite.open) db.sqlite.close(); // a store still open after its test
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** 2^64 + 1: above every 64-bit integer type, to prove amounts are not squeezed through one. */
export const BEYOND_U64 = 2n ** 64n + 1n;

/**
 * A new transfer of `amountIn` with two signed transactions (approve, deposit).
 *
 * @returns a Promise of it: without `over.cycleId` a cycle is started in `db` for it
 */
export async function newTransfer(db: StoreDb, over: Partial<NewTransfer> = {}): Promise<NewTransfer> {
  const cycleId = over.cycleId ?? (await startCycle(db, { mode: 'once', startedAtMs: 1_000 }));
  return {
    cycleId,
    quoteId: null,
    asset: 'USDC',
    originChain: 'base',
    originChainId: 8453,
    originCurrency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    destinationChain: 'arbitrum',
    destinationChainId: 42161,
    destinationCurrency: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
    user: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    recipient: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    amountIn: 100_000_000n,
    expectedOut: 99_000_000n,
    minOut: 98_000_000n,
    requestId: `0x${'ab'.repeat(32)}`,
    orderId: `0x${'cd'.repeat(32)}`,
    feesUsd: '0.52',
    txs: [
      {
        stepId: 'approve',
        itemIndex: 0,
        chainId: 8453,
        request: { nonce: 7, value: 0n },
        txHash: `0x${'11'.repeat(32)}`,
        rawTx: '0x02f8aa',
      },
      {
        stepId: 'deposit',
        itemIndex: 0,
        chainId: 8453,
        request: { nonce: 8, value: 0n, gas: 21000n },
        txHash: `0x${'22'.repeat(32)}`,
        rawTx: '0x02f8bb',
      },
    ],
    nowMs: 2_000,
    ...over,
  };
}
