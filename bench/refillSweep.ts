/**
 * The refill point sweep (docs/simulate.md "Refill point"): every scenario Ballast ships (packages/ballast/scenarios/)
 * and every Hyperlane rebalancer-sim scenario (read as bench/simulate.ts reads them; left out with one line when
 * absent) run with seed 1 once per refill point of {@link REFILL_POINTS} (`policy.refillTo`: a holding below min is
 * refilled to its target, or to min plus a share of its band), the flow-* ones beside Hyperlane's published
 * strategies from each strategy's own start, and their perturbed families (bench/simulate.ts) once per point. Each scenario's runs are ranked by Hyperlane's rule (completion rate,
 * then rebalance volume); the section bench/RESULTS.md keeps says, per refill point, what it completed, moved and
 * waited, and how often it ranks first.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { readHyperlaneScenario } from '../packages/ballast/src/sim/hyperlane.ts';
import { computeKpis, type SimKpis } from '../packages/ballast/src/sim/kpis.ts';
import { perturbHyperlane } from '../packages/ballast/src/sim/perturb.ts';
import { comparePublished, readPublishedResults, type Verdict } from '../packages/ballast/src/sim/published.ts';
import { readScenarioSet, type ScenarioSet } from '../packages/ballast/src/sim/readScenario.ts';
import { runScenarioSet } from '../packages/ballast/src/sim/runSet.ts';
import type { BenchRow } from './lib.ts';
import { refillSection, type FamilyTotals, type PointVerdicts, type SweepScenario } from './refillSweepReport.ts';
import { FAMILY_SIZE, SCENARIOS_DIR } from './simulate.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Ballast's own scenarios. */
const SHIPPED_DIR = path.join(ROOT, 'packages/ballast/scenarios');
/** The refill points compared: the product's default first. */
export const REFILL_POINTS = ['target', '25%', '40%', '50%', '75%'] as const;
/** The heading of the section the sweep writes in bench/RESULTS.md (a kept section). */
export const REFILL_HEADING = '## Refill point: every scenario with each refill point';
/** Wall-time budget of the whole sweep, seconds. */
const BUDGET_SEC = 600;

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

/** What the sweep adds to the results: rows with targets, and a Markdown section. */
export interface RefillSweep {
  rows: BenchRow[];
  section: string[];
}

/** Runs one scenario file once per refill point. */
async function sweepOne(group: SweepScenario['group'], name: string, set: ScenarioSet): Promise<SweepScenario> {
  const runs: Record<string, SimKpis> = {};
  for (const point of REFILL_POINTS) runs[point] = computeKpis(await runScenarioSet(set, { seed: 1, refillTo: point }));
  const decimals = set.scenarios[0]?.token.decimals ?? 18;
  const line = REFILL_POINTS.map((p) => `${p} ${runs[p]!.completedTransfers}/${runs[p]!.totalTransfers} v${runs[p]!.rebalanceVolume}`);
  console.log(`refill ${name.padEnd(36)} ${line.join(' | ')}`);
  return { group, name, decimals, runs };
}

/** The sweep: every shipped and Hyperlane scenario, each refill point, and the published comparisons per point. */
export async function refillSweep(): Promise<RefillSweep> {
  const started = Date.now();
  const scenarios: SweepScenario[] = [];
  for (const f of readdirSync(SHIPPED_DIR)
    .filter((x) => /\.ya?ml$/.test(x))
    .sort()) {
    const set = readScenarioSet(parseYaml(readFileSync(path.join(SHIPPED_DIR, f), 'utf8')));
    scenarios.push(await sweepOne('shipped', f.replace(/\.ya?ml$/, ''), set));
  }
  const anchor = existsSync(SCENARIOS_DIR);
  if (!anchor)
    console.log(`Hyperlane scenarios not found at ${SCENARIOS_DIR} (set BALLAST_SCENARIOS_DIR): refill sweep on Ballast's own only`);
  const files = anchor
    ? readdirSync(SCENARIOS_DIR)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
  for (const f of files)
    scenarios.push(await sweepOne('anchor', f.replace(/\.json$/, ''), readScenarioSet(readJson(path.join(SCENARIOS_DIR, f)))));

  const verdicts: PointVerdicts = Object.fromEntries(REFILL_POINTS.map((p) => [p, { ahead: 0, level: 0, behind: 0 }]));
  const resultsDir = path.join(SCENARIOS_DIR, '..', 'results');
  for (const f of files) {
    const file = path.join(resultsDir, `${f.replace(/\.json$/, '')}-comparison.json`);
    if (!existsSync(file)) continue;
    const scenario = readHyperlaneScenario(readJson(path.join(SCENARIOS_DIR, f)));
    const { runs } = readPublishedResults(readJson(file));
    for (const point of REFILL_POINTS) {
      for (const c of await comparePublished(scenario, runs, { seed: 1, refillTo: point })) verdicts[point]![c.verdict as Verdict] += 1;
    }
  }
  const families: FamilyTotals = Object.fromEntries(
    REFILL_POINTS.map((p) => [p, { paid: 0, total: 0, rebalances: 0, volume: 0n, runs: 0 }]),
  );
  for (const f of files) {
    const name = f.replace(/\.json$/, '');
    if (!existsSync(path.join(resultsDir, `${name}-comparison.json`))) continue;
    const doc = readJson(path.join(SCENARIOS_DIR, f));
    for (const point of REFILL_POINTS) {
      const sum = families[point]!;
      for (let seed = 1; seed <= FAMILY_SIZE; seed++) {
        const k = computeKpis(await runScenarioSet(readScenarioSet(perturbHyperlane(doc, seed)), { seed, refillTo: point }));
        sum.paid += k.completedTransfers;
        sum.total += k.totalTransfers;
        sum.rebalances += k.totalRebalances;
        sum.volume += BigInt(k.rebalanceVolume);
        sum.runs += 1;
      }
    }
    console.log(`refill family ${name}: ${FAMILY_SIZE} members × ${REFILL_POINTS.length} points`);
  }
  const wallSec = (Date.now() - started) / 1000;
  const section = refillSection({ points: REFILL_POINTS, scenarios, verdicts, families, wallSec });
  return {
    rows: [
      {
        label: `refill point sweep: ${scenarios.length} scenarios × ${REFILL_POINTS.length} points (wall)`,
        value: wallSec,
        limit: BUDGET_SEC,
        unit: 's',
      },
      {
        label: 'refill point target: scenarios where another point completes more',
        value: scenarios.filter((s) => REFILL_POINTS.some((p) => s.runs[p]!.completionRate > s.runs.target!.completionRate)).length,
        limit: 0,
        unit: '',
        note: 'completion first, as Hyperlane ranks; docs/simulate.md "Refill point"',
      },
    ],
    section,
  };
}
