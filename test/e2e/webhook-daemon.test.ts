/**
 * Webhooks end to end (docs/relay-contract.md "Events" → "Webhooks"): the sandbox, on real anvil chains, posts signed
 * `request.status.updated` deliveries to the daemon's receiver. With status polling set to once a minute, the
 * transfer reaches `success` right after the fill because of the webhook: the receiver closes it (its history
 * says so) and wakes the tracker (in the background: the daemon's cycle ended once the deposit was confirmed), long
 * before the next poll would have. Served on the metrics
 * server, and on an address of its own where duplicated deliveries change nothing; with every delivery dropped,
 * polling still closes the transfer.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import type { DaemonHandle } from '../../packages/ballast/src/app/daemon.ts';
import { tempDir } from './helpers/sandboxBallast.ts';
import { daemonOnSandbox, freePort, readStore, waitFor, WEBHOOK_API_KEY } from './webhookHarness.ts';

const tmp = tempDir('ballast-webhooks-');
let sandbox: Sandbox | null = null;
let daemon: DaemonHandle | null = null;
afterEach(async () => {
  await daemon?.stop('test over');
  daemon = null;
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

/** Status polls a minute apart: without a webhook, the fill would be seen a minute after the deposit at the earliest. */
const SLOW_TRACKING = { pollMs: 60_000, timeoutSec: 600 };
/** Well under one poll interval: the cycle must have ended through the webhook. */
const WITHIN_MS = 40_000;

interface Row {
  status: string;
  relay_status: string | null;
  out_tx_hashes_json: string | null;
}

function finishedCycle(store: string) {
  return readStore(store, (db) => {
    const c = db.prepare('SELECT outcome, finished_at_ms FROM cycles').get() as
      { outcome: string | null; finished_at_ms: number | null } | undefined;
    return c && c.finished_at_ms !== null ? c : null;
  });
}

/** The cycle once it has ended and every transfer of the store is final (success, failure or refund), else null. */
function settled(store: string) {
  const cycle = finishedCycle(store);
  const { rows } = transfers(store);
  return cycle && rows.length > 0 && rows.every((r) => ['success', 'failure', 'refund'].includes(r.status)) ? cycle : null;
}

function transfers(store: string) {
  return readStore(store, (db) => {
    const rows = db.prepare('SELECT id, status, relay_status, out_tx_hashes_json FROM transfers').all() as (Row & { id: number })[];
    const events = db.prepare('SELECT transfer_id, from_status, to_status, detail FROM transfer_events ORDER BY id').all() as {
      transfer_id: number;
      from_status: string | null;
      to_status: string;
      detail: string | null;
    }[];
    return { rows, events };
  });
}

describe('webhooks on the sandbox', () => {
  it('moves the transfer to success right after the fill, through the receiver on the metrics server', async () => {
    const port = await freePort();
    sandbox = await startSandbox({
      apiKey: WEBHOOK_API_KEY,
      faults: { fillDelayMs: 1500 },
      webhook: { url: `http://127.0.0.1:${port}/webhooks/relay`, baseDelayMs: 100 },
    });
    const run = await daemonOnSandbox(sandbox, tmp.dir, {
      webhooks: { enabled: true },
      metrics: { listen: `127.0.0.1:${port}` },
      tracking: SLOW_TRACKING,
    });
    daemon = run.daemon;
    expect(daemon.webhookUrl).toBe(`http://127.0.0.1:${port}/webhooks/relay`);

    const cycle = await waitFor('the cycle to end and its transfer to close', () => settled(run.store), WITHIN_MS);
    expect(cycle.outcome).toBe('ok');
    const { rows, events } = transfers(run.store);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'success', relay_status: 'success' });
    const fill = JSON.parse(rows[0]!.out_tx_hashes_json!) as string[];
    expect(fill).toHaveLength(1);
    const closing = events.filter((e) => e.to_status === 'success');
    expect(closing).toEqual([
      { transfer_id: rows[0]!.id, from_status: 'deposited', to_status: 'success', detail: `closed by webhook; ${fill[0]}` },
    ]);

    // The sandbox's deliveries were accepted; the last one is the success the transfer was closed with.
    await sandbox.webhooks!.idle();
    const attempts = sandbox.webhooks!.attempts();
    expect(attempts.every((a) => a.httpStatus === 200)).toBe(true);
    expect(attempts.at(-1)!.status).toBe('success');

    const exposition = await (await fetch(`${daemon.metricsUrl}/metrics`)).text();
    expect(exposition).toMatch(/ballast_webhooks_received_total\{result="closed"\} 1\b/);
    // Counted once, by the tracker the webhook woke (not again by the receiver).
    expect(exposition).toMatch(/ballast_transfers_total\{outcome="success"[^}]*\} 1\b/);
  }, 90_000);

  it('serves the receiver on webhooks.listen, and duplicated deliveries change nothing', async () => {
    const [metricsPort, hooksPort] = [await freePort(), await freePort()];
    sandbox = await startSandbox({
      apiKey: WEBHOOK_API_KEY,
      faults: { fillDelayMs: 1500, webhookDuplicate: true },
      webhook: { url: `http://127.0.0.1:${hooksPort}/hooks/relay`, baseDelayMs: 100 },
    });
    const run = await daemonOnSandbox(sandbox, tmp.dir, {
      webhooks: { enabled: true, listen: `127.0.0.1:${hooksPort}`, path: '/hooks/relay' },
      metrics: { listen: `127.0.0.1:${metricsPort}` },
      tracking: SLOW_TRACKING,
    });
    daemon = run.daemon;
    expect(daemon.webhookUrl).toBe(`http://127.0.0.1:${hooksPort}/hooks/relay`);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/hooks/relay`, { method: 'POST', body: '{}' })).status).toBe(404);

    await waitFor('the cycle to end and its transfer to close', () => settled(run.store), WITHIN_MS);
    await sandbox.webhooks!.idle();
    const { rows, events } = transfers(run.store);
    expect(rows.map((r) => r.status)).toEqual(['success']);
    expect(events.filter((e) => e.to_status === 'success')).toHaveLength(1);
    const successes = sandbox.webhooks!.attempts().filter((a) => a.status === 'success');
    expect(successes.map((a) => [a.httpStatus, a.duplicate ?? false])).toEqual([
      [200, false],
      [200, true],
    ]);
    const exposition = await (await fetch(`${daemon.metricsUrl}/metrics`)).text();
    expect(exposition).toMatch(/ballast_webhooks_received_total\{result="closed"\} 1\b/);
    expect(exposition).toMatch(/ballast_webhooks_received_total\{result="already_final"\} 1\b/);
  }, 90_000);

  it('falls back to polling when no delivery arrives', async () => {
    const port = await freePort();
    sandbox = await startSandbox({
      apiKey: WEBHOOK_API_KEY,
      faults: { fillDelayMs: 500, webhookDrop: true },
      webhook: { url: `http://127.0.0.1:${port}/webhooks/relay`, baseDelayMs: 100 },
    });
    const run = await daemonOnSandbox(sandbox, tmp.dir, {
      webhooks: { enabled: true },
      metrics: { listen: `127.0.0.1:${port}` },
      tracking: { pollMs: 200, timeoutSec: 60 },
    });
    daemon = run.daemon;
    await waitFor('the cycle to end and its transfer to close', () => settled(run.store), WITHIN_MS);
    const { rows, events } = transfers(run.store);
    expect(rows.map((r) => r.status)).toEqual(['success']);
    const closing = events.filter((e) => e.to_status === 'success');
    expect(closing).toHaveLength(1);
    expect(closing[0]!.detail).not.toMatch(/webhook/);
    const attempts = sandbox.webhooks!.attempts();
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((a) => a.dropped === true)).toBe(true);
    const exposition = await (await fetch(`${daemon.metricsUrl}/metrics`)).text();
    expect(exposition).not.toMatch(/ballast_webhooks_received_total\{/);
  }, 90_000);
});
