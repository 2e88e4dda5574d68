/**
 * Fill detection latency on the sandbox (real anvil chains), webhook vs polling, side by side in one run:
 * the time from the request turning `success` at the sandbox (its `updatedAt`) to the transfer being closed
 * in Ballast's store (the closing event's time). Both Ballast instances poll the status endpoint every second
 * (docs/relay-contract.md "GET /intents/status/v3": about once per second); one also receives the sandbox's signed webhooks
 * (docs/relay-contract.md "Events" → "Webhooks") and closes the transfer when the event arrives. Rounds alternate between
 * the two so both see the same chains and load.
 *
 * Run alone with `npx tsx bench/webhookLatency.ts`, or as part of `npm run bench`
 * (`BALLAST_BENCH_SANDBOX=0` leaves it out).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { createBallast, type Ballast } from '../packages/ballast/src/app/createBallast.ts';
import { sandboxEnv } from '../packages/ballast/src/cli/sandboxEnv.ts';
import { loadConfig } from '../packages/ballast/src/config/loadConfig.ts';
import { DEMO_BALANCES } from '../packages/sandbox/src/chains/localChains.ts';
import { startSandbox, type Sandbox } from '../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../packages/ballast/src/store/transfers.ts';
import { startWebhookServer } from '../packages/ballast/src/webhooks/server.ts';
import { demoConfigFor } from '../test/e2e/helpers/demoConfig.ts';

const API_KEY = 'bench-webhook-key-0b7d21';
/** The status poll interval of both instances, ms. */
const POLL_MS = 1000;

/** Median detection latency per mode, ms, and every sample. */
export interface FillDetection {
  webhookMs: number[];
  pollingMs: number[];
  medianWebhookMs: number;
  medianPollingMs: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port; // listening on TCP
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function instance(sandbox: Sandbox, dir: string, name: string, webhooks: boolean): Ballast {
  const base = demoConfigFor(sandbox);
  const doc = {
    ...base,
    relay: { ...(base.relay as object), apiKey: '${RELAY_API_KEY}' },
    policy: { ...(base.policy as object), minTransfer: '100', maxTransfer: '1000' },
    tracking: { pollMs: POLL_MS, timeoutSec: 60 },
    webhooks: { enabled: webhooks },
  };
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(doc));
  const config = loadConfig(file, { ...sandboxEnv(sandbox, path.join(dir, `${name}.db`)), RELAY_API_KEY: API_KEY });
  return createBallast(config, { logger: pino({ level: 'silent' }), chainPollingIntervalMs: 50 });
}

/**
 * One cycle of `ballast`, then the latency of its transfer: close time in the store minus the sandbox's
 * `updatedAt` of the `success` status (one process, one clock).
 *
 * @throws when the cycle did not end with one successful transfer
 */
async function oneRound(ballast: Ballast, sandbox: Sandbox): Promise<number> {
  const report = await ballast.runCycle('once');
  const outcomes = report.attempts.map((a) => a.outcome);
  if (outcomes.length !== 1 || outcomes[0] !== 'success')
    throw new Error(`expected one successful transfer, got ${outcomes.join(', ') || 'none'}`);
  const row = (await listRecentTransfers(ballast.db, 1))[0]!;
  const closed = row.events.find((e) => e.toStatus === 'success')!;
  const status = (await (await fetch(`${sandbox.apiUrl}/intents/status/v3?requestId=${row.requestId}`)).json()) as { updatedAt: number };
  return closed.atMs - status.updatedAt;
}

/**
 * Runs `rounds` transfers per mode on a fresh sandbox.
 *
 * @returns the samples and medians, ms
 */
export async function measureFillDetection(rounds = 5): Promise<FillDetection> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-webhooks-'));
  const port = await freePort();
  const balances = { ...DEMO_BALANCES, beta: { ...DEMO_BALANCES.beta, treasury: { ...DEMO_BALANCES.beta!.treasury, usdc: '0' } } };
  const sandbox = await startSandbox({
    apiKey: API_KEY,
    balances,
    faults: { fillDelayMs: 300 },
    webhook: { url: `http://127.0.0.1:${port}/webhooks/relay`, baseDelayMs: 100 },
  });
  const withHooks = instance(sandbox, dir, 'webhooks', true);
  const pollOnly = instance(sandbox, dir, 'polling', false);
  // The receiver of `withHooks`; deliveries about the polling instance's requests are answered `not_ours`.
  const server = await startWebhookServer(`127.0.0.1:${port}`, withHooks.webhooks!);
  const webhookMs: number[] = [];
  const pollingMs: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      webhookMs.push(await oneRound(withHooks, sandbox));
      pollingMs.push(await oneRound(pollOnly, sandbox));
    }
  } finally {
    await server.close();
    await withHooks.close();
    await pollOnly.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { webhookMs, pollingMs, medianWebhookMs: median(webhookMs), medianPollingMs: median(pollingMs) };
}

/** Prints the samples; returns the row `[label, webhook / polling, target]` for bench/run.ts. */
export async function fillDetectionRow(): Promise<[string, number, number]> {
  const r = await measureFillDetection();
  console.log(`fill detection, webhook (ms)            ${r.webhookMs.join(', ')}  median ${r.medianWebhookMs}`);
  console.log(`fill detection, polling ${POLL_MS} ms (ms)   ${r.pollingMs.join(', ')}  median ${r.medianPollingMs}`);
  // Target: a webhook sees the fill in under a fifth of the time polling once a second does.
  return ['fill detection: webhook / polling', r.medianWebhookMs / Math.max(1, r.medianPollingMs), 0.2];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [label, ratio, limit] = await fillDetectionRow();
  console.log(`${label.padEnd(38)} ${ratio.toFixed(2).padStart(7)}×  target ≤ ${limit}×  ${ratio <= limit ? 'ok' : 'OVER TARGET'}`);
  process.exitCode = ratio <= limit ? 0 : 1;
}
