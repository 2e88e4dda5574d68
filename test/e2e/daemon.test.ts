/**
 * `ballast daemon` as a process: it serves /metrics (valid for promtool) and /healthz, holds the run lock
 * during a cycle so `run --once` refuses to act at the same time, and on SIGTERM parks the transfer it is
 * tracking (left in flight in SQLite) and exits 0.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { cliArgv, ROOT, runCliInProcess } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { freePort } from './helpers/freePort.ts';

const tmp = tempDir('ballast-daemon-');
let sandbox: Sandbox | null = null;
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
});

async function waitFor<T>(what: string, fn: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('ballast daemon', () => {
  it('serves metrics, refuses run --once (and shares the run lock with run --once --force), and parks on SIGTERM', async () => {
    sandbox = await startSandbox({ faults: { fillDelayMs: 60_000 } });
    const port = await freePort();
    const store = path.join(tmp.dir, 'daemon.db');
    const doc = demoConfigFor(sandbox);
    const configFile = path.join(tmp.dir, 'daemon.yaml');
    writeFileSync(
      configFile,
      stringify({ ...doc, schedule: '0 0 1 1 *', metrics: { listen: `127.0.0.1:${port}` }, tracking: { pollMs: 200, timeoutSec: 120 } }),
    );
    const env = { ...process.env, ...sandboxEnv(sandbox, store) };
    // A queued manual transfer: the daemon runs it under the run lock after its first cycle, and waits for its fill.
    // The daemon is the real process under test; the one-shot commands call the CLI's main() in this process.
    const queued = await runCliInProcess(
      ['transfer', '--from', 'alpha:USDC', '--to', 'beta:USDC', '--amount', '1000', '--queue', '--config', configFile],
      { env: sandboxEnv(sandbox, store) },
    );
    expect(queued.code, queued.stderr).toBe(0);
    const child = spawn(process.execPath, cliArgv(['daemon', '--run-at-start', '--log-level', 'info', '--config', configFile]), {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // The cycle deposits and leaves its fill (a minute away) to a tracker in the background; the queued transfer
      // then deposits and is tracked under the run lock: the daemon holds the lock.
      const tracked = () => stderr.split('deposit confirmed; tracking the fill').length - 1;
      await waitFor('both deposits to be tracked', async () => (tracked() >= 2 ? true : null));
      expect(stderr).toContain('fills tracked in the background');
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { detail: { status: string } }).detail.status).toBe('alive');
      // A run is going on (the queued transfer: none finished yet): within the start-up grace of 3 schedule intervals, so ready.
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      const { detail } = (await ready.json()) as { detail: { ready: boolean; storeOpen: boolean; lastCycleAgeSeconds: number | null } };
      expect([ready.status, detail.ready, detail.storeOpen, detail.lastCycleAgeSeconds]).toEqual([200, true, true, null]);

      // run --once sees the daemon on its store and does nothing; with --force it meets the run lock the daemon holds.
      const polite = await runCliInProcess(['run', '--once', '--config', configFile], { env: sandboxEnv(sandbox, store) });
      expect(polite.code).toBe(4);
      expect(polite.stderr).toMatch(/a daemon runs on this store \(pid \d+ on /);
      const once = await runCliInProcess(['run', '--once', '--force', '--config', configFile], { env: sandboxEnv(sandbox, store) });
      expect(once.code).toBe(4);
      expect(once.stderr).toContain('run lock');
      expect(once.stderr).toMatch(/pid \d+ on .+, since .+, lease until /);

      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/ballast_balance_base_units\{chain="beta",asset="USDC",wallet="treasury"\} 10000000000/);
      expect(metrics).toMatch(/ballast_quotes_total\{[^}]*\} 2/); // the cycle's transfer and the queued one
      expect(metrics).toMatch(/^ballast_build_info\{version="[^"]+",commit="[^"]+"\} 1$/m);
      expect(metrics).toMatch(/^ballast_balance_units\{chain="beta",asset="USDC",wallet="treasury"\} 10000$/m);
      expect(metrics).toMatch(/^ballast_gas_balance_units\{chain="alpha",wallet="treasury"\} \d/m);
      expect(metrics).toMatch(/^ballast_quote_duration_seconds_count 2$/m);
      // promtool reads the exposition from stdin and exits non-zero on any problem.
      execFileSync('promtool', ['check', 'metrics'], { input: metrics });

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const db = new Database(store, { readonly: true });
    try {
      const transfers = db.prepare('SELECT status FROM transfers').all() as { status: string }[];
      // Both parked in flight (the background tracker and the queued run stopped on SIGTERM), to be closed later.
      expect(transfers).toEqual([{ status: 'deposited' }, { status: 'deposited' }]);
      const cycles = db.prepare('SELECT mode, finished_at_ms FROM cycles ORDER BY id').all() as {
        mode: string;
        finished_at_ms: number | null;
      }[];
      expect(cycles.map((c) => c.mode)).toEqual(['daemon', 'once']); // the queued transfer runs as a one-transfer cycle
      expect(cycles.every((c) => c.finished_at_ms !== null)).toBe(true);
      const lock = db.prepare('SELECT COUNT(*) AS n FROM run_lock').get() as { n: number };
      expect(lock.n).toBe(0);
    } finally {
      db.close();
    }
    expect(stderr).toContain('stopped');
  }, 150_000);
});
