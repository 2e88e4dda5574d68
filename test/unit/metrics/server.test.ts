import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { MetricsServerError, parseListen, startMetricsServer, type MetricsServer } from '../../../packages/ballast/src/metrics/server.ts';

const servers: MetricsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(opts: Partial<Parameters<typeof startMetricsServer>[0]> = {}) {
  const metrics = createMetrics();
  const server = await startMetricsServer({
    listen: '127.0.0.1:0',
    metrics,
    health: () => ({ ok: true, detail: { lastCycleOk: true } }),
    ...opts,
  });
  servers.push(server);
  return { server, metrics };
}

/** Runs `promtool check metrics` on `text`; fails (never skips) when promtool is missing. */
function promtoolCheck(text: string): { status: number | null; output: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error('promtool not found: install it (Debian/Ubuntu: apt-get install -y prometheus) and re-run');
  }
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('metrics server', () => {
  it('serves updated values on /metrics, and promtool accepts the exposition', async () => {
    const { server, metrics } = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    metrics.cyclesTotal.inc({ outcome: 'ok' });
    metrics.cycleDurationSeconds.observe(3.5);
    metrics.lastSuccessfulCycleTimestampSeconds.set(1_777_339_000);
    metrics.transfersTotal.inc({ outcome: 'success', asset: 'USDC', origin_chain: 'base', destination_chain: 'arbitrum' });
    metrics.transfersInFlight.set(2);
    metrics.quotesTotal.inc({ asset: 'USDC', origin_chain: 'base', destination_chain: 'arbitrum' });
    metrics.quotesSkippedTotal.inc({ reason: 'total_bps' });
    metrics.quotesRefusedTotal.inc({ rule: 'deposit-id' });
    metrics.relayHttpRequestsTotal.inc({ endpoint: '/quote/v2', status: '429' });
    metrics.balanceBaseUnits.set({ chain: 'base', asset: 'USDC', wallet: 'treasury' }, 50_000_000_000);
    metrics.targetBaseUnits.set({ chain: 'base', asset: 'USDC', wallet: 'treasury', bound: 'max' }, 60_000_000_000);
    metrics.chainReadErrorsTotal.inc({ chain: 'arbitrum' });

    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const line of [
      'ballast_cycles_total{outcome="ok"} 1',
      'ballast_cycle_duration_seconds_count 1',
      'ballast_last_successful_cycle_timestamp_seconds 1777339000',
      'ballast_transfers_total{outcome="success",asset="USDC",origin_chain="base",destination_chain="arbitrum"} 1',
      'ballast_transfers_in_flight 2',
      'ballast_quotes_total{asset="USDC",origin_chain="base",destination_chain="arbitrum"} 1',
      'ballast_quotes_skipped_total{reason="total_bps"} 1',
      'ballast_quotes_refused_total{rule="deposit-id"} 1',
      'ballast_relay_http_requests_total{endpoint="/quote/v2",status="429"} 1',
      'ballast_balance_base_units{chain="base",asset="USDC",wallet="treasury"} 50000000000',
      'ballast_target_base_units{chain="base",asset="USDC",wallet="treasury",bound="max"} 60000000000',
      'ballast_chain_read_errors_total{chain="arbitrum"} 1',
    ]) {
      expect(text).toContain(line);
    }
    const check = promtoolCheck(text);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });

  it('promtool does reject a malformed exposition (the check is real)', () => {
    const check = promtoolCheck('# TYPE bad_metric gauge\nbad_metric_total{x="1"} 1\nnot a metric line\n');
    expect(check.status).not.toBe(0);
  });

  it('/healthz answers 200 when healthy and 503 when not or when the check throws', async () => {
    let state: 'ok' | 'down' | 'throw' = 'ok';
    const { server } = await start({
      health: () => {
        if (state === 'throw') throw new Error('db closed');
        return { ok: state === 'ok', detail: { lastCycleOk: state === 'ok', inFlight: 3n } };
      },
    });
    const ok = await fetch(`${server.url}/healthz`);
    expect([ok.status, await ok.json()]).toEqual([200, { ok: true, detail: { lastCycleOk: true, inFlight: '3' } }]);
    state = 'down';
    const down = await fetch(`${server.url}/healthz`);
    expect([down.status, await down.json()]).toEqual([503, { ok: false, detail: { lastCycleOk: false, inFlight: '3' } }]);
    state = 'throw';
    const thrown = await fetch(`${server.url}/healthz`);
    expect([thrown.status, await thrown.json()]).toEqual([503, { ok: false, detail: { error: 'db closed' } }]);
  });

  it('answers 404 for other paths, 405 for other methods, and lets an extra handler take its routes', async () => {
    const { server } = await start({
      handle: (req, res) => {
        if (req.url !== '/webhook') return false;
        res.statusCode = 204;
        res.end();
        return true;
      },
    });
    expect((await fetch(`${server.url}/`)).status).toBe(404);
    expect((await fetch(`${server.url}/metricsx`)).status).toBe(404);
    const post = await fetch(`${server.url}/metrics`, { method: 'POST', body: 'x' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await fetch(`${server.url}/webhook`, { method: 'POST', body: '{}' })).status).toBe(204);
    expect((await fetch(`${server.url}/metrics?debug=1`)).status).toBe(200);
  });

  it('close() stops listening', async () => {
    const { server } = await start();
    servers.pop();
    await server.close();
    await expect(fetch(`${server.url}/metrics`)).rejects.toThrow();
  });

  it('reports a busy port and a malformed listen address clearly', async () => {
    const { server } = await start();
    const port = new URL(server.url).port;
    await expect(
      startMetricsServer({ listen: `127.0.0.1:${port}`, metrics: createMetrics(), health: () => ({ ok: true, detail: {} }) }),
    ).rejects.toThrow(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\); change metrics.listen or free the port`));
    expect(() => parseListen('localhost')).toThrow(MetricsServerError);
    expect(() => parseListen('127.0.0.1:70000')).toThrow(/not host:port/);
    expect(parseListen('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
  });
});
