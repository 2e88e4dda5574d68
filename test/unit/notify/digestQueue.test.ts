/**
 * The daily digest queued from the store (src/notify/digestQueue.ts) on both engines, with two replicas sharing one
 * store: nothing before its time of day; at it, one digest for the day in the queue of the sink that asked for it
 * (and no other), however many calls and replicas; the next day another; its totals are the ledger's for the 24
 * hours before its time.
 */
import { beforeEach, expect, it } from 'vitest';
import type { LoadedNotifySink, NotifyConfig } from '../../../packages/ballast/src/config/notifySchema.ts';
import { queueDailyDigests, type DigestDeps } from '../../../packages/ballast/src/notify/digestQueue.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { insertLedgerEntry } from '../../../packages/ballast/src/store/ledger.ts';
import { listNotifications } from '../../../packages/ballast/src/store/notifications.ts';
import { createTransfer, markTxSent, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';
import { newTransfer } from '../store/helpers.ts';

function sink(name: string, kind: LoadedNotifySink['kind'], extra: Partial<LoadedNotifySink> = {}): LoadedNotifySink {
  const s = { name, kind, events: '*', minSeverity: 'info', ...extra } as LoadedNotifySink;
  Object.defineProperty(s, 'url', { value: 'http://127.0.0.1:1/hook' });
  return s;
}

const notifyConfig: NotifyConfig = {
  sinks: [
    sink('chat', 'slack', { minSeverity: 'critical', events: ['route_paused'], digest: { at: '09:00', timezone: 'UTC' } }),
    sink('ops', 'webhook'),
  ],
  maxAttempts: 3,
  timeoutMs: 2_000,
  retryBaseSec: 30,
  retryMaxSec: 3_600,
  batchSize: 20,
  concurrency: 4,
  everySec: 10,
  keepDays: 30,
  maxRows: 10_000,
};
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
      {
        transferId,
        status: 'success',
        asset: 'USDC',
        originChain: 'base',
        destinationChain: 'arbitrum',
        amountIn: base.amountIn,
        decimalsIn: 6,
        decimalsOut: 6,
        quotedExpectedOut: base.expectedOut,
        quotedMinOut: base.minOut,
        receivedOut: base.expectedOut,
        receivedSource: 'requests_v3_route_actual',
        fees: { execution: 250_000n, swap: 0n, platform: 100_000n, app: 0n },
        feesSource: 'requests_v3_actual',
        gasPaid: 10n ** 14n,
        gasDecimals: 18,
        gasUsdMicros: 30_000n,
        totalFeesUsdMicros: 380_000n,
        signedAtMs: AT - 8 * 3_600_000,
        settledAtMs: AT - 7 * 3_600_000,
        settleMs: 3_600_000,
      },
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
