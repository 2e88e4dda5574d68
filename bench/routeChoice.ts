/**
 * Route choice on the sandbox (src/cycle/routeChoice.ts): four chains, beta short of USDC, alpha, gamma and delta
 * each with surplus enough to fill it alone. Quotes from each donor carry a different extra execution fee
 * (`extraFeesByOrigin`), permuted every round so the cheapest donor moves around. Per round, a `plan` cycle with
 * route choice (3 candidates) is timed against one with route choice off, and the fees of the route it picked are
 * compared with the cheapest possible: every donor's route quoted on its own and priced by the same fee policy.
 * Targets: chosen ÷ cheapest = 1.00 (it must pick the cheapest); the extra latency of quoting three candidates in
 * parallel stays under 1.5× a whole cycle without route choice (the sandbox runs in a process of its own, on the
 * same machine, so two more quotes and verifications share its cores; against the real API the quotes' network
 * time overlaps).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { createBallast, type Ballast } from '../packages/ballast/src/app/createBallast.ts';
import { loadConfig } from '../packages/ballast/src/config/loadConfig.ts';
import { buildQuoteRequest } from '../packages/ballast/src/cycle/expectations.ts';
import { priceQuote } from '../packages/ballast/src/cycle/checkQuote.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { demoConfigFor } from '../test/e2e/helpers/demoConfig.ts';
import { median, timeMs, type BenchRow } from './lib.ts';

const ROUNDS = 9;
const DONORS = ['alpha', 'gamma', 'delta'] as const;
/** Extra execution fee per donor, USD; rotated each round. */
const EXTRA_USD = ['1.5', '0.3', '0.9'] as const;

/** The sandbox process: its API URL and configuration variables. */
interface SandboxProcess {
  child: ChildProcess;
  apiUrl: string;
  env: Record<string, string>;
}

/** Starts bench/routeChoiceSandbox.ts through tsx and waits for its JSON line. */
async function startSandboxProcess(): Promise<SandboxProcess> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const tsx = path.join(here, '..', 'node_modules', '.bin', 'tsx');
  const child = spawn(tsx, [path.join(here, 'routeChoiceSandbox.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const { apiUrl, env } = JSON.parse(line) as { apiUrl: string; env: Record<string, string> };
    return { child, apiUrl, env };
  }
  throw new Error('the route-choice sandbox process ended before printing its URLs');
}

function instance(sandbox: SandboxProcess, dir: string, name: string, maxCandidates: number): Ballast {
  const base = demoConfigFor({ solana: undefined, bitcoin: undefined });
  const usdc = (chain: string) => ({
    chain,
    currency: '${SANDBOX_USDC}',
    wallet: 'treasury',
    ...(chain === 'beta' ? { min: '20000', target: '30000', max: '45000' } : { min: '40000', target: '50000', max: '60000' }),
  });
  const doc = {
    ...base,
    chains: {
      ...(base.chains as object),
      gamma: { chainId: 31003, rpcUrl: '${SANDBOX_GAMMA_RPC}' },
      delta: { chainId: 31004, rpcUrl: '${SANDBOX_DELTA_RPC}' },
    },
    assets: { USDC: ['alpha', 'beta', 'gamma', 'delta'].map(usdc) },
    policy: { ...(base.policy as object), routeChoice: { maxCandidates, parallelQuotes: 3 } },
    webhooks: { enabled: false },
  };
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(doc));
  const config = loadConfig(file, { ...sandbox.env, BALLAST_DEMO_STORE: path.join(dir, `${name}.db`) });
  return createBallast(config, { logger: pino({ level: 'silent' }), chainPollingIntervalMs: 50 });
}

/** Every donor's route quoted on its own and priced as the cycle prices a candidate: the cheapest possible total fees, micro-USD. */
async function cheapestPossible(ballast: Ballast, report: Awaited<ReturnType<Ballast['runCycle']>>): Promise<bigint> {
  const planned = report.plan.transfers[0]!;
  const routes = [planned, ...(planned.alternatives ?? []).map((a) => ({ ...planned, from: a.from, amountIn: a.amountIn }))];
  const policy = ballast.ctx.config.policy;
  let best: bigint | null = null;
  for (const r of routes) {
    const { quote } = await ballast.ctx.relay.quote(buildQuoteRequest(r, { slippageBps: policy.slippageBps }));
    const fee = priceQuote(ballast.ctx, r, quote); // priced exactly as the cycle prices each candidate
    if (!fee.breakdown) continue;
    if (best === null || fee.breakdown.totalMicros < best) best = fee.breakdown.totalMicros;
  }
  if (best === null) throw new Error('no route could be priced');
  return best;
}

/** Runs the rounds; prints each; returns the rows. */
export async function routeChoiceRows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-route-'));
  const sandbox = await startSandboxProcess();
  const setFaults = async (faults: object) => {
    const res = await fetch(`${sandbox.apiUrl}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(faults),
    });
    if (!res.ok) throw new Error(`POST /_sandbox/faults answered ${res.status}`);
  };
  const withChoice = instance(sandbox, dir, 'choice', 3);
  const without = instance(sandbox, dir, 'single', 1);
  const ratios: number[] = [];
  const extra: number[] = [];
  const single: number[] = [];
  try {
    await withChoice.runCycle('plan'); // warm-up: connections, GET /chains cache, decimals
    await without.runCycle('plan');
    for (let i = 0; i < ROUNDS; i++) {
      await setFaults({ extraFeesByOrigin: Object.fromEntries(DONORS.map((d, j) => [d, { executionUsd: EXTRA_USD[(i + j) % 3]! }])) });
      let report!: Awaited<ReturnType<Ballast['runCycle']>>;
      const choiceMs = await timeMs(async () => (report = await withChoice.runCycle('plan')));
      const singleMs = await timeMs(() => without.runCycle('plan'));
      const attempt = report.attempts[0];
      const chosen = attempt?.candidates?.find((c) => c.outcome === 'chosen');
      if (!attempt || attempt.outcome !== 'quoted' || !chosen?.feesMicros)
        throw new Error(`round ${i + 1}: route choice did not pick a route (${attempt?.outcome ?? 'no attempt'})`);
      const cheapest = await cheapestPossible(without, report); // its own client: the choice's /quote rate limit stays untouched
      ratios.push(Number(chosen.feesMicros) / Number(cheapest));
      extra.push(choiceMs - singleMs);
      single.push(singleMs);
      console.log(
        `route choice round ${i + 1}: ${attempt.candidates!.map((c) => `${c.planned.from.chain} ${c.outcome}${c.feesMicros !== undefined ? ` ${(Number(c.feesMicros) / 1e6).toFixed(4)}` : ''}`).join(', ')}; ` +
          `chosen ÷ cheapest ${ratios.at(-1)!.toFixed(4)}; plan cycle ${choiceMs.toFixed(0)} ms vs ${singleMs.toFixed(0)} ms with one candidate`,
      );
    }
  } finally {
    await withChoice.close();
    await without.close();
    sandbox.child.stdin!.end();
    await new Promise((resolve) => sandbox.child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    {
      label: 'route choice: chosen ÷ cheapest possible fees (worst round)',
      value: Math.max(...ratios),
      limit: 1,
      unit: '×',
      note: `${ROUNDS} rounds, 3 donors with different fees`,
    },
    {
      label: 'route choice: extra latency of 3 candidates / 1-candidate cycle',
      value: Math.max(0, median(extra)) / median(single),
      limit: 1.5,
      unit: '×',
      note: `median extra ${median(extra).toFixed(0)} ms over a ${median(single).toFixed(0)} ms plan cycle`,
    },
  ];
}
