/**
 * Notifications on a real cycle (sandbox + anvil): a spending limit refuses both planned transfers of a route two
 * cycles running; the `spending_limit_hit` event reaches a real HTTP receiver on 127.0.0.1 exactly once, signed so
 * that the protocol's verifier accepts it. A second sink that never answers holds a delivery in flight while a
 * cycle runs: the cycle never contacts a sink and finishes while that request still hangs. `ballast run --once`
 * delivers what its cycle queued before it exits, within its short deadline, with the exit code unchanged.
 */
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generatePrivateKey } from 'viem/accounts';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { flushNotifications } from '../../packages/ballast/src/notify/dispatcher.ts';
import { listNotifications } from '../../packages/ballast/src/store/notifications.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir } from './helpers/sandboxBallast.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { runCli } from './helpers/cli.ts';
import { closeReceivers, receiver, signedWith, type Receiver } from './helpers/notifyReceiver.ts';

const SECRET = 'e2e-notify-secret-0123456789';
const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-notify-');
beforeEach(async () => {
  sandbox = await sandboxes.start({});
});
afterAll(() => tmp.cleanup());

afterEach(closeReceivers);

function limitedSetup(ops: Receiver, dead: Receiver) {
  return ballastOnSandbox(
    sandbox,
    tmp.dir,
    {
      wallets: { ops: { vm: 'evm', privateKey: generatePrivateKey() } },
      assets: {
        USDC: [
          { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
          { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '20000', target: '30000', max: '45000' },
          { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'ops', min: '100', target: '1000', max: '5000' },
        ],
      },
      policy: { limits: { maxTransferUsd: '1' } },
      notify: {
        sinks: {
          ops: { kind: 'webhook', url: ops.url, secret: '${NOTIFY_SECRET}', events: ['spending_limit_hit', 'transfer_failed'] },
          dead: { kind: 'slack', url: dead.url, minSeverity: 'warning' },
        },
        timeoutMs: 60_000,
      },
    },
    { NOTIFY_SECRET: SECRET },
  );
}

it('run --once delivers what it queued before exiting, within its deadline, exit code unchanged', async () => {
  const ops = await receiver('ok');
  const dead = await receiver('hang');
  const { ballast, configFile, store } = limitedSetup(ops, dead);
  await ballast.close();
  const started = Date.now();
  const cli = await runCli(['run', '--once', '--json', '--config', configFile], {
    env: { ...sandboxEnv(sandbox, store), NOTIFY_SECRET: SECRET },
  });
  expect(cli.code).toBe(3); // refused, as without notify:
  expect(JSON.parse(cli.stdout).outcome).toBe('refused');
  expect(ops.got.map((r) => JSON.parse(r.body).event)).toEqual(['spending_limit_hit']);
  expect(dead.got).toHaveLength(1); // tried, still hanging when the run gave up waiting (5 s, not the 60 s timeout)
  expect(Date.now() - started).toBeLessThan(40_000);
});

/**
 * A sink that never answers, until `cutOff()` closes the connections it holds without an answer (what a timeout
 * of the request does to the sender): the test ends a flush's wait when it has seen what it needs, instead of at the
 * flush's deadline.
 */
async function hangingSink(): Promise<Receiver & { cutOff(): void }> {
  const got: Receiver['got'] = [];
  const server = createServer((req) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sinks.push(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    cutOff: () => server.closeAllConnections(),
  };
}
const sinks: Server[] = [];
afterEach(async () => {
  for (const s of sinks.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

it('a limit hit two cycles running reaches the receiver once, signed; a hanging sink does not hold a cycle', async () => {
  const ops = await receiver('ok');
  const dead = await hangingSink();
  const { ballast } = limitedSetup(ops, dead);
  try {
    const first = await ballast.runCycle('once');
    expect(first.attempts.map((a) => a.outcome)).toEqual(['skipped_limit', 'skipped_limit']);
    expect(ops.got).toHaveLength(0); // the cycle only queues
    const deps = ballast.notifyDispatch!;
    expect(deps).not.toBeNull();

    // The dead sink's request hangs (the flush would wait up to its 12 s deadline) while the next cycle runs.
    let flushedAt = 0;
    const flushing = flushNotifications(deps, 12_000).then((r) => {
      flushedAt = Date.now();
      return r;
    });
    await expect.poll(() => dead.got.length, { timeout: 10_000 }).toBe(1);
    const second = await ballast.runCycle('once');
    const cycleEndedAt = Date.now();
    expect(second.attempts.map((a) => a.outcome)).toEqual(['skipped_limit', 'skipped_limit']);
    expect(flushedAt).toBe(0); // the hanging request is still open after the cycle finished
    dead.cutOff(); // the request fails unanswered, as at the deadline: the dead sink's event stays pending
    const report = await flushing;
    expect(flushedAt).toBeGreaterThan(cycleEndedAt);
    expect(report.delivered).toBe(1);

    // Two cycles, four refused transfers on one route: one event, delivered once, verified.
    await flushNotifications(deps, 5_000);
    expect(ops.got).toHaveLength(1);
    const { headers, body } = ops.got[0]!;
    expect(signedWith(SECRET, { headers, body })).toBe(true);
    const sent = JSON.parse(body) as { event: string; severity: string; payload: Record<string, unknown> };
    expect(sent.event).toBe('spending_limit_hit');
    expect(sent.severity).toBe('warning');
    expect(sent.payload).toMatchObject({ asset: 'USDC', originChain: 'alpha', destinationChain: 'beta', reason: 'max_transfer_usd' });
    expect(String(sent.payload.amountIn)).toMatch(/^[0-9]+$/);

    const rows = await listNotifications(ballast.db, 10);
    expect(rows.map((r) => [r.sink, r.event, r.status]).sort()).toEqual([
      ['dead', 'spending_limit_hit', 'pending'],
      ['ops', 'spending_limit_hit', 'delivered'],
    ]);
    const metric = (await ballast.metrics.notificationsTotal.get()).values;
    expect(metric.find((v) => v.labels.sink === 'ops' && v.labels.outcome === 'delivered')?.value).toBe(1);
  } finally {
    await ballast.close();
  }
});
