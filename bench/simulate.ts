/**
 * Simulated treasury traffic (`npm run bench`, docs/simulate.md): every Hyperlane rebalancer-sim scenario
 * (hyperlane-xyz/hyperlane-monorepo, typescript/rebalancer-sim/scenarios; read from `BALLAST_SCENARIOS_DIR`, else
 * `../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios` beside the repository) runs through
 * `ballast simulate`'s runner in one process:
 *
 * - every file with seed 1, all within 120 s of wall time (reading included);
 * - each flow-* scenario with published results (`../results/<name>-comparison.json`) side by side with the five
 *   published strategies by Hyperlane's own rule (completion rate, then rebalance volume; src/sim/published.ts),
 *   Ballast run from each strategy's own starting balances; target: no strategy ranks ahead of Ballast;
 * - a family of {@link FAMILY_SIZE} perturbed members of each of those scenarios (src/sim/perturb.ts: amounts
 *   × 0.8–1.2, times ± 500 ms, chains renamed; member k perturbed and run with seed k); target: every payment of
 *   every member completed.
 *
 * When the scenarios are absent, one line says so and no row is added.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readHyperlaneScenario } from '../packages/ballast/src/sim/hyperlane.ts';
import { computeKpis, type SimKpis } from '../packages/ballast/src/sim/kpis.ts';
import { perturbHyperlane } from '../packages/ballast/src/sim/perturb.ts';
import { comparePublished, readPublishedResults, type PublishedComparison } from '../packages/ballast/src/sim/published.ts';
import { readScenarioSet } from '../packages/ballast/src/sim/readScenario.ts';
import { runScenarioSet } from '../packages/ballast/src/sim/runSet.ts';
import type { SimScenario } from '../packages/ballast/src/sim/scenario.ts';
import type { BenchRow } from './lib.ts';
import { simulateSection, type FamilyRun, type PublishedScenario, type ScenarioRun } from './simulateReport.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the Hyperlane scenarios are read from. */
export const SCENARIOS_DIR =
  process.env.BALLAST_SCENARIOS_DIR ?? path.resolve(ROOT, '../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios');
/** Wall-time budget of the whole set, seconds. */
const BUDGET_SEC = 120;
/** Members of each perturbed family (seeds 1 to this). */
export const FAMILY_SIZE = 8;

/** What the simulation benchmark adds to the results: rows with targets, and a Markdown section. */
export interface SimulateBench {
  rows: BenchRow[];
  /** The lines under {@link SIMULATE_HEADING} (empty when the scenarios are absent). */
  section: string[];
}

/** The heading of the section the simulation benchmark writes in bench/RESULTS.md (a kept section). */
export const SIMULATE_HEADING = "## Simulated traffic: Ballast next to Hyperlane's published rebalancer strategies";

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

/** Runs every scenario, compares the flow-* ones with the published strategies, and runs their families. */
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
    const set = readScenarioSet(readJson(path.join(SCENARIOS_DIR, f)));
    const kpis = computeKpis(await runScenarioSet(set, { seed: 1 }));
    runs.push({ name: f.replace(/\.json$/, ''), kpis, wallMs: Date.now() - t0 });
    console.log(`simulate ${f.padEnd(40)} ${summary(kpis)}, ${Date.now() - t0} ms wall`);
  }
  const wallSec = (Date.now() - started) / 1000;
  const rows: BenchRow[] = [
    { label: `simulate all ${runs.length} Hyperlane scenarios (wall)`, value: wallSec, limit: BUDGET_SEC, unit: 's' },
  ];

  const published: PublishedScenario[] = [];
  const resultsDir = path.join(SCENARIOS_DIR, '..', 'results');
  for (const { name } of runs) {
    const file = path.join(resultsDir, `${name}-comparison.json`);
    if (!existsSync(file)) continue;
    const scenario = readHyperlaneScenario(readJson(path.join(SCENARIOS_DIR, `${name}.json`)));
    const { runs: strategies } = readPublishedResults(readJson(file));
    const compared = await comparePublished(scenario, strategies, { seed: 1 });
    published.push({ name, scenario, compared });
    for (const c of compared) console.log(`published ${name} ${c.published.strategy}: Ballast ${c.verdict}, ${summary(c.ballast)}`);
    rows.push(...publishedRows(name, scenario, compared));
  }

  const families: FamilyRun[] = [];
  const familyStarted = Date.now();
  for (const { name } of published) {
    const doc = readJson(path.join(SCENARIOS_DIR, `${name}.json`));
    const members: SimKpis[] = [];
    for (let seed = 1; seed <= FAMILY_SIZE; seed++) {
      members.push(computeKpis(await runScenarioSet(readScenarioSet(perturbHyperlane(doc, seed)), { seed })));
    }
    families.push({ name, members });
    const unpaid = members.reduce((n, k) => n + k.failedTransfers, 0);
    console.log(`family ${name} (${members.length} members): ${unpaid} payments not completed`);
    rows.push({
      label: `${name} family of ${members.length}: payments not completed`,
      value: unpaid,
      limit: 0,
      unit: '',
      note: 'amounts × 0.8–1.2, times ± 500 ms, chains renamed; member k perturbed and run with seed k',
    });
  }
  const familySec = (Date.now() - familyStarted) / 1000;
  return { rows, section: simulateSection({ runs, wallSec, published, families, familySec }) };
}

/** One run in a line: paid, rebalances, volume and average wait. */
function summary(k: SimKpis): string {
  return `${k.completedTransfers}/${k.totalTransfers} paid, ${k.totalRebalances} rebalances, volume ${k.rebalanceVolume}, avg wait ${k.averageLatency.toFixed(0)} ms`;
}

/** The rows of one scenario's comparison: strategies ranking ahead of Ballast from their start (target 0). */
function publishedRows(name: string, s: SimScenario, compared: readonly PublishedComparison[]): BenchRow[] {
  const behind = compared.filter((c) => c.verdict === 'behind');
  const ahead = compared.filter((c) => c.verdict === 'ahead').length;
  const level = compared.filter((c) => c.verdict === 'level').length;
  return [
    {
      label: `${name}: strategies ranking ahead of Ballast (same start)`,
      value: behind.length,
      limit: 0,
      unit: '',
      note: `by completion, then volume; Ballast ahead of ${ahead}, level with ${level}${behind.length > 0 ? `, behind ${behind.map((c) => c.published.strategy).join(', ')}` : ''}`,
    },
  ];
}
