/**
 * Statuses the real API sends besides the table of docs/relay-contract.md "Request status": `delayed`, and values a client
 * does not know yet (the sandbox's `unknownStatus` fault, e.g. `fallback`). Ballast parses them, records and meters
 * them, tracks on as not final, and closes the transfer when the terminal status arrives.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { IntentStatusSchema } from '../../packages/protocol/src/relay/schemas.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox, tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-statuses-');
let sandbox: Sandbox | null = null;

afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

/** Runs one cycle while polling the sandbox's status endpoint for the statuses it served. */
async function cycleWatchingStatuses(s: Sandbox) {
  const { ballast, logLines } = ballastOnSandbox(s, tmp.dir);
  const served = new Set<string>();
  let stop = false;
  const watcher = (async () => {
    while (!stop) {
      const { requests } = (await (await fetch(`${s.apiUrl}/_sandbox/requests`)).json()) as {
        requests: { id?: string; requestId?: string }[];
      };
      for (const r of requests) {
        const id = r.requestId ?? r.id;
        if (!id) continue;
        const raw = await (await fetch(`${s.apiUrl}/intents/status/v3?requestId=${id}`)).json();
        served.add(IntentStatusSchema.parse(raw).status);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    const report = await ballast.runCycle('once');
    const transfers = await listRecentTransfers(ballast.db, 5);
    return { report, transfers, logLines, served, metrics: await ballast.metrics.registry.metrics() };
  } finally {
    stop = true;
    await watcher;
    await ballast.close();
  }
}

describe('statuses beyond the spec table', () => {
  it('tracks a fill through `delayed` to success and meters the status', async () => {
    sandbox = await startSandbox({ faults: { delayed: true, fillDelayMs: 1500 } });
    const { report, served, metrics, transfers } = await cycleWatchingStatuses(sandbox);
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect(served.has('delayed')).toBe(true);
    expect(metrics).toMatch(/ballast_relay_statuses_total\{status="delayed"\} [1-9]/);
    expect(metrics).toMatch(/ballast_relay_statuses_total\{status="success"\} 1/);
    expect(transfers.map((t) => [t.status, t.relayStatus])).toEqual([['success', 'success']]);
  });

  it('treats a status it does not know as not final, warns, meters it as unknown, and still closes on success', async () => {
    sandbox = await startSandbox({ faults: { unknownStatus: 'fallback', fillDelayMs: 1500 } });
    const { report, served, metrics, logLines, transfers } = await cycleWatchingStatuses(sandbox);
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect(served.has('fallback')).toBe(true);
    expect(metrics).toMatch(/ballast_relay_statuses_total\{status="unknown"\} [1-9]/);
    const warned = logLines
      .map((l) => JSON.parse(l) as { msg: string; status?: string })
      .filter((l) => l.msg === 'unknown request status; treated as not final');
    expect(warned.map((l) => l.status)).toContain('fallback');
    expect(transfers.map((t) => t.status)).toEqual(['success']);
  });
});
