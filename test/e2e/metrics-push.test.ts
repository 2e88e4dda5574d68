/**
 * One-shot metrics of `ballast run --once`: pushed to a real Pushgateway (/usr/bin/prometheus-pushgateway on a
 * loopback port) under the job and instance grouping labels, and written atomically as a node_exporter textfile
 * that promtool accepts. A failed export prints one warning line per export and leaves the exit code alone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { freePort } from './helpers/freePort.ts';

const tmp = tempDir('ballast-metrics-push-');
let sandbox: Sandbox | null = null;
let gateway: ChildProcess | null = null;
afterAll(async () => {
  gateway?.kill('SIGTERM');
  await sandbox?.stop();
  tmp.cleanup();
});

async function startPushgateway(): Promise<string> {
  const port = await freePort();
  gateway = spawn('/usr/bin/prometheus-pushgateway', [`--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return url;
    if (Date.now() > until) throw new Error('pushgateway did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Lines of `text` for metric `name` that carry every one of `labels` (any order). */
function series(text: string, name: string, labels: string[]): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) && labels.every((x) => l.includes(x)));
}

describe('run --once metrics export', () => {
  it('pushes to the Pushgateway with job/instance grouping and writes a valid textfile; failures only warn', async () => {
    sandbox = await startSandbox({});
    const pushgateway = await startPushgateway();
    const store = path.join(tmp.dir, 'push.db');
    const configFile = path.join(tmp.dir, 'push.yaml');
    writeFileSync(configFile, stringify({ ...demoConfigFor(sandbox), tracking: { pollMs: 200, timeoutSec: 60 } }));
    const env = sandboxEnv(sandbox, store);
    const textfile = path.join(tmp.dir, 'ballast.prom');

    const run = await runCli(
      [
        'run',
        '--once',
        '--config',
        configFile,
        '--pushgateway',
        pushgateway,
        '--push-job',
        'ballast-e2e',
        '--push-instance',
        'host-a',
        '--metrics-textfile',
        textfile,
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('warning');

    const pushed = await (await fetch(`${pushgateway}/metrics`)).text();
    const group = ['job="ballast-e2e"', 'instance="host-a"'];
    expect(series(pushed, 'ballast_cycles_total', [...group, 'outcome="ok"']).map((l) => l.split(' ').pop())).toEqual(['1']);
    expect(series(pushed, 'ballast_transfers_total', [...group, 'outcome="success"', 'asset="USDC"'])).toHaveLength(1);
    expect(series(pushed, 'ballast_balance_units', [...group, 'chain="beta"', 'asset="USDC"'])).toHaveLength(1);
    expect(series(pushed, 'ballast_last_cycle_timestamp_seconds', group)).toHaveLength(1);
    expect(series(pushed, 'push_time_seconds', group)).toHaveLength(1);
    expect(series(pushed, 'process_cpu_seconds_total', group)).toEqual([]); // only ballast_* metrics are exported

    const written = readFileSync(textfile, 'utf8');
    expect(written).toContain('ballast_cycles_total{outcome="ok"} 1');
    expect(written).not.toContain('process_cpu_seconds_total');
    const check = spawnSync('promtool', ['check', 'metrics'], { input: written, encoding: 'utf8' });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
    expect(readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    // Nothing to move now (exit 0); both exports fail and each prints one warning line. The CLI's main() in this
    // process (the run above is the real process).
    const closed = await freePort();
    const again = await runCliInProcess(
      [
        'run',
        '--once',
        '--config',
        configFile,
        '--pushgateway',
        `http://127.0.0.1:${closed}`,
        '--metrics-textfile',
        path.join(tmp.dir, 'missing', 'x.prom'),
      ],
      { env },
    );
    expect(again.code, again.stderr).toBe(0);
    const warnings = again.stderr.split('\n').filter((l) => l.startsWith('ballast: warning:'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(`pushing metrics to http://127.0.0.1:${closed} failed`);
    expect(warnings[1]).toContain('missing/x.prom: cannot write (ENOENT)');
    expect(warnings.every((w) => w.endsWith('(exit code unchanged)'))).toBe(true);
  }, 180_000);
});
