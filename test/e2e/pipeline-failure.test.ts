/**
 * After a request ends `failure` its deposit stays in the depository: the route is paused (no second deposit
 * for the same need, cycle after cycle), metered and logged, until an operator resolves the failure with
 * `ballast resume`; then the route is planned again.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

const USDC = 1_000_000n;
const tmp = tempDir('ballast-failure-');
let sandbox: Sandbox | null = null;

afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

describe('a failed deposit pauses its route', () => {
  it('deposits once, pauses the route while the failure is unresolved, and plans it again after `ballast resume`', async () => {
    sandbox = await startSandbox({ faults: { failure: true, fillDelayMs: 0 } });
    const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir);
    try {
      const first = await ballast.runCycle('once');
      expect(first.attempts.map((a) => a.outcome)).toEqual(['failure']);
      const [failed] = await listRecentTransfers(ballast.db, 10);
      expect(failed!.status).toBe('failure');
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC); // the deposit sits in the depository

      // The deficit on beta is still open, but the route is paused: nothing is signed, however often it runs.
      const nonce = await treasuryNonce(sandbox, 'alpha');
      for (let i = 0; i < 2; i++) {
        const again = await ballast.runCycle('once');
        expect(again.plan.transfers).toHaveLength(0);
        const paused = again.plan.decisions.filter((d) => d.kind === 'route_paused');
        expect(paused).toHaveLength(1);
        expect(paused[0]!.detail).toContain(`transfer(s) ${failed!.id} ended in failure`);
      }
      expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
      expect(await ballast.metrics.registry.metrics()).toMatch(/ballast_routes_paused 1/);

      // The operator deals with the parked deposit (withdrawal is a tool of its own) and resumes the route.
      const env = sandboxEnv(sandbox, store);
      // The resume itself as a real process; the usage error and the second resume in this process.
      const usage = await runCliInProcess(['resume', '--config', configFile, '--transfer', String(failed!.id), '--note', ' '], { env });
      expect(usage.code).toBe(2);
      const resumed = await runCli(['resume', '--config', configFile, '--transfer', String(failed!.id), '--note', 'withdrawn by ops'], {
        env,
      });
      expect(resumed.code).toBe(0);
      const twice = await runCliInProcess(['resume', '--config', configFile, '--transfer', String(failed!.id), '--note', 'again'], { env });
      expect(twice.code).toBe(1);
      expect(twice.stderr).toContain('already resolved');

      sandbox.setFaults({ failure: false });
      const after = await ballast.runCycle('once');
      expect(after.attempts.map((a) => a.outcome)).toEqual(['success']);
      expect(after.plan.decisions.some((d) => d.kind === 'route_paused')).toBe(false);
      const history = await listRecentTransfers(ballast.db, 10);
      expect(history.map((t) => t.status)).toEqual(['success', 'failure']);
      expect(history[1]!.events.at(-1)!.detail).toBe('resolved by the operator: withdrawn by ops');
    } finally {
      await ballast.close();
    }
  });
});
