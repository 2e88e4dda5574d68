/**
 * The notification queue (src/store/notifications.ts) on both engines: one row per (sink, dedupe key), a due row
 * is claimed by one caller only, outcomes move it to delivered/failed or push its next attempt, and pruning keeps
 * the queue within its bounds, dropping the oldest finished rows first.
 */
import { beforeEach, expect, it } from 'vitest';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import {
  claimNotification,
  countPendingNotifications,
  enqueueNotification,
  listDueNotifications,
  listNotifications,
  markNotificationDelivered,
  markNotificationFailed,
  markNotificationRetry,
  pruneNotifications,
  type NotificationInsert,
} from '../../../packages/ballast/src/store/notifications.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';

const row = (over: Partial<NotificationInsert> = {}): NotificationInsert => ({
  sink: 'ops',
  event: 'transfer_failed',
  severity: 'critical',
  dedupeKey: 'transfer_failed:transfer:1',
  summary: 'failed',
  payload: '{"amountIn":"1"}',
  nowMs: 1_000,
  ...over,
});

describeEachEngine('notifications store', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  it('queues an event once per sink, however often it is reported', async () => {
    expect(await enqueueNotification(db, row())).toBe(true);
    expect(await enqueueNotification(db, row({ nowMs: 2_000, summary: 'again' }))).toBe(false);
    expect(await enqueueNotification(db, row({ sink: 'chat' }))).toBe(true);
    const rows = await listNotifications(db, 10);
    expect(rows.map((r) => [r.sink, r.summary, r.status, r.attempts])).toEqual([
      ['chat', 'failed', 'pending', 0],
      ['ops', 'failed', 'pending', 0],
    ]);
    expect(await countPendingNotifications(db)).toBe(2);
  });

  it('lists due rows, lets one caller claim each attempt, and records the outcomes', async () => {
    await enqueueNotification(db, row());
    await enqueueNotification(db, row({ dedupeKey: 'k2', nowMs: 5_000 }));
    const due = await listDueNotifications(db, 1_000, 10);
    expect(due.map((r) => r.dedupeKey)).toEqual(['transfer_failed:transfer:1']);
    const first = due[0]!;
    const other = await engine.openAgain(db);
    const claims = await Promise.all([claimNotification(db, first, 9_000), claimNotification(other, first, 9_000)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await listDueNotifications(db, 5_000, 10)).toHaveLength(1); // the claimed one is not due before 9 s

    await markNotificationRetry(db, first.id, 60_000, 'HTTP 500');
    const [retry] = (await listNotifications(db, 10)).filter((r) => r.id === first.id);
    expect(retry).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAtMs: 60_000, lastError: 'HTTP 500' });

    await markNotificationDelivered(db, first.id, 61_000);
    const second = (await listDueNotifications(db, 5_000, 10))[0]!;
    expect(await claimNotification(db, second, 10_000)).toBe(true);
    await markNotificationFailed(db, second.id, 62_000, 'x'.repeat(800));
    const byKey = new Map((await listNotifications(db, 10)).map((r) => [r.dedupeKey, r]));
    expect(byKey.get('transfer_failed:transfer:1')).toMatchObject({ status: 'delivered', finishedAtMs: 61_000, lastError: null });
    expect(byKey.get('k2')).toMatchObject({ status: 'failed', attempts: 1, finishedAtMs: 62_000 });
    expect(byKey.get('k2')!.lastError).toHaveLength(500);
    expect(await countPendingNotifications(db)).toBe(0);
    expect(await listDueNotifications(db, 10 ** 12, 10)).toEqual([]);
  });

  it('prunes old finished rows, then the oldest finished, then the oldest pending beyond maxRows', async () => {
    for (let i = 1; i <= 6; i++) await enqueueNotification(db, row({ dedupeKey: `k${i}`, nowMs: i * 1_000 }));
    const [r1, r2, r3] = (await listDueNotifications(db, 10_000, 3))!;
    await markNotificationDelivered(db, r1!.id, 10_000);
    await markNotificationFailed(db, r2!.id, 50_000, 'gone');
    await markNotificationDelivered(db, r3!.id, 60_000);

    expect(await pruneNotifications(db, { finishedBeforeMs: 20_000, maxRows: 100 })).toEqual([]);
    expect((await listNotifications(db, 10)).map((r) => r.dedupeKey).sort()).toEqual(['k2', 'k3', 'k4', 'k5', 'k6']);

    const dropped = await pruneNotifications(db, { finishedBeforeMs: 0, maxRows: 2 });
    expect(dropped).toEqual([{ sink: 'ops', event: 'transfer_failed' }]);
    expect((await listNotifications(db, 10)).map((r) => r.dedupeKey).sort()).toEqual(['k5', 'k6']);
  });
});
