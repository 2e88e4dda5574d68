/**
 * Notification delivery against a real HTTP receiver on 127.0.0.1 (node:http), on both store engines: `notify`
 * queues each event once; the webhook delivery verifies with the protocol's `verifyWebhookSignature`; a 500 then
 * 200 is retried after the backoff and delivered once; a dead sink (refused connection, or a receiver that never
 * answers) ends in retries and then `failed`, and never holds up the caller of `notify`. A PagerDuty sink against
 * the sandbox's local Events API v2 endpoint: a 429 is retried, a 400 is given up at once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { signedWith } from '../../e2e/helpers/notifyReceiver.ts';
import { createMetrics, type BallastMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { dispatchNotifications, flushNotifications, startNotificationDispatcher } from '../../../packages/ballast/src/notify/dispatcher.ts';
import type { NotifyEvent } from '../../../packages/ballast/src/notify/events.ts';
import { notify } from '../../../packages/ballast/src/notify/notify.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { listNotifications } from '../../../packages/ballast/src/store/notifications.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';
import { SINK_SECRET, testNotifyConfig, testSink } from './helpers.ts';
import { startLocalPagerDuty } from '../../../packages/sandbox/src/pagerduty/pagerDutyServer.ts';

const SECRET = SINK_SECRET;

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver whose answers the test scripts: a status code, or 'hang' (never answers). */
async function receiver(answers: Array<number | 'hang'>): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? 200;
      if (answer === 'hang') hanging.push(res);
      else res.writeHead(answer).end();
    });
  });
  server.on('close', () => hanging.forEach((r) => r.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, server };
}

/** A loopback URL nothing listens on (a port just released). */
async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/hook`;
}

const servers: Server[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const sink = testSink;
const settings = testNotifyConfig;

const failed: NotifyEvent = {
  kind: 'transfer_failed',
  subject: 'transfer:7',
  summary: 'USDC base -> arbitrum failed',
  payload: { transferId: 7, amountIn: '2500000', amountInWhole: '2.5' },
};

describeEachEngine('notification delivery', (engine) => {
  let db: StoreDb;
  let metrics: BallastMetrics;
  let clock: number;
  const now = () => clock;
  const logger = pino({ level: 'silent' });
  beforeEach(async () => {
    db = await engine.open();
    metrics = createMetrics();
    clock = Date.now();
  });
  const count = async (sinkName: string, outcome: string): Promise<number> =>
    (await metrics.notificationsTotal.get()).values.find((v) => v.labels.sink === sinkName && v.labels.outcome === outcome)?.value ?? 0;

  it('does nothing without notify: and queues an event once per sink that wants it', async () => {
    expect(await notify({ db, now, config: {}, logger }, failed)).toBe(0);
    const config = settings([
      sink('ops', 'webhook', 'http://127.0.0.1:1/'),
      sink('quiet', 'slack', 'http://127.0.0.1:1/', { minSeverity: 'critical', events: ['route_paused'] }),
      sink('chat', 'slack', 'http://127.0.0.1:1/', { minSeverity: 'warning' }),
    ]);
    expect(await notify({ db, now, config: { notify: config }, logger }, failed)).toBe(2);
    expect(await notify({ db, now, config: { notify: config }, logger }, failed)).toBe(0);
    expect((await listNotifications(db, 10)).map((r) => r.sink).sort()).toEqual(['chat', 'ops']);
  });

  it('delivers a signed webhook that the protocol verifier accepts, and a Slack message, each once', async () => {
    const hook = await receiver([200]);
    const slack = await receiver([200]);
    const config = settings([sink('ops', 'webhook', hook.url), sink('chat', 'slack', slack.url)]);
    await notify({ db, now, config: { notify: config }, logger }, failed);
    const report = await dispatchNotifications({ db, config, metrics, logger, now });
    expect(report).toEqual({ delivered: 2, retried: 0, failed: 0, dropped: 0 });
    expect(await dispatchNotifications({ db, config, metrics, logger, now })).toEqual({ delivered: 0, retried: 0, failed: 0, dropped: 0 });

    expect(hook.got).toHaveLength(1);
    const { headers, body } = hook.got[0]!;
    expect(signedWith(SECRET, { headers, body })).toBe(true);
    expect(JSON.parse(body)).toMatchObject({
      id: 'transfer_failed:transfer:7',
      event: 'transfer_failed',
      severity: 'critical',
      summary: failed.summary,
      payload: failed.payload,
    });
    expect(headers['x-ballast-delivery']).toBe('transfer_failed:transfer:7');
    expect(slack.got).toHaveLength(1);
    expect(JSON.parse(slack.got[0]!.body).text).toBe('[CRITICAL] transfer_failed: USDC base -&gt; arbitrum failed');
    expect(await count('ops', 'delivered')).toBe(1);
    expect(await count('chat', 'delivered')).toBe(1);
    expect((await listNotifications(db, 10)).every((r) => r.status === 'delivered')).toBe(true);
  });

  it('retries a 500 after the backoff and delivers once', async () => {
    const hook = await receiver([500, 200]);
    const config = settings([sink('ops', 'webhook', hook.url)]);
    const deps = { db, config, metrics, logger, now };
    await notify({ db, now, config: { notify: config }, logger }, failed);
    expect(await dispatchNotifications(deps)).toMatchObject({ delivered: 0, retried: 1 });
    clock += 29_000;
    expect(await dispatchNotifications(deps)).toMatchObject({ delivered: 0, retried: 0 }); // not due before 30 s
    clock += 1_000;
    expect(await dispatchNotifications(deps)).toMatchObject({ delivered: 1, retried: 0 });
    expect(hook.got).toHaveLength(2);
    expect(JSON.parse(hook.got[0]!.body).id).toBe(JSON.parse(hook.got[1]!.body).id);
    const [stored] = await listNotifications(db, 1);
    expect(stored).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(await count('ops', 'retry')).toBe(1);
    expect(await count('ops', 'delivered')).toBe(1);
  });

  it('PagerDuty: a 429 is retried and the event delivered once; an event refused with 400 is not sent again', async () => {
    const pd = await startLocalPagerDuty();
    closers.push(() => pd.close());
    pd.answerNext(429);
    const config = settings([
      sink('pager', 'pagerduty', pd.url, { source: 'ballast' }),
      sink('bad', 'pagerduty', pd.url, { routingKey: 'short' }),
    ]);
    const deps = { db, config, metrics, logger, now };
    await notify({ db, now, config: { notify: config }, logger }, failed);
    const first = await dispatchNotifications({ ...deps, config: { ...config, concurrency: 1 } });
    expect(first).toMatchObject({ delivered: 0, retried: 1, failed: 1 }); // 429 to the first, 400 to the second
    const rows = new Map((await listNotifications(db, 10)).map((r) => [r.sink, r]));
    expect(rows.get('bad')).toMatchObject({ status: 'failed', attempts: 1 });
    expect(rows.get('bad')!.lastError).toContain('HTTP 400, not retried: {"status":"invalid event"');
    expect(rows.get('bad')!.lastError).toContain("Length of 'routing_key' is incorrect");
    expect(rows.get('pager')).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 429' });
    clock += 30_000;
    expect(await dispatchNotifications(deps)).toMatchObject({ delivered: 1, retried: 0, failed: 0 });
    expect(await dispatchNotifications(deps)).toMatchObject({ delivered: 0, retried: 0, failed: 0 });
    expect(pd.requests.map((r) => r.status)).toEqual([429, 400, 202]);
    expect(pd.events).toHaveLength(1);
    expect(pd.incidents()).toMatchObject([
      {
        dedupKey: 'transfer_failed:transfer:7',
        status: 'triggered',
        triggers: 1,
        payload: { severity: 'error', class: 'transfer_failed' },
      },
    ]);
    expect(await count('pager', 'delivered')).toBe(1);
    expect(await count('bad', 'failed')).toBe(1);
  });

  it('gives a dead sink up after maxAttempts; a sink that never answers times out', async () => {
    const hang = await receiver(['hang', 'hang']);
    const config = settings([sink('refused', 'webhook', await closedUrl()), sink('hang', 'slack', hang.url)], {
      maxAttempts: 2,
      timeoutMs: 300,
    });
    const deps = { db, config, metrics, logger, now };
    await notify({ db, now, config: { notify: config }, logger }, failed);
    const started = Date.now();
    expect(await dispatchNotifications(deps)).toMatchObject({ retried: 2 });
    expect(Date.now() - started).toBeLessThan(2_000);
    clock += 30_000;
    expect(await dispatchNotifications(deps)).toMatchObject({ failed: 2 });
    const rows = new Map((await listNotifications(db, 10)).map((r) => [r.sink, r]));
    expect(rows.get('refused')).toMatchObject({ status: 'failed', attempts: 2, lastError: 'connection failed (ECONNREFUSED)' });
    expect(rows.get('hang')).toMatchObject({ status: 'failed', attempts: 2, lastError: 'timed out after 300 ms' });
    expect(await count('hang', 'failed')).toBe(1);
  });

  it('runs passes on its own timer, and stop() aborts a hanging request at once', async () => {
    const ok = await receiver([200]);
    const hang = await receiver(['hang']);
    const config = settings([sink('ok', 'webhook', ok.url), sink('hang', 'slack', hang.url)], { everySec: 1, timeoutMs: 30_000 });
    const dispatcher = startNotificationDispatcher({ db, config, metrics, logger, now });
    await notify({ db, now, config: { notify: config }, logger }, failed);
    await expect.poll(() => ok.got.length + hang.got.length, { timeout: 5_000 }).toBe(2);
    await expect.poll(() => count('ok', 'delivered'), { timeout: 5_000 }).toBe(1);
    const stopping = Date.now();
    await dispatcher.stop();
    expect(Date.now() - stopping).toBeLessThan(2_000);
    const rows = new Map((await listNotifications(db, 10)).map((r) => [r.sink, r]));
    expect(rows.get('ok')).toMatchObject({ status: 'delivered' });
    expect(rows.get('hang')).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: 'aborted before an answer (shutdown or flush deadline)',
    });
  });

  it('returns from notify at once while the sink hangs; a flush ends by its deadline', async () => {
    const hang = await receiver(['hang']);
    const config = settings([sink('hang', 'webhook', hang.url)], { timeoutMs: 10_000 });
    const deps = { db, config, metrics, logger, now };
    const flushing = flushNotifications(deps, 60_000); // nothing queued yet: returns at once
    expect(await flushing).toEqual({ delivered: 0, retried: 0, failed: 0, dropped: 0 });
    const started = Date.now();
    for (let i = 0; i < 20; i++) await notify({ db, now, config: { notify: config }, logger }, { ...failed, subject: `transfer:${i}` });
    expect(Date.now() - started).toBeLessThan(config.timeoutMs / 2); // queued without waiting on the sink
    const flushStarted = Date.now();
    const report = await flushNotifications({ ...deps, config: { ...config, concurrency: 1, batchSize: 1 } }, 500);
    expect(Date.now() - flushStarted).toBeLessThan(3_000);
    expect(report.delivered).toBe(0);
    expect(hang.got.length).toBeGreaterThanOrEqual(1);
  });
});
