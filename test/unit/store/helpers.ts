/**
 * Store test helpers: a fresh database file in a temp directory per test, and a valid new transfer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../../../src/store/database.ts';
import { startCycle } from '../../../src/store/cycles.ts';
import type { NewTransfer } from '../../../src/store/transfers.ts';

/** A temp directory with a database file path; `cleanup()` closes every opened connection and deletes it. */
export interface TempDb {
  dir: string;
  file: string;
  /** Opens (and tracks) a connection to `file`. */
  open(): Database.Database;
  cleanup(): void;
}

/** Creates a temp database location (the file is created by the first `open()`). */
export function tempDb(): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'ballast-store-'));
  const file = join(dir, 'nested', 'ballast.db');
  const open: Database.Database[] = [];
  return {
    dir,
    file,
    open() {
      const db = openDatabase(file);
      open.push(db);
      return db;
    },
    cleanup() {
      for (const db of open) if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** 2^64 + 1: above every 64-bit integer type, to prove amounts are not squeezed through one. */
export const BEYOND_U64 = 2n ** 64n + 1n;

/** A new transfer of `amountIn` with two signed transactions (approve, deposit). */
export function newTransfer(db: Database.Database, over: Partial<NewTransfer> = {}): NewTransfer {
  const cycleId = over.cycleId ?? startCycle(db, { mode: 'once', startedAtMs: 1_000 });
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
      { stepId: 'approve', itemIndex: 0, chainId: 8453, request: { nonce: 7, value: 0n }, txHash: `0x${'11'.repeat(32)}`, rawTx: '0x02f8aa' },
      { stepId: 'deposit', itemIndex: 0, chainId: 8453, request: { nonce: 8, value: 0n, gas: 21000n }, txHash: `0x${'22'.repeat(32)}`, rawTx: '0x02f8bb' },
    ],
    nowMs: 2_000,
    ...over,
  };
}
