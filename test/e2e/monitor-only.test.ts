/**
 * Monitor-only mode on the sandbox: a cycle plans, quotes, verifies and judges the limits like a normal one, signs
 * nothing (no transfer row, no transaction, balances and nonce unchanged), reports what it would have done in
 * `ballast_monitor_*` and its log, refuses actions that sign; the normal mode then executes the same plan.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createBallast } from '../../packages/ballast/src/app/createBallast.ts';
import { loadConfig } from '../../packages/ballast/src/config/loadConfig.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { ballastOnSandbox, memoryLogger, sandboxPerTest, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-monitor-');
beforeEach(async () => {
  sandbox = await sandboxes.start({});
});
afterAll(() => tmp.cleanup());

/** What a plan moves: asset, route and amount per planned transfer. */
const routes = (attempts: readonly { planned: { asset: string; from: { chain: string }; to: { chain: string }; amountIn: bigint } }[]) =>
  attempts.map((a) => `${a.planned.asset} ${a.planned.from.chain}→${a.planned.to.chain} ${a.planned.amountIn}`);

async function chainState() {
  return {
    alpha: await usdcBalance(sandbox, 'alpha'),
    beta: await usdcBalance(sandbox, 'beta'),
    nonce: await treasuryNonce(sandbox, 'alpha'),
  };
}

describe('monitor-only mode', () => {
  it('signs nothing while reporting the plan that the normal mode then executes', async () => {
    const { ballast, config } = ballastOnSandbox(sandbox, tmp.dir);
    sandboxes.closeAfter(() => ballast.close());
    const logs = memoryLogger();
    const monitor = createBallast(config, { logger: logs.logger, chainPollingIntervalMs: 50, monitorOnly: true });
    sandboxes.closeAfter(() => monitor.close());
    expect(monitor.mode).toBe('monitor');
    expect(monitor.leadership).toBeNull();

    const before = await chainState();
    const watched = await monitor.runCycle('daemon');
    expect(watched.mode).toBe('plan');
    expect(watched.outcome).toBe('ok');
    expect(watched.attempts.length).toBeGreaterThan(0);
    expect(watched.attempts.map((a) => a.outcome)).toEqual(watched.attempts.map(() => 'quoted'));
    expect(watched.attempts.every((a) => a.verdict?.ok === true && a.fee?.accepted === true)).toBe(true);
    // Nothing signed or sent: no transfer row, no transaction on chain, balances as they were.
    expect(await listRecentTransfers(monitor.db, 10)).toEqual([]);
    expect(await chainState()).toEqual(before);

    const metrics = await monitor.metrics.registry.metrics();
    for (const a of watched.attempts) {
      const labels = `asset="${a.planned.asset}",origin_chain="${a.planned.from.chain}",destination_chain="${a.planned.to.chain}"`;
      expect(metrics).toContain(`ballast_monitor_transfers_total{${labels},outcome="quoted"} 1`);
      expect(metrics).toMatch(new RegExp(`ballast_monitor_would_move_units_total\\{${labels}\\} \\d`));
    }
    expect(metrics).toMatch(/^ballast_cycles_total\{outcome="ok"\} 1$/m);
    expect(logs.lines.filter((l) => l.includes('monitor-only: would sign and send this transfer'))).toHaveLength(watched.attempts.length);
    await expect(monitor.exclusive(async () => 'signed')).rejects.toMatchObject({ code: 'MONITOR_ONLY' });

    // The normal mode, on the same store and chains, executes exactly that plan.
    const acted = await ballast.runCycle('once');
    expect(routes(acted.attempts)).toEqual(routes(watched.attempts));
    expect(acted.attempts.map((a) => a.outcome)).toEqual(watched.attempts.map(() => 'success'));
    expect((await chainState()).nonce).toBeGreaterThan(before.nonce);
  }, 120_000);

  it('reports a transfer the spending limits would refuse as skipped_limit, still signing nothing', async () => {
    const { ballast, config } = ballastOnSandbox(sandbox, tmp.dir, { policy: { limits: { killSwitch: true } } });
    await ballast.close();
    const monitor = createBallast(config, { logger: memoryLogger().logger, chainPollingIntervalMs: 50, monitorOnly: true });
    sandboxes.closeAfter(() => monitor.close());
    const watched = await monitor.runCycle('once');
    expect(watched.attempts.length).toBeGreaterThan(0);
    expect(watched.attempts.map((a) => a.outcome)).toEqual(watched.attempts.map(() => 'skipped_limit'));
    expect(watched.attempts[0]!.error).toMatch(/^kill_switch: /);
    expect(await listRecentTransfers(monitor.db, 10)).toEqual([]);
    expect(await monitor.metrics.registry.metrics()).toMatch(/ballast_monitor_transfers_total\{[^}]*outcome="skipped_limit"\} 1/);
  }, 120_000);

  it('monitorOnly: true in the config makes run --once sign nothing and withdraw refuse (exit 2)', async () => {
    const configFile = `${tmp.dir}/monitor-cli.yaml`;
    const store = `${tmp.dir}/monitor-cli.db`;
    writeFileSync(configFile, stringify({ ...demoConfigFor(sandbox), monitorOnly: true }));
    const env = sandboxEnv(sandbox, store);
    expect(loadConfig(configFile, env).monitorOnly).toBe(true);
    const before = await chainState();
    const once = await runCli(['run', '--once', '--json', '--config', configFile], { env, timeoutMs: 60_000 });
    expect(once.code, once.stderr).toBe(0);
    expect(await chainState()).toEqual(before);
    const withdraw = await runCliInProcess(['withdraw', '--config', configFile], { env }); // the CLI's main(), in process
    expect(withdraw.code).toBe(2);
    expect(withdraw.stderr).toContain('monitorOnly is set');
  }, 120_000);
});
