/**
 * The ends of stalls and pauses (src/notify/incidents.ts) on both store engines, with two replicas sharing one
 * store: a stall reported by both is queued once per sink; its end is queued only once the start was delivered
 * and the transfer is final, once per sink however many replicas look, for the sinks that were told of the start
 * only, naming the stage reached and the start it ends; a route pause ends when `resolveFailure` resolves it.
 */
import { beforeEach, expect, it } from 'vitest';
import { pausedRoutes } from '../../../packages/ballast/src/cycle/pausedRoutes.ts';
import { cancelAtCapEvent, routePausedEvent, stalledEvent } from '../../../packages/ballast/src/notify/eventOf.ts';
import { queueResolutions } from '../../../packages/ballast/src/notify/incidents.ts';
import { notify } from '../../../packages/ballast/src/notify/notify.ts';
import { pagerDutyDedupKey } from '../../../packages/ballast/src/notify/pagerduty.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { listUnresolvedFailures, resolveFailure } from '../../../packages/ballast/src/store/failures.ts';
import {
  listNotifications,
  markNotificationDelivered,
  markNotificationFailed,
  type NotificationRow,
} from '../../../packages/ballast/src/store/notifications.ts';
import { createTransfer, getTransfer, markTxSent, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';
import { newTransfer } from '../store/helpers.ts';
import { testNotifyConfig, testSink } from './helpers.ts';

const notifyConfig = testNotifyConfig([
  testSink('pager', 'pagerduty', undefined, { events: ['transfer_failed', 'transfer_stalled', 'route_paused', 'kill_switch_engaged'] }),
  testSink('chat', 'slack', undefined, { events: ['route_paused'] }),
  testSink('ops', 'webhook'),
]);
const config = { notify: notifyConfig, policy: { pauseRouteAfterOriginFailures: 3 } };

describeEachEngine('ends of stalls and pauses', (engine) => {
  let a: StoreDb;
  let b: StoreDb;
  const now = () => 1_700_000_000_000;
  beforeEach(async () => {
    a = await engine.open();
    b = await engine.openAgain(a);
  });

  /** A transfer moved to `deposited`. */
  async function deposited(n: number): Promise<number> {
    const base = await newTransfer(a);
    const hex = n.toString(16).padStart(2, '0');
    const { transferId, txIds } = await createTransfer(a, { ...base, requestId: `0x${hex.repeat(32)}` });
    for (const id of txIds) await markTxSent(a, id, 3_000);
    await transitionTransfer(a, transferId, 'prepared', 'broadcast', { nowMs: 3_000 });
    await transitionTransfer(a, transferId, 'broadcast', 'deposited', { nowMs: 4_000 });
    return transferId;
  }
  const rowsOf = async (event: string): Promise<NotificationRow[]> =>
    (await listNotifications(a, 100))
      .filter((r) => r.event === event)
      .sort((x, y) => x.sink.localeCompare(y.sink) || x.dedupeKey.localeCompare(y.dedupeKey));
  const deliver = async (event: string): Promise<void> => {
    for (const r of await rowsOf(event)) await markNotificationDelivered(a, r.id, now());
  };
  const bothReplicas = async (): Promise<number> => {
    const counts = await Promise.all([queueResolutions({ db: a, now, config }), queueResolutions({ db: b, now, config })]);
    return counts[0] + counts[1];
  };

  it('ends a stall once per sink told of it, after its delivery and once the transfer is final', async () => {
    const id = await deposited(1);
    const row = (await getTransfer(a, id))!;
    await notify({ db: a, now, config }, stalledEvent(row, 'deposited for over 60 s'));
    await notify({ db: b, now, config }, stalledEvent(row, 'deposited for over 60 s'));
    await notify({ db: b, now, config }, cancelAtCapEvent(row, 'no cancel fits under maxCancelFeeSats'));
    const starts = await rowsOf('transfer_stalled');
    expect(starts.map((r) => [r.sink, r.dedupeKey])).toEqual([
      ['ops', `transfer_stalled:transfer:${id}`],
      ['ops', `transfer_stalled:transfer:${id}:cancel`],
      ['pager', `transfer_stalled:transfer:${id}`],
      ['pager', `transfer_stalled:transfer:${id}:cancel`],
    ]);
    for (const r of starts.filter((r) => !r.dedupeKey.endsWith(':cancel'))) await markNotificationDelivered(a, r.id, now());
    expect(await bothReplicas()).toBe(0); // delivered, but still deposited

    await transitionTransfer(a, id, 'deposited', 'success', { nowMs: 5_000 });
    expect(await bothReplicas()).toBe(2); // the cancel stall is still pending: its end must not overtake it
    expect(await bothReplicas()).toBe(0);
    await deliver('transfer_stalled');
    expect(await bothReplicas()).toBe(2);
    expect(await bothReplicas()).toBe(0);
    const ends = await rowsOf('transfer_unstalled');
    expect(ends.map((r) => [r.sink, r.dedupeKey, r.severity])).toEqual([
      ['ops', `transfer_unstalled:transfer_stalled:transfer:${id}`, 'info'],
      ['ops', `transfer_unstalled:transfer_stalled:transfer:${id}:cancel`, 'info'],
      ['pager', `transfer_unstalled:transfer_stalled:transfer:${id}`, 'info'],
      ['pager', `transfer_unstalled:transfer_stalled:transfer:${id}:cancel`, 'info'],
    ]);
    expect(ends[0]!.summary).toBe(`USDC base -> arbitrum no longer stalled: transfer ${id} filled (request 0x${'01'.repeat(32)})`);
    const payload = JSON.parse(ends[0]!.payload) as Record<string, unknown>;
    expect(payload).toMatchObject({ transferId: id, status: 'success', resolves: `transfer_stalled:transfer:${id}` });
    expect(pagerDutyDedupKey({ ...ends[0]!, payload: { resolves: payload.resolves as string } })).toBe(`transfer_stalled:transfer:${id}`);
  });

  it('ends a route pause when its failure is resolved, not for a sink whose start failed', async () => {
    const id = await deposited(2);
    await transitionTransfer(a, id, 'deposited', 'failure', { nowMs: 5_000 });
    const [paused] = pausedRoutes(await listUnresolvedFailures(a));
    await notify({ db: a, now, config }, routePausedEvent(paused!));
    await notify({ db: b, now, config }, routePausedEvent(paused!));
    const starts = await rowsOf('route_paused');
    expect(starts.map((r) => r.sink)).toEqual(['chat', 'ops', 'pager']);
    await markNotificationFailed(a, starts[0]!.id, now(), 'HTTP 404'); // chat was never told the route paused
    await deliver('route_paused');
    expect(await bothReplicas()).toBe(0); // still paused

    await resolveFailure(a, id, 'withdrawn by ops', 6_000);
    expect(await bothReplicas()).toBe(2);
    expect(await bothReplicas()).toBe(0);
    const ends = await rowsOf('route_resumed');
    expect(ends.map((r) => r.sink)).toEqual(['ops', 'pager']);
    expect(ends[0]!.summary).toBe('USDC base -> arbitrum resumed: the transfers that paused it are resolved');
    expect(JSON.parse(ends[0]!.payload)).toMatchObject({
      asset: 'USDC',
      reason: 'failure',
      transferIds: [id],
      resolves: `route_paused:route:USDC:base:arbitrum:failure:${id}`,
    });
  });
});
