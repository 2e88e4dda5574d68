/**
 * Simulated treasury traffic (`npm run bench`, docs/simulate.md): every Hyperlane rebalancer-sim scenario
 * (hyperlane-xyz/hyperlane-monorepo, typescript/rebalancer-sim/scenarios; read from `BALLAST_SCENARIOS_DIR`, else
 * `../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios` beside the repository) runs through
 * `ballast simulate`'s runner with seed 1, in one process:
 *
 * - all of them within 120 s of wall time (the whole set, reading included);
 * - on each flow-* scenario with published results (`../results/<name>-comparison.json`), Ballast's completion,
 *   rebalances and average wait next to the five published strategies, held to the bar of bench/anchorResults.ts
 *   (every payment completed; no more rebalances than the strategy that completed every transfer with the fewest,
 *   except on flow-idle-then-spike, see test/unit/sim/anchorScenarios.test.ts; an average wait no longer).
 *
 * When the scenarios are absent, one line says so and no row is added.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatUnits } from 'viem';
import { computeKpis, type SimKpis } from '../packages/ballast/src/sim/kpis.ts';
import { readScenarioSet } from '../packages/ballast/src/sim/readScenario.ts';
import { runScenarioSet } from '../packages/ballast/src/sim/runSet.ts';
import { anchorBar, readAnchorResults, type AnchorRun } from './anchorResults.ts';
import type { BenchRow } from './lib.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the Hyperlane scenarios are read from. */
export const SCENARIOS_DIR =
  process.env.BALLAST_SCENARIOS_DIR ?? path.resolve(ROOT, '../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios');
/** Wall-time budget of the whole set, seconds. */
const BUDGET_SEC = 120;

/** One scenario's run. */
interface ScenarioRun {
  name: string;
  kpis: SimKpis;
  wallMs: number;
}

/** What the simulation benchmark adds to the results: rows with targets, and a Markdown section. */
export interface SimulateBench {
  rows: BenchRow[];
  /** The lines under {@link SIMULATE_HEADING} (empty when the scenarios are absent). */
  section: string[];
}

/** The heading of the section the simulation benchmark writes in bench/RESULTS.md (a kept section). */
export const SIMULATE_HEADING = "## Simulated traffic: Ballast next to Hyperlane's published rebalancer strategies";

/** Runs every scenario and compares the flow-* ones with the published results. */
export async function simulateBench(): Promise<SimulateBench> {
  if (!existsSync(SCENARIOS_DIR)) {
    console.log(`Hyperlane scenarios not found at ${SCENARIOS_DIR} (set BALLAST_SCENARIOS_DIR): simulation benchmark left out`);
    return { rows: [], section: [] };
  }
  const files = readdirSync(SCENARIOS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const started = Date.now();
  const runs: ScenarioRun[] = [];
  for (const f of files) {
    const t0 = Date.now();
    const set = readScenarioSet(JSON.parse(readFileSync(path.join(SCENARIOS_DIR, f), 'utf8')));
    const kpis = computeKpis(await runScenarioSet(set, { seed: 1 }));
    runs.push({ name: f.replace(/\.json$/, ''), kpis, wallMs: Date.now() - t0 });
    console.log(
      `simulate ${f.padEnd(40)} ${kpis.completedTransfers}/${kpis.totalTransfers} paid, ${kpis.totalRebalances} rebalances, avg wait ${kpis.averageLatency.toFixed(0)} ms, ${Date.now() - t0} ms wall`,
    );
  }
  const wallSec = (Date.now() - started) / 1000;
  const rows: BenchRow[] = [
    { label: `simulate all ${runs.length} Hyperlane scenarios (wall)`, value: wallSec, limit: BUDGET_SEC, unit: 's' },
  ];
  const compared: string[] = [];
  const resultsDir = path.join(SCENARIOS_DIR, '..', 'results');
  for (const run of runs) {
    const file = path.join(resultsDir, `${run.name}-comparison.json`);
    if (!existsSync(file)) continue;
    const { runs: anchor } = readAnchorResults(JSON.parse(readFileSync(file, 'utf8')));
    const bar = anchorBar(anchor);
    if (!bar) continue;
    const k = run.kpis;
    const reacted = Math.min(...anchor.filter((r) => r.totalRebalances > 0).map((r) => r.totalRebalances));
    const cold = run.name === 'flow-idle-then-spike';
    const limit = cold ? reacted : bar.totalRebalances;
    rows.push({ label: `${run.name}: payments not completed`, value: k.failedTransfers, limit: 0, unit: '' });
    rows.push({
      label: `${run.name}: rebalances`,
      value: k.totalRebalances,
      limit,
      unit: '',
      note: cold
        ? `published fewest: ${bar.strategy} ${bar.totalRebalances} (cold signal); fewest of those that reacted: ${reacted}`
        : `bar: ${bar.strategy} ${bar.totalRebalances}`,
    });
    rows.push({
      label: `${run.name}: average wait`,
      value: k.averageLatency,
      limit: bar.averageLatency,
      unit: 'ms',
      note: `${bar.strategy}: ${bar.averageLatency.toFixed(0)} ms`,
    });
    compared.push(...comparisonLines(run.name, anchor, k));
  }
  return { rows, section: section(runs, compared, wallSec) };
}

/** Table rows of one scenario: the published strategies, then Ballast. */
function comparisonLines(name: string, anchor: readonly AnchorRun[], k: SimKpis): string[] {
  const cell = (done: number, total: number, rebalances: number, latency: number) =>
    `${((done / total) * 100).toFixed(1)} % (${done}/${total}) / ${rebalances} / ${latency.toFixed(0)}`;
  const cells = anchor.map((r) => cell(r.completedTransfers, r.totalTransfers, r.totalRebalances, r.averageLatency));
  return [`| ${name} | ${cells.join(' | ')} | **${cell(k.completedTransfers, k.totalTransfers, k.totalRebalances, k.averageLatency)}** |`];
}

function section(runs: readonly ScenarioRun[], compared: readonly string[], wallSec: number): string[] {
  const strategies = ['emaFlow', 'velocityFlow', 'thresholdFlow', 'accelerationFlow', 'compositeDeficitWeighted'];
  const units = (s: string) => Number(formatUnits(BigInt(s), 18)).toFixed(1);
  return [
    `- Date: ${new Date().toISOString()}; written by \`npm run bench\` or \`npm run bench:simulate\` (bench/simulate.ts)`,
    '',
    `\`ballast simulate\` (docs/simulate.md) on every Hyperlane rebalancer-sim scenario, seed 1: ${runs.length} scenarios in`,
    `${wallSec.toFixed(1)} s of wall time. Each cell: payments completed / rebalances / average wait (ms). The published`,
    'columns are the JSON results of the upstream comparison runs (see docs/simulate.md "Side by side" for how they were',
    "made: its strategies ran one after another on one deployment, so only emaFlow's row starts from the even split).",
    '',
    `| scenario | ${strategies.join(' | ')} | Ballast (flow mode) |`,
    `| --- | ${strategies.map(() => '---').join(' | ')} | --- |`,
    ...compared,
    '',
    'Ballast is held to the published strategy that completed every transfer with the fewest rebalances (and its',
    'average wait); on flow-idle-then-spike that 0 is a cold emaFlow signal, so there the bar is the fewest of the',
    'strategies that reacted (docs/simulate.md "Side by side", which also says how waits are measured on each side).',
    '',
    'Every scenario (token amounts in whole units; waits in ms):',
    '',
    '| scenario | paid | rebalances | volume | avg wait | p95 wait | efficiency | wall ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      ({ name, kpis: k, wallMs }) =>
        `| ${name} | ${k.completedTransfers}/${k.totalTransfers} | ${k.totalRebalances} | ${units(k.rebalanceVolume)} | ${k.averageLatency.toFixed(0)} | ${k.p95Latency} | ${k.efficiency.toFixed(3)} | ${wallMs} |`,
    ),
    '',
  ];
}
