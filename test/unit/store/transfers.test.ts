import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { StoreNotFoundError, StoreTransitionError, StoreValueError } from '../../../src/store/errors.ts';
import {
  ALLOWED_TRANSITIONS,
  TRANSFER_STATUSES,
  addTransferTx,
  createTransfer,
  getTransfer,
  listInFlightTransfers,
  listRecentTransfers,
  markTxConfirmed,
  markTxSent,
  setRelayStatus,
  transitionTransfer,
  type TransferStatus,
} from '../../../src/store/transfers.ts';
import { BEYOND_U64, newTransfer, tempDb, type TempDb } from './helpers.ts';

let t: TempDb;
let db: Database.Database;
beforeEach(() => {
  t = tempDb();
  db = t.open();
});
afterEach(() => {
  t.cleanup();
});

function count(table: string): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

function transitionError(fn: () => void): StoreTransitionError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StoreTransitionError) return err;
    throw err;
  }
  throw new Error('expected a StoreTransitionError');
}

describe('createTransfer', () => {
  it('writes the transfer (prepared), its signed txs and the creation event; amounts round-trip beyond 2^64', () => {
    const big = BEYOND_U64 * 10n ** 18n;
    const { transferId, txIds } = createTransfer(db, newTransfer(db, { amountIn: big, expectedOut: big - 1n, minOut: BEYOND_U64 }));
    expect(txIds).toHaveLength(2);
    const row = getTransfer(db, transferId)!;
    expect(row.status).toBe('prepared');
    expect(row.amountIn).toBe(big);
    expect(row.expectedOut).toBe(big - 1n);
    expect(row.minOut).toBe(BEYOND_U64);
    expect(typeof row.amountIn).toBe('bigint');
    expect(row.txs.map((x) => [x.id, x.stepId, x.status])).toEqual([
      [txIds[0], 'approve', 'signed'],
      [txIds[1], 'deposit', 'signed'],
    ]);
    expect(row.txs[1]!.request).toEqual({ nonce: 8, value: '0', gas: '21000' });
    expect(row.txs[1]!.rawTx).toBe('0x02f8bb');
    expect(row.events.map((e) => [e.fromStatus, e.toStatus, e.atMs])).toEqual([[null, 'prepared', 2000]]);
    expect(row.outTxHashes).toEqual([]);
  });

  it('is atomic: a bad transaction leaves no transfer behind', () => {
    const bad = newTransfer(db);
    bad.txs = [bad.txs[0]!, { ...bad.txs[0]!, txHash: '0x99' }]; // same (stepId, itemIndex) twice
    expect(() => createTransfer(db, bad)).toThrow(/UNIQUE constraint failed/);
    expect(count('transfers')).toBe(0);
    expect(count('transfer_events')).toBe(0);
  });

  it('refuses a negative amount and a request id already used', () => {
    expect(() => createTransfer(db, newTransfer(db, { minOut: -1n }))).toThrow(StoreValueError);
    expect(count('transfers')).toBe(0);
    createTransfer(db, newTransfer(db));
    expect(() => createTransfer(db, newTransfer(db))).toThrow(/UNIQUE constraint failed: transfers.request_id/);
    expect(count('transfers')).toBe(1);
  });
});

describe('transitionTransfer', () => {
  it('walks prepared → broadcast → deposited → success and records each event', () => {
    const { transferId: id } = createTransfer(db, newTransfer(db));
    transitionTransfer(db, id, 'prepared', 'broadcast', { nowMs: 3000 });
    transitionTransfer(db, id, 'broadcast', 'deposited', { nowMs: 4000, detail: '0x11,0x22' });
    transitionTransfer(db, id, 'deposited', 'success', { nowMs: 5000, relayStatus: 'success' });
    const row = getTransfer(db, id)!;
    expect(row.status).toBe('success');
    expect(row.relayStatus).toBe('success');
    expect(row.updatedAtMs).toBe(5000);
    expect(row.events.map((e) => [e.fromStatus, e.toStatus, e.atMs, e.detail])).toEqual([
      [null, 'prepared', 2000, 'created'],
      ['prepared', 'broadcast', 3000, null],
      ['broadcast', 'deposited', 4000, '0x11,0x22'],
      ['deposited', 'success', 5000, null],
    ]);
  });

  it('a guarded transition whose current state differs throws CONFLICT and changes nothing', () => {
    const { transferId: id } = createTransfer(db, newTransfer(db));
    transitionTransfer(db, id, 'prepared', 'broadcast', { nowMs: 3000 });
    const before = getTransfer(db, id)!;
    const err = transitionError(() => transitionTransfer(db, id, 'prepared', 'origin_failed', { nowMs: 9000, error: 'late' }));
    expect(err.code).toBe('STORE_TRANSITION_CONFLICT');
    expect(err.message).toBe(`transfer ${id} is broadcast, not prepared; prepared → origin_failed not applied (re-read it)`);
    expect(getTransfer(db, id)).toEqual(before);
  });

  it('a transfer that does not exist is a conflict too', () => {
    const err = transitionError(() => transitionTransfer(db, 42, 'prepared', 'broadcast', { nowMs: 1 }));
    expect(err.code).toBe('STORE_TRANSITION_CONFLICT');
    expect(err.message).toContain('transfer 42 is missing');
  });

  it('two connections racing on the same transfer: exactly one wins', () => {
    const other = t.open();
    const { transferId: id } = createTransfer(db, newTransfer(db));
    transitionTransfer(db, id, 'prepared', 'broadcast', { nowMs: 3000 });
    transitionTransfer(db, id, 'broadcast', 'deposited', { nowMs: 3500 });
    transitionTransfer(other, id, 'deposited', 'refund', { nowMs: 4000 });
    const err = transitionError(() => transitionTransfer(db, id, 'deposited', 'success', { nowMs: 4001 }));
    expect(err.code).toBe('STORE_TRANSITION_CONFLICT');
    expect(getTransfer(db, id)!.status).toBe('refund');
    expect(getTransfer(db, id)!.events.map((e) => e.toStatus)).toEqual(['prepared', 'broadcast', 'deposited', 'refund']);
  });

  it('rejects every transition outside the table, before touching the row', () => {
    const { transferId: id } = createTransfer(db, newTransfer(db));
    let illegal = 0;
    for (const from of TRANSFER_STATUSES) {
      for (const to of TRANSFER_STATUSES) {
        if (ALLOWED_TRANSITIONS[from].includes(to)) continue;
        const err = transitionError(() => transitionTransfer(db, id, from, to, { nowMs: 1 }));
        expect(err.code).toBe('STORE_TRANSITION_ILLEGAL');
        illegal += 1;
      }
    }
    expect(illegal).toBe(64 - 12);
    expect(getTransfer(db, id)!.status).toBe('prepared');
    expect(count('transfer_events')).toBe(1);
  });

  it('allows a terminal status straight from broadcast, and origin_failed keeps the error', () => {
    const a = createTransfer(db, newTransfer(db)).transferId;
    transitionTransfer(db, a, 'prepared', 'broadcast', { nowMs: 3 });
    transitionTransfer(db, a, 'broadcast', 'failure', { nowMs: 4, relayStatus: 'failure' });
    expect(getTransfer(db, a)!.status).toBe('failure');
    const b = createTransfer(db, newTransfer(db, { requestId: '0xbb' })).transferId;
    transitionTransfer(db, b, 'prepared', 'origin_failed', { nowMs: 5, error: 'deposit reverted' });
    const row = getTransfer(db, b)!;
    expect(row.error).toBe('deposit reverted');
    expect(row.events.at(-1)?.detail).toBe('deposit reverted');
  });

  it('the allowed table is exactly the documented state machine', () => {
    const edges = TRANSFER_STATUSES.flatMap((f) => ALLOWED_TRANSITIONS[f].map((to) => `${f}>${to}`)).sort();
    expect(edges).toEqual(
      [
        'prepared>broadcast', 'prepared>origin_failed',
        'broadcast>deposited', 'broadcast>origin_failed', 'broadcast>success', 'broadcast>failure', 'broadcast>refund',
        'deposited>success', 'deposited>failure', 'deposited>refund', 'deposited>broadcast', 'deposited>withdrawn',
      ].sort(),
    );
  });
});

describe('transactions of a transfer', () => {
  it('signed → sent → confirmed, each guarded', () => {
    const { transferId, txIds } = createTransfer(db, newTransfer(db));
    const [approve, deposit] = txIds as [number, number];
    markTxSent(db, approve, 3000);
    expect(transitionError(() => markTxSent(db, approve, 3001)).code).toBe('STORE_TRANSITION_CONFLICT');
    markTxConfirmed(db, approve, { status: 'confirmed', blockNumber: 123n, nowMs: 3500 });
    expect(transitionError(() => markTxConfirmed(db, approve, { status: 'reverted', blockNumber: 124n, nowMs: 3600 })).message)
      .toContain('is confirmed');
    markTxConfirmed(db, deposit, { status: 'reverted', blockNumber: 130, nowMs: 3700 }); // receipt found for an unsent row
    const txs = getTransfer(db, transferId)!.txs;
    expect(txs.map((x) => [x.status, x.blockNumber, x.sentAtMs, x.confirmedAtMs])).toEqual([
      ['confirmed', 123n, 3000, 3500],
      ['reverted', 130n, null, 3700],
    ]);
  });

  it('addTransferTx works while prepared/broadcast and is refused once deposited', () => {
    const { transferId } = createTransfer(db, newTransfer(db, { txs: [] }));
    const tx = { stepId: 'deposit', itemIndex: 0, chainId: 8453, request: { nonce: 1 }, txHash: '0x33', rawTx: '0x02', nowMs: 10 };
    const id1 = addTransferTx(db, transferId, tx);
    transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 11 });
    addTransferTx(db, transferId, { ...tx, itemIndex: 1 });
    transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: 12 });
    expect(transitionError(() => addTransferTx(db, transferId, { ...tx, itemIndex: 2 })).code).toBe('STORE_TRANSITION_CONFLICT');
    expect(getTransfer(db, transferId)!.txs.map((x) => x.id)).toEqual([id1, id1 + 1]);
  });

  it('setRelayStatus stores the relay status and fill hashes without changing the transfer status', () => {
    const { transferId } = createTransfer(db, newTransfer(db));
    setRelayStatus(db, transferId, 'pending', { nowMs: 6000 });
    setRelayStatus(db, transferId, 'submitted', { nowMs: 7000, outTxHashes: ['0xfill'] });
    setRelayStatus(db, transferId, 'success', { nowMs: 8000 });
    const row = getTransfer(db, transferId)!;
    expect([row.status, row.relayStatus, row.outTxHashes, row.updatedAtMs]).toEqual(['prepared', 'success', ['0xfill'], 8000]);
    expect(() => setRelayStatus(db, 999, 'success', { nowMs: 1 })).toThrow(StoreNotFoundError);
  });
});

describe('listing', () => {
  it('in-flight = prepared, broadcast, deposited; recent = newest first with a limit', () => {
    const ids: Record<string, number> = {};
    const paths: Record<string, TransferStatus[]> = {
      prepared: [],
      broadcast: ['broadcast'],
      deposited: ['broadcast', 'deposited'],
      success: ['broadcast', 'deposited', 'success'],
      origin_failed: ['origin_failed'],
    };
    for (const [name, path] of Object.entries(paths)) {
      const id = createTransfer(db, newTransfer(db, { requestId: `0x${name}` })).transferId;
      let from: TransferStatus = 'prepared';
      for (const to of path) {
        transitionTransfer(db, id, from, to, { nowMs: 10 });
        from = to;
      }
      ids[name] = id;
    }
    expect(listInFlightTransfers(db).map((r) => r.id)).toEqual([ids.prepared, ids.broadcast, ids.deposited]);
    const recent = listRecentTransfers(db, 2);
    expect(recent.map((r) => r.id)).toEqual([ids.origin_failed, ids.success]);
    expect(recent[1]!.txs).toHaveLength(2);
    expect(recent[1]!.events).toHaveLength(4);
    expect(listRecentTransfers(db, 0)).toEqual([]);
    expect(getTransfer(db, 12345)).toBeUndefined();
  });
});
