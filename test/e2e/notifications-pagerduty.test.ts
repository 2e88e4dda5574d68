/**
 * The PagerDuty sink on the sandbox, against the local Events API v2 endpoint (packages/sandbox/src/pagerduty/):
 * - a transfer whose fill is late is flagged stalled; however many cycles and Ballast instances (two, sharing one
 *   store) see it and flush, PagerDuty gets one trigger, and one resolve under the same dedup_key once the transfer
 *   is filled;
 * - a failed deposit pauses its route: the failed transfer and the pause each trigger once, the first request
 *   answered 429 is retried and delivered once, and `ballast resume` resolves the pause's incident (not the failed
 *   transfer's).
 */
import { afterAll, afterEach, expect, it } from 'vitest';
import { createBallast, type Ballast } from '../../packages/ballast/src/app/createBallast.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { flushNotifications } from '../../packages/ballast/src/notify/dispatcher.ts';
import { getTransfer, listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { startLocalPagerDuty, type LocalPagerDuty } from '../../packages/sandbox/src/pagerduty/pagerDutyServer.ts';
import { runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, memoryLogger, sandboxPerTest, tempDir } from './helpers/sandboxBallast.ts';

const KEY = 'R0UTINGKEY0123456789abcdef012345';
const sandboxes = sandboxPerTest();
const tmp = tempDir('ballast-pagerduty-');
let pd: LocalPagerDuty;
afterEach(async () => pd?.close());
afterAll(() => tmp.cleanup());

const notifyConfig = (url: string) => ({ sinks: { pager: { kind: 'pagerduty', url, routingKey: '${PD_KEY}' } }, retryBaseSec: 1 });
const sent = (action: string, dedupKey: string) => pd.events.filter((e) => e.action === action && e.dedupKey === dedupKey);
const flushAll = async (...instances: Ballast[]) => Promise.all(instances.map((b) => flushNotifications(b.notifyDispatch!, 5_000)));

it('a stalled transfer triggers one incident across cycles and two instances, resolved once when it is filled', async () => {
  pd = await startLocalPagerDuty();
  const sandbox = await sandboxes.start({ faults: { fillDelayMs: 6_000 } });
  let skewMs = 0;
  const now = () => Date.now() + skewMs;
  const { ballast: a, config } = ballastOnSandbox(
    sandbox,
    tmp.dir,
    { tracking: { pollMs: 200, timeoutSec: 30, stalledAfterSec: 60 }, notify: notifyConfig(pd.url) },
    { PD_KEY: KEY },
    { now },
  );
  const b = createBallast(config, { logger: memoryLogger().logger, now, chainPollingIntervalMs: 50 }); // the same store
  sandboxes.closeAfter(() => a.close());
  sandboxes.closeAfter(() => b.close());

  const first = await a.runCycle('daemon'); // ends at the deposit; the fill is 6 s away
  const id = first.attempts[0]!.transferId!;
  expect((await getTransfer(a.db, id))!.status).toBe('deposited');
  skewMs = 120_000; // past stalledAfterSec for both instances
  await a.runCycle('daemon');
  await b.runCycle('daemon');
  await flushAll(a, b);
  await a.runCycle('daemon');
  await flushAll(a, b);
  const key = `transfer_stalled:transfer:${id}`;
  expect(sent('trigger', key)).toHaveLength(1);
  expect(pd.incidentsOf(key)).toMatchObject([
    { status: 'triggered', triggers: 1, payload: { severity: 'warning', class: 'transfer_stalled' } },
  ]);
  expect(pd.incidentsOf(key)[0]!.payload.summary).toContain('stalled while deposited, not yet filled: deposited for over 60 s');
  expect(sent('resolve', key)).toHaveLength(0); // still deposited

  // The fill lands; the cycles of both instances poll the transfer (its tracker gave up at the skewed clock).
  for (let i = 0; i < 60 && (await getTransfer(a.db, id))!.status !== 'success'; i++) {
    await (i % 2 === 0 ? a : b).runCycle('daemon');
    await new Promise((r) => setTimeout(r, 300));
  }
  expect((await getTransfer(a.db, id))!.status).toBe('success');
  await flushAll(a, b);
  await b.runCycle('daemon');
  await flushAll(a, b);
  expect(sent('resolve', key)).toHaveLength(1);
  expect(sent('trigger', key)).toHaveLength(1);
  expect(pd.incidentsOf(key)).toMatchObject([{ status: 'resolved', triggers: 1 }]);
  expect(pd.requests.every((r) => r.status === 202)).toBe(true);
});

it('a paused route triggers and resolves when resumed; a failed transfer triggers; a 429 is retried and delivered once', async () => {
  pd = await startLocalPagerDuty();
  const sandbox = await sandboxes.start({ faults: { failure: true, fillDelayMs: 0 } });
  const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir, { notify: notifyConfig(pd.url) }, { PD_KEY: KEY });
  sandboxes.closeAfter(() => ballast.close());

  expect((await ballast.runCycle('once')).attempts.map((a) => a.outcome)).toEqual(['failure']);
  const [failed] = await listRecentTransfers(ballast.db, 1);
  await ballast.runCycle('once'); // reads the pause at its start
  pd.answerNext(429);
  await flushAll(ballast);
  expect(pd.requests.map((r) => r.status).sort()).toEqual([202, 429]);
  await new Promise((r) => setTimeout(r, 1_100)); // retryBaseSec
  await flushAll(ballast);
  await flushAll(ballast);
  const failedKey = `transfer_failed:transfer:${failed!.id}`;
  const pauseKey = `route_paused:route:USDC:alpha:beta:failure:${failed!.id}`;
  expect(pd.requests.map((r) => r.status)).toEqual([expect.any(Number), expect.any(Number), 202]);
  expect(sent('trigger', failedKey)).toHaveLength(1);
  expect(sent('trigger', pauseKey)).toHaveLength(1);
  expect(pd.incidentsOf(failedKey)).toMatchObject([{ status: 'triggered', payload: { severity: 'error', component: 'alpha -> beta' } }]);
  expect(pd.incidentsOf(pauseKey)).toMatchObject([{ status: 'triggered', payload: { severity: 'critical', group: 'USDC' } }]);

  const env = { ...sandboxEnv(sandbox, store), PD_KEY: KEY };
  const resumed = await runCliInProcess(
    ['resume', '--config', configFile, '--transfer', String(failed!.id), '--note', 'withdrawn by ops'],
    { env },
  );
  expect(resumed.code).toBe(0);
  await flushAll(ballast);
  await flushAll(ballast);
  expect(sent('resolve', pauseKey)).toHaveLength(1);
  expect(pd.incidentsOf(pauseKey)).toMatchObject([{ status: 'resolved', triggers: 1 }]);
  expect(pd.incidentsOf(failedKey)).toMatchObject([{ status: 'triggered' }]); // an operator resolves it
  expect(pd.events).toHaveLength(3);
});
