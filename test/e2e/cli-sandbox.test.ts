/**
 * The operator's path through the CLI against `ballast sandbox` running as its own process:
 * plan (quotes and verifies, signs nothing) → run --once (moves funds) → history (shows the transfer).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgv, ROOT, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-cli-sandbox-');
afterAll(() => tmp.cleanup());

describe('ballast sandbox + plan + run --once + history', () => {
  it('works end to end from the printed environment', async () => {
    const store = path.join(tmp.dir, 'cli.db');
    const child = spawn(process.execPath, cliArgv(['sandbox', '--store', store]), {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const until = Date.now() + 90_000; // the sandbox compiles its contracts and starts four nodes: slow on a loaded machine
      while (!stdout.includes('export BALLAST_DEMO_STORE') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      const env = Object.fromEntries([...stdout.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
      expect(env.SANDBOX_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(stdout).toContain('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'); // treasury = anvil dev account 0
      const config = path.join(ROOT, 'packages/ballast/config/demo.yaml');
      const alpha = createPublicClient({ transport: http(env.SANDBOX_ALPHA_RPC) });
      const treasury = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
      const nonceBefore = await alpha.getTransactionCount({ address: treasury });

      const plan = await runCli(['plan', '--json', '--config', config], { env });
      expect(plan.code, plan.stderr).toBe(0);
      const planned = JSON.parse(plan.stdout) as {
        plan: { transfers: { amountIn: string }[] };
        attempts: { outcome: string; verdict: { ok: boolean } }[];
      };
      // USDC alpha → beta and alpha → Solana (20 000 each), BTC Bitcoin → alpha (0.0498).
      expect(planned.plan.transfers.map((t) => t.amountIn).sort()).toEqual(['20000000000', '20000000000', '4980000']);
      expect(planned.attempts.map((a) => [a.outcome, a.verdict.ok])).toEqual([
        ['quoted', true],
        ['quoted', true],
        ['quoted', true],
      ]);
      expect(await alpha.getTransactionCount({ address: treasury })).toBe(nonceBefore); // plan signs nothing

      const run = await runCli(['run', '--once', '--config', config], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('success');
      expect(await alpha.getTransactionCount({ address: treasury })).toBe(nonceBefore + 4); // approve + deposit, twice

      const history = await runCli(['history', '--json', '--config', config], { env });
      expect(history.code, history.stderr).toBe(0);
      const rows = JSON.parse(history.stdout) as { status: string; amountIn: string; txs: { txHash: string }[] }[];
      expect(rows).toHaveLength(3);
      expect(rows.map((r) => r.status)).toEqual(['success', 'success', 'success']);
      expect(rows.map((r) => r.txs.length).sort()).toEqual([1, 2, 2]); // the Bitcoin deposit is one transaction

      const again = await runCli(['run', '--once', '--config', config], { env });
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('nothing to move');
    } finally {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    expect(child.exitCode).toBe(0);
  }, 180_000);
});
