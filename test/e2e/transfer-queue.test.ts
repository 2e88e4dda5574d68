/**
 * `ballast transfer --queue` while another process holds the run lock (a running daemon): the request is queued in
 * the store, and the lock holder runs it after its next cycle through the same pipeline, recording how it ended;
 * `--wait` reports that outcome. A request the holder cannot do ends `refused`, one it could not run `failed`; one
 * left `taken` by a process that died is never run again.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { enqueueTransferRequest, getTransferRequest } from '../../packages/ballast/src/store/transferRequests.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-queue-');
beforeEach(async () => {
  sandbox = await sandboxes.start({});
});
afterAll(() => tmp.cleanup());

/** The "daemon" (an in-process instance) and what the CLI needs to reach the same config and store. */
function setup() {
  const out = ballastOnSandbox(sandbox, tmp.dir);
  sandboxes.closeAfter(() => out.ballast.close());
  return { ...out, env: sandboxEnv(sandbox, out.store) };
}

const transfer = (configFile: string, ...extra: string[]) => [
  'transfer',
  '--from',
  'alpha:USDC',
  '--to',
  'beta:USDC',
  '--config',
  configFile,
  ...extra,
];

describe('ballast transfer --queue', () => {
  it('queues while the daemon holds the lock; the daemon runs it after its cycle and --wait reports success', async () => {
    const { ballast, configFile, env } = setup();
    // While the lock is held, a direct transfer exits 4; a queued one is accepted at once. Both call the CLI's main()
    // in this process (the lock knows its holder is alive); the request waited for below is a real CLI process.
    const queued = await ballast.exclusive(async () => {
      const direct = await runCliInProcess(transfer(configFile, '--amount', '1000'), { env });
      expect(direct.code, direct.stderr).toBe(4);
      return runCliInProcess(transfer(configFile, '--amount', '1000', '--queue'), { env });
    });
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toMatch(/^queued as transfer request 1:/);
    expect((await getTransferRequest(ballast.db, 1))?.state).toBe('pending');

    // A second request, waited for while the daemon's next cycle runs.
    const waiting = runCli(transfer(configFile, '--amount', '2500', '--queue', '--wait', '90'), { env, timeoutMs: 120_000 });
    while ((await getTransferRequest(ballast.db, 2)) === undefined) await new Promise((r) => setTimeout(r, 100));
    const alphaBefore = await usdcBalance(sandbox, 'alpha');
    const report = await ballast.runCycle('daemon');
    // The cycle's own rebalance (beta was short): deposited, its fill tracked in the background after the cycle.
    expect(report.attempts.map((a) => a.outcome)).toEqual(['in_flight']);
    const waited = await waiting;
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/transfer request 2: done \(success\): transfer \d+: success/);
    for (const id of [1, 2]) {
      const r = await getTransferRequest(ballast.db, id);
      expect([r?.state, r?.outcome]).toEqual(['done', 'success']);
      expect(r?.cycleId).toBeGreaterThan(report.cycleId); // each ran as its own one-transfer cycle, after the daemon's
    }
    // The cycle's 20 000 USDC and the queued 1 000 + 2 500 left alpha (amounts on which the deposit's gas, which
    // the fee policy counts, stays within the demo's 30 bps).
    expect(alphaBefore - (await usdcBalance(sandbox, 'alpha'))).toBe(23_500_000_000n);
    const history = await runCliInProcess(['history', '--json', '--raw', '--db', env.BALLAST_DEMO_STORE!]);
    const rows = JSON.parse(history.stdout) as { amountIn: string; status: string }[];
    expect(rows.map((r) => [r.amountIn, r.status]).sort()).toEqual([
      ['1000000000', 'success'],
      ['20000000000', 'success'],
      ['2500000000', 'success'],
    ]);
  }, 240_000);

  it('refuses what the daemon cannot do, with the reason, and checks the holdings before queueing', async () => {
    const { ballast, configFile, env } = setup();
    const unknown = await runCliInProcess(
      ['transfer', '--from', 'gamma:USDC', '--to', 'beta:USDC', '--amount', '1', '--queue', '--config', configFile],
      { env },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--from gamma:USDC: no such holding under assets:/);
    expect(await getTransferRequest(ballast.db, 1)).toBeUndefined();

    // USDC has 6 decimals: only the daemon, which resolves them, can tell; it refuses and nothing is sent.
    const queued = await runCliInProcess(transfer(configFile, '--amount', '0.0000001', '--queue'), { env });
    expect(queued.code, queued.stderr).toBe(0);
    await ballast.runCycle('once');
    const r = await getTransferRequest(ballast.db, 1);
    expect(r?.state).toBe('refused');
    expect(r?.detail).toMatch(/--amount 0.0000001: .*at most 6 decimals/);
  }, 180_000);

  it('marks a request that could not be run failed, goes on with the next, and sends nothing', async () => {
    // Every API call answers 500, an error the client does not retry (the sandbox's 503 burst would be waited out at
    // each of its retries, seconds per call): GET /chains fails.
    const down = createServer((_req, res) => res.writeHead(500).end('{"message":"internal error"}'));
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    sandboxes.closeAfter(() => {
      down.closeAllConnections();
      return new Promise((resolve) => down.close(() => resolve()));
    });
    const baseUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
    const out = ballastOnSandbox(sandbox, tmp.dir, { relay: { chainsCacheSec: 0, baseUrl } });
    sandboxes.closeAfter(() => out.ballast.close());
    const { ballast } = out;
    for (const amount of ['5', '6']) {
      await enqueueTransferRequest(ballast.db, {
        fromRef: 'alpha:USDC',
        toRef: 'beta:USDC',
        amount,
        requestedBy: 'ops@host',
        requestedAtMs: Date.now(),
      });
    }
    const before = await usdcBalance(sandbox, 'alpha');
    const report = await ballast.runCycle('once');
    expect(report.outcome).toBe('error');
    for (const id of [1, 2]) {
      const r = await getTransferRequest(ballast.db, id);
      expect(r?.state).toBe('failed');
      expect(r?.detail).toMatch(/^could not be run: .*500.*; see ballast history, and queue it again if nothing was broadcast$/);
    }
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before);
  }, 180_000);

  it('never runs again a request a stopped process left taken', async () => {
    const { ballast } = setup();
    await ballast.db.run(
      `INSERT INTO transfer_requests (from_ref, to_ref, amount, requested_by, requested_at_ms, state) VALUES ('alpha:USDC', 'beta:USDC', '5', 'ops@host', 1, 'taken')`,
    );
    const before = await usdcBalance(sandbox, 'alpha');
    const report = await ballast.runCycle('once');
    const r = await getTransferRequest(ballast.db, 1);
    expect(r?.state).toBe('abandoned');
    expect(r?.detail).toMatch(/not run again/);
    // Only the cycle's own transfer left alpha.
    expect(before - (await usdcBalance(sandbox, 'alpha'))).toBe(report.attempts[0]!.planned.amountIn);
  }, 180_000);
});
