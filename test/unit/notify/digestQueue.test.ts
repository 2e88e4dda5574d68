/**
 * The daily digest queued from the store (src/notify/digestQueue.ts) on both engines, with two replicas sharing one
 * store: nothing before its time of day; at it, one digest for the day in the queue of the sink that asked for it
 * (and no other), however many calls and replicas; the next day another; its totals are the ledger's for the 24
 * hours before its time.
 */
import { beforeEach, expect, it } from 'vitest';
import { queueDailyDigests, type DigestDeps } from '../../../packages/ballast/src/notify/digestQueue.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { insertLedgerEntry } from '../../../packages/ballast/src/store/ledger.ts';
import { listNotifications } from '../../../packages/ballast/src/store/notifications.ts';
import { createTransfer, markTxSent, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';
import { newTransfer } from '../store/helpers.ts';
import { filledEntry, testNotifyConfig, testSink } from './helpers.ts';

const notifyConfig = testNotifyConfig([
  testSink('chat', 'slack', undefined, { minSeverity: 'critical', events: ['route_paused'], digest: { at: '09:00', timezone: 'UTC' } }),
  testSink('ops', 'webhook'),
]);
const config: DigestDeps['config'] = { notify: notifyConfig, policy: { pauseRouteAfterOriginFailures: 3 }, wallets: {} };
const AT = Date.UTC(2026, 10, 29, 9, 0, 0);

describeEachEngine('daily digest queue', (engine) => {
  let a: StoreDb;
  let b: StoreDb;
  let clock: number;
  const now = () => clock;
  beforeEach(async () => {
    a = await engine.open();
    b = await engine.openAgain(a);
  });

  it('queues one digest a day for the sink that asked, however many calls and replicas', async () => {
    // A transfer filled the night before the digest: 2500 USDC in, fees and gas 0.38 USD.
    const base = await newTransfer(a, { nowMs: AT - 8 * 3_600_000 });
    const { transferId, txIds } = await createTransfer(a, base);
    for (const id of txIds) await markTxSent(a, id, AT - 8 * 3_600_000);
    await transitionTransfer(a, transferId, 'prepared', 'broadcast', { nowMs: AT - 8 * 3_600_000 });
    await transitionTransfer(a, transferId, 'broadcast', 'success', { nowMs: AT - 7 * 3_600_000 });
    await insertLedgerEntry(
      a,
      filledEntry({
        transferId,
        amountIn: base.amountIn,
        quotedExpectedOut: base.expectedOut,
        quotedMinOut: base.minOut,
        receivedOut: base.expectedOut,
        signedAtMs: AT - 8 * 3_600_000,
        settledAtMs: AT - 7 * 3_600_000,
        settleMs: 3_600_000,
      }),
      AT - 7 * 3_600_000,
    );
    const both = async (): Promise<number> => {
      const [x, y] = await Promise.all([queueDailyDigests({ db: a, now, config }), queueDailyDigests({ db: b, now, config })]);
      return x + y;
    };

    clock = AT - 1_000;
    expect(await both()).toBe(0); // not its time yet
    clock = AT + 5_000;
    expect(await both()).toBe(1);
    clock = AT + 6 * 3_600_000;
    expect(await both()).toBe(0);
    let rows = await listNotifications(a, 10);
    expect(rows.map((r) => [r.sink, r.event, r.dedupeKey, r.severity, r.status])).toEqual([
      ['chat', 'daily_digest', 'daily_digest:2026-11-29', 'info', 'pending'],
    ]);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({
      since: '2026-11-28T09:00:00.000Z',
      transfers: 1,
      filled: 1,
      totalCostUsd: '0.38',
      routes: [{ asset: 'USDC', originChain: 'base', destinationChain: 'arbitrum', movedIn: '100000000', movedInWhole: '100' }],
    });
    expect(rows[0]!.summary).toMatch(/^daily digest 2026-11-29 \(UTC\): 1 transfer in 24 h, 1 filled, 0 not yet filled/);

    clock = AT + 24 * 3_600_000 + 60_000; // the next day: the transfer is outside its 24 hours
    expect(await both()).toBe(1);
    expect(await both()).toBe(0);
    rows = await listNotifications(a, 10);
    expect(rows.map((r) => r.dedupeKey)).toEqual(['daily_digest:2026-11-30', 'daily_digest:2026-11-29']);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({ transfers: 0, lines: ['no transfers, pauses or open requests'] });
  });
});
