/**
 * Fills that overlap (policy.maxConcurrentTransfers, src/cycle/runTransfers.ts): four deficits on
 * four chains of the sandbox (beta, gamma, delta, epsilon), all fed from alpha, with a solver that fills 5 s after
 * each deposit is indexed. One `run --once` cycle is timed until every transfer is final, against one transfer's
 * own time (its write-ahead to its fill) in the same cycle. Target: all four within 1.3× one transfer's time (one
 * after another they take about 4×). The same cycle with maxConcurrentTransfers 1 is printed for comparison. A
 * daemon cycle on the same deficits is timed until it returns (every deposit confirmed; the fills go on in the
 * background, src/cycle/backgroundTracking.ts), then its fills are awaited: target at most half of one transfer's
 * time, so the next cycle is never held up by a fill.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { createBallast } from '../packages/ballast/src/app/createBallast.ts';
import { sandboxEnv } from '../packages/ballast/src/cli/sandboxEnv.ts';
import { loadConfig } from '../packages/ballast/src/config/loadConfig.ts';
import { listRecentTransfers } from '../packages/ballast/src/store/transfers.ts';
import { DEFAULT_LOCAL_CHAINS } from '../packages/sandbox/src/chains/localChains.ts';
import { startSandbox, type Sandbox } from '../packages/sandbox/src/startSandbox.ts';
import { demoConfigFor } from '../test/e2e/helpers/demoConfig.ts';
import { setUsdc, USDC } from '../test/e2e/faults/helpers/treasuryNeed.ts';
import { timeMs, type BenchRow } from './lib.ts';

const DEFICITS = ['beta', 'gamma', 'delta', 'epsilon'] as const;
const FILL_DELAY_MS = 5_000;
const solver = { usdc: '1000000', eth: '100' };

async function sandboxWithFourDeficits(): Promise<Sandbox> {
  const extra = DEFICITS.slice(1).map((slug, i) => ({ slug, displayName: slug, chainId: 31003 + i }));
  return startSandbox({
    chains: [...DEFAULT_LOCAL_CHAINS, ...extra],
    balances: {
      alpha: { treasury: { usdc: '200000', eth: '10' }, solver },
      ...Object.fromEntries(DEFICITS.map((slug) => [slug, { treasury: { usdc: '10000', eth: '10' }, solver }])),
    },
    faults: { fillDelayMs: FILL_DELAY_MS },
  });
}

/**
 * Runs one cycle with `maxConcurrentTransfers` (a `daemon` cycle returns once its transfers are deposited; its fills
 * are then awaited); returns its wall time and the longest single transfer's time (write-ahead to fill), ms.
 */
async function oneCycle(
  sandbox: Sandbox,
  dir: string,
  maxConcurrentTransfers: number,
  kind: 'once' | 'daemon' = 'once',
): Promise<{ cycleMs: number; transferMs: number }> {
  const base = demoConfigFor({ solana: undefined, bitcoin: undefined });
  const usdc = (chain: string, i: number) => ({
    chain,
    currency: '${SANDBOX_USDC}',
    wallet: 'treasury',
    ...(i === 0 ? { min: '40000', target: '50000', max: '60000' } : { min: '20000', target: '30000', max: '45000' }),
  });
  const chains = Object.fromEntries(
    DEFICITS.slice(1).map((slug, i) => [slug, { chainId: 31003 + i, rpcUrl: `\${SANDBOX_${slug.toUpperCase()}_RPC}` }]),
  );
  const doc = {
    ...base,
    chains: { ...(base.chains as object), ...chains },
    assets: { USDC: ['alpha', ...DEFICITS].map(usdc) },
    policy: { ...(base.policy as object), maxConcurrentTransfers },
    tracking: { pollMs: 200, timeoutSec: 60 },
    webhooks: { enabled: false },
  };
  const file = path.join(dir, `c${maxConcurrentTransfers}${kind}.yaml`);
  writeFileSync(file, stringify(doc));
  const config = loadConfig(file, sandboxEnv(sandbox, path.join(dir, `c${maxConcurrentTransfers}${kind}.db`)));
  const ballast = createBallast(config, { logger: pino({ level: 'silent' }), chainPollingIntervalMs: 50 });
  try {
    let outcomes: string[] = [];
    const cycleMs = await timeMs(async () => {
      outcomes = (await ballast.runCycle(kind)).attempts.map((a) => a.outcome);
    });
    const expected = kind === 'once' ? 'success' : 'in_flight';
    if (outcomes.length !== DEFICITS.length || outcomes.some((o) => o !== expected)) {
      throw new Error(`expected ${DEFICITS.length} transfers ${expected}, got ${outcomes.join(', ') || 'none'}`);
    }
    let rows = await listRecentTransfers(ballast.db, 10);
    for (let i = 0; i < 600 && rows.some((t) => t.status !== 'success'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // the daemon's fills, tracked in the background
      rows = await listRecentTransfers(ballast.db, 10);
    }
    if (rows.some((t) => t.status !== 'success')) throw new Error(`fills not all final: ${rows.map((t) => t.status).join(', ')}`);
    const spans = rows.map((t) => t.updatedAtMs - t.createdAtMs);
    return { cycleMs, transferMs: Math.max(...spans) };
  } finally {
    await ballast.close();
  }
}

/** Resets every deficit chain's treasury to 10 000 USDC and alpha's to 200 000 (minted or burnt). */
async function resetBalances(sandbox: Sandbox): Promise<void> {
  await setUsdc(sandbox, 'alpha', 200_000n * USDC);
  for (const slug of DEFICITS) await setUsdc(sandbox, slug, 10_000n * USDC);
}

/** The benchmark's row. */
export async function concurrencyRows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-concurrency-'));
  const sandbox = await sandboxWithFourDeficits();
  try {
    const overlapped = await oneCycle(sandbox, dir, 4);
    await resetBalances(sandbox);
    const serial = await oneCycle(sandbox, dir, 1);
    await resetBalances(sandbox);
    const daemon = await oneCycle(sandbox, dir, 4, 'daemon');
    console.log(
      `concurrency: four transfers in ${(overlapped.cycleMs / 1000).toFixed(1)} s with maxConcurrentTransfers 4 ` +
        `(one transfer ${(overlapped.transferMs / 1000).toFixed(1)} s), ${(serial.cycleMs / 1000).toFixed(1)} s with 1`,
    );
    return [
      {
        label: 'four deficits on four chains, 5 s fills: all filled / one transfer',
        value: overlapped.cycleMs / overlapped.transferMs,
        limit: 1.3,
        unit: '×',
        note: `one at a time: ${(serial.cycleMs / overlapped.transferMs).toFixed(2)}×`,
      },
      {
        label: 'the same four in a daemon cycle: cycle returns / one transfer',
        value: daemon.cycleMs / daemon.transferMs,
        limit: 0.5,
        unit: '×',
        note: `cycle ${(daemon.cycleMs / 1000).toFixed(1)} s, fills tracked in the background`,
      },
    ];
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
