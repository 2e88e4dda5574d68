/**
 * Daemon memory over 10,000 short cycles on the sandbox: the sandbox (anvil chains, local Relay API) runs in
 * this process; a child process (`node --expose-gc`) wires Ballast as the daemon does (with a shutdown signal)
 * and runs idle `daemon` cycles back to back: every balance in band, so each cycle reads GET /chains (cached),
 * the balances, plans nothing and records the cycle. Every 100 cycles the child collects garbage (`global.gc`)
 * and samples the heap in use and the resident set size. Target: the mean of the last thousand cycles' samples
 * within 10 % of the first thousand's, for heap and RSS.
 *
 * `BALLAST_BENCH_CYCLES` changes the number of cycles (at least 2,000).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { sandboxEnv } from '../packages/ballast/src/cli/sandboxEnv.ts';
import { DEMO_BALANCES } from '../packages/sandbox/src/chains/localChains.ts';
import { startSandbox } from '../packages/sandbox/src/startSandbox.ts';
import { demoConfigFor } from '../test/e2e/helpers/demoConfig.ts';
import type { BenchRow } from './lib.ts';

const SAMPLE_EVERY = 100;

/** One sample of the child: after `cycle` cycles, MiB after a full GC. */
interface MemorySample {
  cycle: number;
  heapMiB: number;
  rssMiB: number;
}

/** The child: runs the cycles and prints one JSON sample per line. */
async function child(configFile: string, cycles: number): Promise<void> {
  const { loadConfig } = await import('../packages/ballast/src/config/loadConfig.ts');
  const { createBallast } = await import('../packages/ballast/src/app/createBallast.ts');
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const abort = new AbortController();
  const ballast = createBallast(loadConfig(configFile, process.env), {
    logger: pino({ level: 'silent' }),
    signal: abort.signal,
    chainPollingIntervalMs: 50,
  });
  const started = Date.now();
  try {
    for (let i = 1; i <= cycles; i++) {
      const report = await ballast.runCycle('daemon');
      if (report.outcome !== 'ok' || report.plan.transfers.length > 0)
        throw new Error(`cycle ${i}: ${report.outcome} ${report.error ?? ''} (expected an idle cycle)`);
      if (i % SAMPLE_EVERY === 0) {
        gc();
        const m = process.memoryUsage();
        process.stdout.write(`${JSON.stringify({ cycle: i, heapMiB: m.heapUsed / 2 ** 20, rssMiB: m.rss / 2 ** 20 })}\n`);
      }
    }
    process.stdout.write(`${JSON.stringify({ done: true, msPerCycle: (Date.now() - started) / cycles })}\n`);
  } finally {
    abort.abort();
    await ballast.close();
  }
}

/** Mean of the samples taken in cycles (from, to]. */
function mean(samples: MemorySample[], from: number, to: number, key: 'heapMiB' | 'rssMiB'): number {
  const within = samples.filter((s) => s.cycle > from && s.cycle <= to);
  return within.reduce((n, s) => n + s[key], 0) / within.length;
}

/** Starts the sandbox, runs the child, returns the rows (and prints the first/last thousand means). */
export async function daemonMemoryRows(cycles = Math.max(2_000, Number(process.env.BALLAST_BENCH_CYCLES ?? 10_000))): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-memory-'));
  const balances = {
    ...DEMO_BALANCES,
    alpha: { ...DEMO_BALANCES.alpha, treasury: { ...DEMO_BALANCES.alpha!.treasury, usdc: '50000' } },
    beta: { ...DEMO_BALANCES.beta, treasury: { ...DEMO_BALANCES.beta!.treasury, usdc: '30000' } },
  };
  const sandbox = await startSandbox({ balances });
  const samples: MemorySample[] = [];
  let msPerCycle = 0;
  try {
    const configFile = path.join(dir, 'memory.yaml');
    writeFileSync(
      configFile,
      stringify({ ...demoConfigFor(sandbox), tracking: { pollMs: 250, timeoutSec: 60 }, webhooks: { enabled: false } }),
    );
    const env = { ...process.env, ...sandboxEnv(sandbox, path.join(dir, 'memory.db')) };
    const script = fileURLToPath(import.meta.url);
    const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--child', configFile, String(cycles)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let buffered = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines.filter(Boolean)) {
        const parsed = JSON.parse(line) as MemorySample | { done: true; msPerCycle: number };
        if ('done' in parsed) msPerCycle = parsed.msPerCycle;
        else samples.push(parsed);
      }
    });
    const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
    if (code !== 0) throw new Error(`memory child exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows: BenchRow[] = [];
  for (const key of ['heapMiB', 'rssMiB'] as const) {
    const first = mean(samples, 0, 1_000, key);
    const last = mean(samples, cycles - 1_000, cycles, key);
    const what = key === 'heapMiB' ? 'heap after GC' : 'RSS after GC';
    console.log(`daemon ${what}: first 1,000 cycles ${first.toFixed(1)} MiB, last 1,000 of ${cycles} ${last.toFixed(1)} MiB`);
    rows.push({
      label: `daemon ${what}: last / first 1,000 cycles`,
      value: last / first,
      limit: 1.1,
      unit: '×',
      note: `${first.toFixed(1)} → ${last.toFixed(1)} MiB over ${cycles} cycles, ${msPerCycle.toFixed(1)} ms per idle cycle`,
    });
  }
  return rows;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!, Number(process.argv[4]));
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const r of await daemonMemoryRows()) console.log(r);
}
