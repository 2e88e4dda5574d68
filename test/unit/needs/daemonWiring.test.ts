/**
 * `ballast daemon` serves the needs API (src/app/daemon.ts) only with `needs.token`: on the metrics server beside
 * /metrics when `needs.listen` is absent, on its own loopback port when it is set, and not at all without a token.
 * The daemon runs no cycle here (its schedule never fires), so no chain or Relay API is reached: every holding
 * states its decimals in the config.
 */
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createBallast } from '../../../packages/ballast/src/app/createBallast.ts';
import { runDaemon, type DaemonHandle } from '../../../packages/ballast/src/app/daemon.ts';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, baseConfig, tempDirPerTest } from '../config/helpers.ts';

const TOKEN = 'daemon-needs-token-0123456789';
const tmp = tempDirPerTest();
let daemon: DaemonHandle | null = null;

afterEach(async () => {
  await daemon?.stop('test over');
  daemon = null;
});

async function startDaemon(needs: Record<string, unknown> | undefined): Promise<DaemonHandle> {
  const doc = baseConfig();
  for (const entry of doc.assets.USDC as Record<string, unknown>[]) entry.decimals = 6;
  doc.store = path.join(tmp.dir, 'ballast.db');
  doc.schedule = '0 0 1 1 *';
  doc.metrics = { listen: '127.0.0.1:0' };
  if (needs) doc.needs = needs;
  const config = loadConfig(tmp.write(doc), { ...ENV, BALLAST_NEEDS_TOKEN: TOKEN });
  const logger = pino({ level: 'silent' });
  const abort = new AbortController();
  const ballast = createBallast(config, { logger, signal: abort.signal });
  daemon = await runDaemon({ config, ballast, logger, abort });
  return daemon;
}

const post = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': 'payroll-2026-12', 'content-type': 'application/json' },
    body: JSON.stringify({ asset: 'USDC', chain: 'base', amount: '50000', dueAt: '2099-12-06T09:00:00Z' }),
  });

describe('the daemon and the needs API', () => {
  it('shares the metrics server when needs.listen is absent', async () => {
    const d = await startDaemon({ token: '${BALLAST_NEEDS_TOKEN}' });
    expect(d.needsUrl).toBe(`${d.metricsUrl}/v1/needs`);
    const created = await post(d.needsUrl!);
    expect(created.status).toBe(201);
    expect(((await created.json()) as { amountBaseUnits: string }).amountBaseUnits).toBe('50000000000');
    expect((await fetch(`${d.metricsUrl}/metrics`)).status).toBe(200);
    const listed = (await (await fetch(d.needsUrl!, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { needs: unknown[] };
    expect(listed.needs).toHaveLength(1);
  });

  it('listens on needs.listen when given, and the metrics server does not answer for it', async () => {
    const d = await startDaemon({ token: '${BALLAST_NEEDS_TOKEN}', listen: '127.0.0.1:0' });
    expect(d.needsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/needs$/);
    expect(d.needsUrl!.startsWith(d.metricsUrl!)).toBe(false);
    expect((await post(d.needsUrl!)).status).toBe(201);
    expect((await post(`${d.metricsUrl}/v1/needs`)).status).toBe(404);
  });

  it('serves no API without a token', async () => {
    const d = await startDaemon(undefined);
    expect(d.needsUrl).toBeNull();
    expect((await post(`${d.metricsUrl}/v1/needs`)).status).toBe(404);
  });
});
