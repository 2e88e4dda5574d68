/**
 * One full cycle on the sandbox (two anvil chains, the local Relay API and solver) against its parts, from
 * timing hooks on the wired instance: quote (POST /quote/v2 round trip), check (fee policy, the origin facts
 * read, local verification, spending limits), sign (planning and signing the items), confirm (broadcast until
 * the origin receipt), fill (receipt until Ballast records `success`) and the rest (GET /chains, balances,
 * planning, store). Also the fill detection latency with `tracking.pollMs: 250` and no webhooks: the time from
 * the sandbox marking the request `success` (its `updatedAt`) to a status read answering `success` (read) and to
 * the transfer closing in the store (recorded). Targets: median read ≤ 0.2 s (a poll every 250 ms finds a fill
 * about 0.13 s late on average), median recorded ≤ 0.3 s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { createBallast, type Ballast } from '../packages/ballast/src/app/createBallast.ts';
import { sandboxEnv } from '../packages/ballast/src/cli/sandboxEnv.ts';
import { loadConfig } from '../packages/ballast/src/config/loadConfig.ts';
import { DEMO_BALANCES } from '../packages/sandbox/src/chains/localChains.ts';
import { startSandbox, type Sandbox } from '../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../packages/ballast/src/store/transfers.ts';
import { demoConfigFor } from '../test/e2e/helpers/demoConfig.ts';
import { median, type BenchRow } from './lib.ts';

const ROUNDS = 12;
const POLL_MS = 250;
const PARTS = ['quote', 'check', 'sign', 'confirm', 'fill', 'rest'] as const;
type Part = (typeof PARTS)[number];

/** Replaces `obj[method]` by a wrapper reporting each call's start and end (ms since the epoch). */
function hook<T extends object>(obj: T, method: keyof T & string, report: (startMs: number, endMs: number) => void): void {
  const original = obj[method] as unknown as (...args: unknown[]) => Promise<unknown>; // an async method of the adapter or client
  (obj as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    const start = Date.now();
    try {
      return await original.apply(obj, args);
    } finally {
      report(start, Date.now());
    }
  };
}

function instance(sandbox: Sandbox, dir: string): Ballast {
  const base = demoConfigFor(sandbox);
  const doc = {
    ...base,
    policy: { ...(base.policy as object), minTransfer: '100', maxTransfer: '1000' },
    tracking: { pollMs: POLL_MS, timeoutSec: 60 },
    webhooks: { enabled: false },
  };
  const file = path.join(dir, 'cycle.yaml');
  writeFileSync(file, stringify(doc));
  const config = loadConfig(file, sandboxEnv(sandbox, path.join(dir, 'cycle.db')));
  return createBallast(config, { logger: pino({ level: 'silent' }), chainPollingIntervalMs: 50 });
}

/** Runs the rounds; prints each cycle's parts; returns the rows. */
export async function cyclePartsRows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-cycle-'));
  const balances = { ...DEMO_BALANCES, beta: { ...DEMO_BALANCES.beta, treasury: { ...DEMO_BALANCES.beta!.treasury, usdc: '0' } } };
  const sandbox = await startSandbox({ balances });
  const ballast = instance(sandbox, dir);
  const totals: Record<Part, number[]> = { quote: [], check: [], sign: [], confirm: [], fill: [], rest: [] };
  const cycles: number[] = [];
  const detection: number[] = [];
  const reads: number[] = [];
  try {
    let t: { quoteEnd: number; firstSign: number; signMs: number; broadcastStart: number; includedEnd: number; quoteMs: number } | null =
      null;
    const reset = () => (t = { quoteEnd: 0, firstSign: 0, signMs: 0, broadcastStart: 0, includedEnd: 0, quoteMs: 0 });
    // When a status read first answered `success`: the fill seen, before the store records it.
    let seenMs = 0;
    const getStatus = ballast.ctx.relay.getStatus.bind(ballast.ctx.relay);
    ballast.ctx.relay.getStatus = async (...args) => {
      const status = await getStatus(...args);
      if (status.status === 'success') seenMs ||= Date.now();
      return status;
    };
    hook(ballast.ctx.relay, 'quote', (s, e) => {
      t!.quoteMs += e - s;
      t!.quoteEnd = e;
    });
    for (const adapter of ballast.ctx.chains.values()) {
      const signing = (s: number, e: number) => {
        t!.firstSign ||= s;
        t!.signMs += e - s;
      };
      hook(adapter, 'planItem', signing);
      hook(adapter, 'sign', signing);
      hook(adapter, 'broadcast', (s) => (t!.broadcastStart ||= s));
      hook(adapter, 'waitForInclusion', (_s, e) => (t!.includedEnd = Math.max(t!.includedEnd, e)));
    }
    await ballast.runCycle('once'); // warm-up: connections, GET /chains cache, decimals
    for (let i = 0; i < ROUNDS; i++) {
      reset();
      seenMs = 0;
      const report = await ballast.runCycle('once');
      if (report.attempts.map((a) => a.outcome).join() !== 'success')
        throw new Error(`expected one successful transfer, got ${report.attempts.map((a) => a.outcome).join(', ') || 'none'}`);
      const row = (await listRecentTransfers(ballast.db, 1))[0]!;
      const closedMs = row.events.find((e) => e.toStatus === 'success')!.atMs;
      const status = (await (await fetch(`${sandbox.apiUrl}/intents/status/v3?requestId=${row.requestId}`)).json()) as {
        updatedAt: number;
      };
      const m = t!;
      const total = report.finishedAtMs - report.startedAtMs;
      const parts: Record<Part, number> = {
        quote: m.quoteMs,
        check: m.firstSign - m.quoteEnd,
        sign: m.signMs,
        confirm: m.includedEnd - m.broadcastStart,
        fill: closedMs - m.includedEnd,
        rest: 0,
      };
      parts.rest = total - (parts.quote + parts.check + parts.sign + parts.confirm + parts.fill);
      for (const p of PARTS) totals[p].push(parts[p]);
      cycles.push(total);
      detection.push(closedMs - status.updatedAt);
      reads.push(seenMs - status.updatedAt);
      console.log(
        `cycle ${i + 1}: ${total} ms = ${PARTS.map((p) => `${p} ${parts[p]}`).join(', ')}; fill read ${seenMs - status.updatedAt} ms, recorded ${closedMs - status.updatedAt} ms after the sandbox`,
      );
    }
  } finally {
    await ballast.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const cycle = median(cycles);
  const rows: BenchRow[] = PARTS.map((p) => ({
    label: `cycle part: ${p} / whole cycle`,
    value: median(totals[p]) / cycle,
    limit: Number.POSITIVE_INFINITY,
    unit: '×' as const,
    note: `median ${median(totals[p]).toFixed(0)} ms of ${cycle.toFixed(0)} ms`,
  }));
  rows.push({
    label: `fill read after the sandbox fill, polling ${POLL_MS} ms (median)`,
    value: median(reads) / 1000,
    limit: 0.2,
    unit: 's',
    note: `samples ${reads.join(', ')} ms`,
  });
  rows.push({
    label: `fill recorded after the sandbox fill, polling ${POLL_MS} ms (median)`,
    value: median(detection) / 1000,
    limit: 0.3,
    unit: 's',
    note: `samples ${detection.join(', ')} ms`,
  });
  return rows;
}
