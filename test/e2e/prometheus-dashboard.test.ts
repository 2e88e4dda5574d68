/**
 * The dashboard and alert rules against a real Prometheus scraping a real daemon: the sandbox (anvil chains and
 * the local Relay API) with holdings out of band, `ballast daemon` cycling every 2 s with its metrics on a
 * loopback port, and /usr/bin/prometheus scraping it every 250 ms with deploy/prometheus/alerts.yml loaded.
 * Once a transfer has succeeded (fees paid) and a few scrapes have happened, every panel query of
 * deploy/grafana/ballast-dashboard.json must evaluate without error and return data, every alert rule must
 * evaluate (health ok, none firing on a healthy daemon), and every metric name they use must be in the scrape.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Dashboard } from '@grafana/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { dashboardQueries, expandVariables } from '../../deploy/grafana/queries.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { expositionMetricNames, promqlMetricNames } from '../unit/deploy/metricNames.ts';
import { cliArgv, ROOT } from './helpers/cli.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { tempDir } from './helpers/sandboxBallast.ts';
import { freePort } from './helpers/freePort.ts';

/**
 * Panel queries that cannot return data in this run, with the reason. Keep it short: prefer metrics exported
 * at 0 or `or on() vector(0)` in the dashboard.
 */
const NO_DATA_EXPECTED: Record<string, string> = {};

const ALERTS_FILE = path.join(ROOT, 'deploy/prometheus/alerts.yml');
const DASHBOARD_FILE = path.join(ROOT, 'deploy/grafana/ballast-dashboard.json');

const tmp = tempDir('ballast-prometheus-');
let sandbox: Sandbox | null = null;
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) await stop(child);
  await sandbox?.stop();
  tmp.cleanup();
});

/** SIGTERM the process by its PID, SIGKILL after 5 s, and wait until it has exited. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

async function waitFor<T>(what: string, fn: () => Promise<T | null>, timeoutMs: number, diagnostics: () => string): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${diagnostics()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function spawnLogged(cmd: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output: () => out };
}

interface PromResponse {
  status: 'success' | 'error';
  error?: string;
  data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

describe('dashboard and alerts on a live Prometheus', () => {
  it('evaluates every panel query with data, every alert rule without error, and finds every metric in the scrape', async () => {
    sandbox = await startSandbox();
    const metricsPort = await freePort();
    const promPort = await freePort();
    const store = path.join(tmp.dir, 'ballast.db');

    // Holdings out of band (config/demo.yaml on the sandbox's balances), spending limits so the budget gauges
    // exist, a gas minimum per chain so the gas minimum gauges exist.
    const doc = demoConfigFor(sandbox);
    const chains = Object.fromEntries(
      Object.entries(doc.chains as Record<string, object>).map(([name, c]) => [name, { ...c, minGasBalance: '0.001' }]),
    );
    const policy = {
      ...(doc.policy as object),
      limits: { dailyFeesUsd: '100000', dailyNotional: { USDC: '100000000' }, maxTransfersPerHour: 1000 },
    };
    const configFile = path.join(tmp.dir, 'ballast.yaml');
    writeFileSync(
      configFile,
      stringify({
        ...doc,
        chains,
        policy,
        schedule: '*/2 * * * * *',
        metrics: { listen: `127.0.0.1:${metricsPort}` },
        tracking: { pollMs: 200, timeoutSec: 60 },
      }),
    );
    const daemon = spawnLogged(
      process.execPath,
      cliArgv(['daemon', '--log-level', 'warn', '--config', configFile]), // as installed: the build when current
      {
        ...process.env,
        ...sandboxEnv(sandbox, store),
      },
    );

    const promDir = path.join(tmp.dir, 'prometheus');
    mkdirSync(promDir);
    const promConfig = path.join(promDir, 'prometheus.yml');
    writeFileSync(
      promConfig,
      stringify({
        global: { scrape_interval: '250ms', evaluation_interval: '500ms' },
        rule_files: [ALERTS_FILE],
        scrape_configs: [{ job_name: 'ballast', static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }] }],
      }),
    );
    const prometheus = spawnLogged(
      '/usr/bin/prometheus',
      [
        `--config.file=${promConfig}`,
        `--storage.tsdb.path=${path.join(promDir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      process.env,
    );
    const diagnostics = () => `daemon output:\n${daemon.output()}\nprometheus output:\n${prometheus.output()}`;

    const api = `http://127.0.0.1:${promPort}/api/v1`;
    const query = async (expr: string): Promise<PromResponse> => {
      const res = await fetch(`${api}/query`, { method: 'POST', body: new URLSearchParams({ query: expr }) });
      return (await res.json()) as PromResponse;
    };
    const value = async (expr: string): Promise<number | null> => {
      const r = await query(expr);
      const v = r.data?.result?.[0]?.value[1];
      return v === undefined ? null : Number(v);
    };

    // A transfer has succeeded and Prometheus has scraped at least 5 times since (rates and increases have points).
    await waitFor(
      'a successful transfer in Prometheus',
      async () => ((await value('sum(ballast_transfers_total{outcome="success"})')) ?? 0) >= 1 || null,
      55_000,
      diagnostics,
    );
    await waitFor(
      'five scrapes after the transfer',
      async () => ((await value('min(count_over_time(ballast_transfers_total{outcome="success"}[1m]))')) ?? 0) >= 5 || null,
      20_000,
      diagnostics,
    );

    // The transfer reached the metrics behind the fee, settle, USD and gas panels (not only zero series).
    for (const expr of [
      'sum(ballast_fees_paid_usd_total)',
      'sum(ballast_transfer_fees_usd_count)',
      'sum(ballast_transfer_settle_seconds_count)',
      'sum(ballast_quotes_total)',
      'sum(ballast_balance_usd)',
      'min(ballast_gas_balance_units)',
      'count(ballast_budget_used_ratio)',
    ]) {
      expect(await value(expr), expr).toBeGreaterThan(0);
    }

    // Every panel query returns data.
    const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard; // generated from dashboard.ts, checked by the unit test
    const panelQueries = dashboardQueries(dashboard);
    const failures: string[] = [];
    for (const q of panelQueries) {
      const expr = expandVariables(q.expr, { vars: { job: '.*', chain: '.*', asset: '.*' }, rateInterval: '30s', range: '5m' });
      const key = `${q.panelTitle} ${q.refId}`;
      const r = await query(expr);
      if (r.status !== 'success') failures.push(`${key}: error ${r.error} in ${expr}`);
      else if (r.data.result.length === 0 && !(key in NO_DATA_EXPECTED)) failures.push(`${key}: no data for ${expr}`);
      else if (r.data.result.length > 0 && key in NO_DATA_EXPECTED) failures.push(`${key}: has data now, take it off NO_DATA_EXPECTED`);
    }
    expect(failures, diagnostics()).toEqual([]);
    // A concrete chain and asset select the same data as "All" for a balance panel.
    const beta = await query(
      expandVariables('ballast_balance_units{job=~"$job", chain=~"$chain", asset=~"$asset"}', {
        vars: { job: 'ballast', chain: 'beta', asset: 'USDC' },
        rateInterval: '30s',
        range: '5m',
      }),
    );
    expect(beta.data.result.map((s) => s.metric.chain)).toEqual(['beta']);

    // Every alert rule evaluates: the query API accepts it, and Prometheus's own evaluation reports health ok.
    const rulesDoc = parse(readFileSync(ALERTS_FILE, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const alertRules = rulesDoc.groups.flatMap((g) => g.rules);
    for (const rule of alertRules) {
      const r = await query(rule.expr);
      expect(r.status, `${rule.alert}: ${r.error}`).toBe('success');
    }
    const loaded = await waitFor(
      'every alert rule evaluated',
      async () => {
        const body = (await (await fetch(`${api}/rules`)).json()) as {
          data: { groups: { rules: { name: string; health: string; lastError?: string; state: string }[] }[] };
        };
        const rules = body.data.groups.flatMap((g) => g.rules);
        return rules.length === alertRules.length && rules.every((r) => r.health !== 'unknown') ? rules : null;
      },
      10_000,
      diagnostics,
    );
    expect(loaded.map((r) => [r.name, r.health, r.lastError ?? ''])).toEqual(alertRules.map((a) => [a.alert, 'ok', '']));
    // A healthy daemon fires nothing (BalanceBelowMin and the like have long `for:` and may only be pending).
    expect(loaded.filter((r) => r.state === 'firing').map((r) => r.name)).toEqual([]);

    // Every metric name used by the dashboard and the alerts is in the daemon's exposition (typos show here).
    const exposition = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const scraped = new Set([...expositionMetricNames(exposition), 'up']);
    const used = new Set([...panelQueries.map((q) => q.expr), ...alertRules.map((a) => a.expr)].flatMap(promqlMetricNames));
    expect([...used].filter((n) => !scraped.has(n))).toEqual([]);
    expect(used.size).toBeGreaterThan(40);

    await stop(prometheus.child);
    await stop(daemon.child);
    expect(daemon.child.exitCode).toBe(0);
  }, 90_000);
});
