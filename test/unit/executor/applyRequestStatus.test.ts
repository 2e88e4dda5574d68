import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyRequestStatus } from '../../../packages/ballast/src/executor/applyRequestStatus.ts';
import type { IntentStatus } from '../../../packages/protocol/src/relay/schemas.ts';
import type { SqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import { createTransfer, getTransfer, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { newTransfer, tempDb, type TempDb } from '../store/helpers.ts';

const DEPOSIT = `0x${'22'.repeat(32)}`; // the last origin tx of newTransfer()
let t: TempDb;
let db: SqliteStoreDb;
let id: number;
beforeEach(async () => {
  t = tempDb();
  db = t.open();
  id = (await createTransfer(db, await newTransfer(db))).transferId;
  await transitionTransfer(db, id, 'prepared', 'broadcast', { nowMs: 3000 });
  await transitionTransfer(db, id, 'broadcast', 'deposited', { nowMs: 4000 });
});
afterEach(() => t.cleanup());

function status(s: string, inTxHashes: string[], txHashes: string[] = []): IntentStatus {
  return { status: s, inTxHashes, txHashes, updatedAt: 5000, originChainId: 8453, destinationChainId: 42161 } as IntentStatus;
}
const apply = async (s: IntentStatus) =>
  applyRequestStatus(db, (await getTransfer(db, id))!, s, { nowMs: 6000, closedBy: 'closed by test' });

describe('applyRequestStatus', () => {
  it('closes a deposited transfer on a terminal status naming our deposit (hex compared case-insensitively)', async () => {
    expect(await apply(status('success', [DEPOSIT.toUpperCase().replace('0X', '0x')], ['0xfill']))).toBe('closed');
    const row = (await getTransfer(db, id))!;
    expect(row).toMatchObject({ status: 'success', relayStatus: 'success', outTxHashes: ['0xfill'] });
    expect(row.events.at(-1)!.detail).toBe('closed by test; 0xfill');
  });

  it('writes nothing for a status naming another deposit', async () => {
    expect(await apply(status('success', [`0x${'99'.repeat(32)}`]))).toBe('foreign_deposit');
    expect(await getTransfer(db, id)).toMatchObject({ status: 'deposited', relayStatus: null });
  });

  it('stores a terminal status naming no deposit without closing on it', async () => {
    expect(await apply(status('failure', []))).toBe('terminal_not_ours');
    expect(await getTransfer(db, id)).toMatchObject({ status: 'deposited', relayStatus: 'failure' });
  });

  it('leaves a transfer another path closed meanwhile untouched', async () => {
    const stale = (await getTransfer(db, id))!; // read before the other path closes it
    await transitionTransfer(db, id, 'deposited', 'refund', { nowMs: 5500, relayStatus: 'refund' });
    const events = (await getTransfer(db, id))!.events.length;
    expect(await applyRequestStatus(db, stale, status('success', [DEPOSIT]), { nowMs: 6000, closedBy: 'late' })).toBe('already_final');
    expect(await getTransfer(db, id)).toMatchObject({ status: 'refund', relayStatus: 'refund' });
    expect((await getTransfer(db, id))!.events).toHaveLength(events);
  });
});
