/**
 * `run --once` beside a daemon on the same SQLite store: while the daemon waits between cycles (the run lock is
 * free then) a one-shot is refused with exit 4 and one line naming the daemon's pid and host, and does nothing;
 * `--force` runs it all the same; once the daemon has stopped, its record is gone and a one-shot runs. No chain is
 * reachable and the Relay API answers every call 500 (an error no client retries, so a one-shot that runs fails its
 * cycle at once, exit 1, instead of after the backoff a refused connection gets).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgv, ROOT, runCliInProcess } from './helpers/cli.ts';
import { offlineConfig } from './helpers/offlineConfig.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ballast-run-daemon-'));
/** The Relay API: every call answers 500. */
let relayCalls = 0;
const relay = createServer((_req, res) => {
  relayCalls++;
  res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"down for the test"}');
});
beforeAll(() => new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve)));
afterAll(async () => {
  relay.closeAllConnections();
  await new Promise((resolve) => relay.close(resolve));
  rmSync(tmp, { recursive: true, force: true });
});

const ENV = { BETA_RPC: 'http://127.0.0.1:9/rpc' }; // a closed port

describe('run --once while a daemon runs on the same store', () => {
  it('is refused (exit 4) between the daemon cycles unless --force, and runs once the daemon has stopped', async () => {
    // A daemon whose next cycle is months away, its metrics on any free port.
    const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const { dir, config } = await offlineConfig(
      tmp,
      'store',
      (y) => `${y.replace(/^  baseUrl: .*$/m, `  baseUrl: ${relayUrl}`)}schedule: "0 0 1 1 *"\nmetrics: {listen: "127.0.0.1:0"}\n`,
    );
    expect(readFileSync(config, 'utf8')).toContain(`baseUrl: ${relayUrl}`);
    const record = path.join(dir, 'data/ballast.db.daemon');
    const daemon = spawn(process.execPath, cliArgv(['daemon', '--config', config]), {
      cwd: ROOT,
      env: { ...process.env, ...ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    daemon.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => daemon.on('close', resolve));
    try {
      const until = Date.now() + 30_000;
      while (!stderr.includes('daemon started') && daemon.exitCode === null && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      expect(stderr).toContain('daemon started');
      expect(existsSync(record)).toBe(true);

      const refused = await runCliInProcess(['run', '--once', '--config', config], { env: ENV });
      expect(refused.code).toBe(4);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain(`a daemon runs on this store (pid ${daemon.pid} on ${hostname()}`);
      expect(refused.stderr).toContain('--force');

      expect(relayCalls).toBe(0);
      const forced = await runCliInProcess(['run', '--once', '--force', '--config', config], { env: ENV });
      expect(forced.code).toBe(1); // the cycle ran and met the failing Relay API
      expect(relayCalls).toBeGreaterThan(0);
      expect(forced.stderr).not.toContain('a daemon runs on this store');
    } finally {
      daemon.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(existsSync(record)).toBe(false);
    const after = await runCliInProcess(['run', '--once', '--config', config], { env: ENV });
    expect(after.code).toBe(1);
    expect(after.stderr).not.toContain('a daemon runs on this store');
  });
});
