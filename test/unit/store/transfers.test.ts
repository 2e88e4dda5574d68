import { beforeEach, describe, expect, it } from 'vitest';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { StoreNotFoundError, StoreTransitionError, StoreValueError } from '../../../packages/ballast/src/store/errors.ts';
import {
  ALLOWED_TRANSITIONS,
  TRANSFER_STATUSES,
  addTransferTx,
  createTransfer,
  getTransfer,
  listInFlightTransfers,
  listInFlightTransfersFrom,
  listRecentTransfers,
  markTxConfirmed,
  markTxSent,
  setRelayStatus,
  transitionTransfer,
  type TransferStatus,
} from '../../../packages/ballast/src/store/transfers.ts';
import { describeEachEngine, expectConstraint } from '../../helpers/storeEngines.ts';
import { BEYOND_U64, newTransfer } from './helpers.ts';

async function transitionError(p: Promise<unknown>): Promise<StoreTransitionError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StoreTransitionError) return err;
    throw err;
  }
  throw new Error('expected a StoreTransitionError');
}

describeEachEngine('transfers store', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  async function count(table: string): Promise<number> {
    return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
  }

  describe('createTransfer', () => {
    it('writes the transfer (prepared), its signed txs and the creation event; amounts round-trip beyond 2^64', async () => {
      const big = BEYOND_U64 * 10n ** 18n;
      const { transferId, txIds } = await createTransfer(
        db,
        await newTransfer(db, { amountIn: big, expectedOut: big - 1n, minOut: BEYOND_U64 }),
      );
      expect(txIds).toHaveLength(2);
      const row = (await getTransfer(db, transferId))!;
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

    it('is atomic: a bad transaction leaves no transfer behind', async () => {
      const bad = await newTransfer(db);
      bad.txs = [bad.txs[0]!, { ...bad.txs[0]!, txHash: '0x99' }]; // same (stepId, itemIndex) twice
      await expectConstraint(createTransfer(db, bad), 'unique');
      expect(await count('transfers')).toBe(0);
      expect(await count('transfer_events')).toBe(0);
    });

    it('refuses a negative amount and a request id already used', async () => {
      await expect(createTransfer(db, await newTransfer(db, { minOut: -1n }))).rejects.toThrow(StoreValueError);
      expect(await count('transfers')).toBe(0);
      await createTransfer(db, await newTransfer(db));
      await expectConstraint(createTransfer(db, await newTransfer(db)), 'unique', 'request_id');
      expect(await count('transfers')).toBe(1);
    });
  });

  describe('transitionTransfer', () => {
    it('walks prepared → broadcast → deposited → success and records each event', async () => {
      const { transferId: id } = await createTransfer(db, await newTransfer(db));
      await transitionTransfer(db, id, 'prepared', 'broadcast', { nowMs: 3000 });
      await transitionTransfer(db, id, 'broadcast', 'deposited', { nowMs: 4000, detail: '0x11,0x22' });
      await transitionTransfer(db, id, 'deposited', 'success', { nowMs: 5000, relayStatus: 'success' });
      const row = (await getTransfer(db, id))!;
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

    it('a guarded transition whose current state differs throws CONFLICT and changes nothing', async () => {
      const { transferId: id } = await createTransfer(db, await newTransfer(db));
      await transitionTransfer(db, id, 'prepared', 'broadcast', { nowMs: 3000 });
      const before = await getTransfer(db, id);
      const err = await transitionError(transitionTransfer(db, id, 'prepared', 'origin_failed', { nowMs: 9000, error: 'late' }));
      expect(err.code).toBe('STORE_TRANSITION_CONFLICT');
      expect(err.message).toBe(`transfer ${id} is broadcast, not prepared; prepared → origin_failed not applied (re-read it)`);
      expect(await getTransfer(db, id)).toEqual(before);
    });

    it('a transfer that does not exist is a conflict too', async () => {
      const err = await transitionError(transitionTransfer(db, 42, 'prepared', 'broadcast', { nowMs: 1 }));
      expect(err.code).toBe('STORE_TRANSITION_CONFLICT');
      expect(err.message).toContain('transfer 42 is missing');
    });

    it('two connections racing on the same transfer: exactly one wins', async () => {
      const other = await engine.openAgain(db);
      const { transferId: id } = await createTransfer(db, await newTransfer(db));
      await transitionTransfer(db, id, 'prepared', 'broadcast', { nowMs: 3000 });
      await transitionTransfer(db, id, 'broadcast', 'deposited', { nowMs: 3500 });
      await transitionTransfer(other, id, 'deposited', 'refund', { nowMs: 4000 });
      const err = await transitionError(transitionTransfer(db, id, 'deposited', 'success', { nowMs: 4001 }));
      expect(err.code).toBe('STORE_TRANSITION_CONFLICT');
      expect((await getTransfer(db, id))!.status).toBe('refund');
      expect((await getTransfer(db, id))!.events.map((e) => e.toStatus)).toEqual(['prepared', 'broadcast', 'deposited', 'refund']);
    });

    // PostgreSQL only: two SqliteStoreDb on one file in one process would block each other (a synchronous
    // BEGIN IMMEDIATE waits out the busy timeout while the other's transaction needs the event loop); the SQLite
    // engine's one-connection exclusion is tested in storeDb.test.ts.
    if (engine.name === 'postgres')
      it('two connections racing at the same moment: exactly one wins', async () => {
        const other = await engine.openAgain(db);
        const { transferId: id } = await createTransfer(db, await newTransfer(db));
        await transitionTransfer(db, id, 'prepared', 'broadcast', { nowMs: 3000 });
        await transitionTransfer(db, id, 'broadcast', 'deposited', { nowMs: 3500 });
        const results = await Promise.allSettled([
          transitionTransfer(db, id, 'deposited', 'success', { nowMs: 4000 }),
          transitionTransfer(other, id, 'deposited', 'refund', { nowMs: 4000 }),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(lost.reason).toBeInstanceOf(StoreTransitionError);
        expect((lost.reason as StoreTransitionError).code).toBe('STORE_TRANSITION_CONFLICT');
        expect((await getTransfer(db, id))!.events.map((e) => e.toStatus)).toHaveLength(4);
      });

    it('rejects every transition outside the table, before touching the row', async () => {
      const { transferId: id } = await createTransfer(db, await newTransfer(db));
      let illegal = 0;
      for (const from of TRANSFER_STATUSES) {
        for (const to of TRANSFER_STATUSES) {
          if (ALLOWED_TRANSITIONS[from].includes(to)) continue;
          const err = await transitionError(transitionTransfer(db, id, from, to, { nowMs: 1 }));
          expect(err.code).toBe('STORE_TRANSITION_ILLEGAL');
          illegal += 1;
        }
      }
      expect(illegal).toBe(64 - 12);
      expect((await getTransfer(db, id))!.status).toBe('prepared');
      expect(await count('transfer_events')).toBe(1);
    });

    it('allows a terminal status straight from broadcast, and origin_failed keeps the error', async () => {
      const a = (await createTransfer(db, await newTransfer(db))).transferId;
      await transitionTransfer(db, a, 'prepared', 'broadcast', { nowMs: 3 });
      await transitionTransfer(db, a, 'broadcast', 'failure', { nowMs: 4, relayStatus: 'failure' });
      expect((await getTransfer(db, a))!.status).toBe('failure');
      const b = (await createTransfer(db, await newTransfer(db, { requestId: '0xbb' }))).transferId;
      await transitionTransfer(db, b, 'prepared', 'origin_failed', { nowMs: 5, error: 'deposit reverted' });
      const row = (await getTransfer(db, b))!;
      expect(row.error).toBe('deposit reverted');
      expect(row.events.at(-1)?.detail).toBe('deposit reverted');
    });

    it('the allowed table is exactly the documented state machine', () => {
      const edges = TRANSFER_STATUSES.flatMap((f) => ALLOWED_TRANSITIONS[f].map((to) => `${f}>${to}`)).sort();
      expect(edges).toEqual(
        [
          'prepared>broadcast',
          'prepared>origin_failed',
          'broadcast>deposited',
          'broadcast>origin_failed',
          'broadcast>success',
          'broadcast>failure',
          'broadcast>refund',
          'deposited>success',
          'deposited>failure',
          'deposited>refund',
          'deposited>broadcast',
          'deposited>withdrawn',
        ].sort(),
      );
    });
  });

  describe('transactions of a transfer', () => {
    it('signed → sent → confirmed, each guarded', async () => {
      const { transferId, txIds } = await createTransfer(db, await newTransfer(db));
      const [approve, deposit] = txIds as [number, number];
      await markTxSent(db, approve, 3000);
      expect((await transitionError(markTxSent(db, approve, 3001))).code).toBe('STORE_TRANSITION_CONFLICT');
      await markTxConfirmed(db, approve, { status: 'confirmed', blockNumber: 123n, nowMs: 3500 });
      expect(
        (await transitionError(markTxConfirmed(db, approve, { status: 'reverted', blockNumber: 124n, nowMs: 3600 }))).message,
      ).toContain('is confirmed');
      await markTxConfirmed(db, deposit, { status: 'reverted', blockNumber: 130, nowMs: 3700 }); // receipt found for an unsent row
      const txs = (await getTransfer(db, transferId))!.txs;
      expect(txs.map((x) => [x.status, x.blockNumber, x.sentAtMs, x.confirmedAtMs])).toEqual([
        ['confirmed', 123n, 3000, 3500],
        ['reverted', 130n, null, 3700],
      ]);
    });

    it('addTransferTx works while prepared/broadcast and is refused once deposited', async () => {
      const { transferId } = await createTransfer(db, await newTransfer(db, { txs: [] }));
      const tx = { stepId: 'deposit', itemIndex: 0, chainId: 8453, request: { nonce: 1 }, txHash: '0x33', rawTx: '0x02', nowMs: 10 };
      const id1 = await addTransferTx(db, transferId, tx);
      await transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 11 });
      await addTransferTx(db, transferId, { ...tx, itemIndex: 1 });
      await transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: 12 });
      expect((await transitionError(addTransferTx(db, transferId, { ...tx, itemIndex: 2 }))).code).toBe('STORE_TRANSITION_CONFLICT');
      expect((await getTransfer(db, transferId))!.txs.map((x) => x.id)).toEqual([id1, id1 + 1]);
    });

    it('setRelayStatus stores the relay status and fill hashes without changing the transfer status', async () => {
      const { transferId } = await createTransfer(db, await newTransfer(db));
      await setRelayStatus(db, transferId, 'pending', { nowMs: 6000 });
      await setRelayStatus(db, transferId, 'submitted', { nowMs: 7000, outTxHashes: ['0xfill'] });
      await setRelayStatus(db, transferId, 'success', { nowMs: 8000 });
      const row = (await getTransfer(db, transferId))!;
      expect([row.status, row.relayStatus, row.outTxHashes, row.updatedAtMs]).toEqual(['prepared', 'success', ['0xfill'], 8000]);
      await expect(setRelayStatus(db, 999, 'success', { nowMs: 1 })).rejects.toThrow(StoreNotFoundError);
    });
  });

  describe('listing', () => {
    it('in-flight = prepared, broadcast, deposited; recent = newest first with a limit', async () => {
      const ids: Record<string, number> = {};
      const paths: Record<string, TransferStatus[]> = {
        prepared: [],
        broadcast: ['broadcast'],
        deposited: ['broadcast', 'deposited'],
        success: ['broadcast', 'deposited', 'success'],
        origin_failed: ['origin_failed'],
      };
      for (const [name, path] of Object.entries(paths)) {
        const id = (await createTransfer(db, await newTransfer(db, { requestId: `0x${name}` }))).transferId;
        let from: TransferStatus = 'prepared';
        for (const to of path) {
          await transitionTransfer(db, id, from, to, { nowMs: 10 });
          from = to;
        }
        ids[name] = id;
      }
      expect((await listInFlightTransfers(db)).map((r) => r.id)).toEqual([ids.prepared, ids.broadcast, ids.deposited]);
      const recent = await listRecentTransfers(db, 2);
      expect(recent.map((r) => r.id)).toEqual([ids.origin_failed, ids.success]);
      expect(recent[1]!.txs).toHaveLength(2);
      expect(recent[1]!.events).toHaveLength(4);
      expect(await listRecentTransfers(db, 0)).toEqual([]);
      expect(await getTransfer(db, 12345)).toBeUndefined();
      // By origin chain: only in-flight transfers from that chain, with their recorded transactions.
      const btc = (await createTransfer(db, await newTransfer(db, { originChain: 'bitcoin', requestId: '0xbtc' }))).transferId;
      const fromBitcoin = await listInFlightTransfersFrom(db, 'bitcoin');
      expect(fromBitcoin.map((r) => r.id)).toEqual([btc]);
      expect(fromBitcoin[0]!.txs.map((t) => t.txHash)).toEqual([`0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`]);
      expect((await listInFlightTransfersFrom(db, 'base')).map((r) => r.id)).toEqual([ids.prepared, ids.broadcast, ids.deposited]);
      await transitionTransfer(db, btc, 'prepared', 'origin_failed', { nowMs: 20 });
      expect(await listInFlightTransfersFrom(db, 'bitcoin')).toEqual([]);
    });
  });
});
