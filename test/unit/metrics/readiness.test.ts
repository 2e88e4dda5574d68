import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { readiness, scheduleIntervalMs } from '../../../packages/ballast/src/metrics/readiness.ts';
import { startMetricsServer, type MetricsServer } from '../../../packages/ballast/src/metrics/server.ts';

const MIN = 60_000;
const T0 = 1_800_000_000_000;

describe('readiness', () => {
  const base = { startedAtMs: T0, storeOpen: true, maxAgeMs: 15 * MIN };

  it('is ready within the start-up grace before the first cycle, and not after it', () => {
    expect(readiness({ ...base, nowMs: T0 + 14 * MIN, lastCycleFinishedAtMs: null })).toEqual({
      ok: true,
      detail: { ready: true, storeOpen: true, lastCycleAgeSeconds: null, uptimeSeconds: 840, maxAgeSeconds: 900 },
    });
    const late = readiness({ ...base, nowMs: T0 + 16 * MIN, lastCycleFinishedAtMs: null });
    expect(late.ok).toBe(false);
    expect(late.detail.reason).toBe('no cycle finished in the 900 s since start');
  });

  it('judges the age of the last finished cycle, whatever its outcome', () => {
    const fresh = readiness({ ...base, nowMs: T0 + 60 * MIN, lastCycleFinishedAtMs: T0 + 50 * MIN });
    expect([fresh.ok, fresh.detail.lastCycleAgeSeconds]).toEqual([true, 600]);
    const stale = readiness({ ...base, nowMs: T0 + 60 * MIN, lastCycleFinishedAtMs: T0 + 40 * MIN });
    expect([stale.ok, stale.detail.lastCycleAgeSeconds]).toEqual([false, 1200]);
    expect(stale.detail.reason).toBe('the last cycle finished 1200 s ago, more than 900 s');
  });

  it('is not ready while the store is closed', () => {
    const r = readiness({ ...base, storeOpen: false, nowMs: T0 + MIN, lastCycleFinishedAtMs: T0 });
    expect([r.ok, r.detail.reason]).toEqual([false, 'the store is closed']);
  });

  it('takes the longest gap between the next run times as the schedule interval', () => {
    const at = (m: number) => new Date(T0 + m * MIN);
    expect(scheduleIntervalMs([at(0), at(5), at(10)])).toBe(5 * MIN);
    expect(scheduleIntervalMs([at(0), at(5), at(65), at(70)])).toBe(60 * MIN);
    expect(scheduleIntervalMs([at(0)])).toBe(0);
  });
});

describe('/readyz on the metrics server', () => {
  const servers: MetricsServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('answers 200 or 503 with the readiness detail, and /healthz stays 200 meanwhile', async () => {
    let lastCycleFinishedAtMs: number | null = T0;
    let nowMs = T0 + MIN;
    const server = await startMetricsServer({
      listen: '127.0.0.1:0',
      metrics: createMetrics(),
      health: () => ({ ok: true, detail: { status: 'alive' } }),
      ready: () => readiness({ nowMs, startedAtMs: T0, lastCycleFinishedAtMs, storeOpen: true, maxAgeMs: 15 * MIN }),
    });
    servers.push(server);
    const ok = await fetch(`${server.url}/readyz`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { detail: { lastCycleAgeSeconds: number } }).detail.lastCycleAgeSeconds).toBe(60);

    nowMs = T0 + 20 * MIN;
    const stale = await fetch(`${server.url}/readyz`);
    expect(stale.status).toBe(503);
    expect(await stale.json()).toMatchObject({ ok: false, detail: { ready: false, lastCycleAgeSeconds: 1200 } });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    lastCycleFinishedAtMs = T0 + 19 * MIN; // a cycle finished (even in error): ready again
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`, { method: 'POST' })).status).toBe(405);
  });

  it('reports a throwing readiness check as 503, and falls back to the health check when none is given', async () => {
    const throwing = await startMetricsServer({
      listen: '127.0.0.1:0',
      metrics: createMetrics(),
      health: () => ({ ok: true, detail: {} }),
      ready: () => {
        throw new Error('store gone');
      },
    });
    const fallback = await startMetricsServer({
      listen: '127.0.0.1:0',
      metrics: createMetrics(),
      health: () => ({ ok: false, detail: { why: 'x' } }),
    });
    servers.push(throwing, fallback);
    const r = await fetch(`${throwing.url}/readyz`);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ ok: false, detail: { error: 'store gone' } });
    expect((await fetch(`${fallback.url}/readyz`)).status).toBe(503);
  });
});
