/**
 * The scenarios Ballast ships (packages/ballast/scenarios/, docs/simulate.md "Shipped scenarios"): `ballast simulate`
 * on each prints the KPI table naming the scenario and every holding, and a run with seed 1 meets the scenario's own
 * `expect` block, every field it gives.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildProgram } from '../../../packages/ballast/src/cli/main.ts';
import { readBallastScenario } from '../../../packages/ballast/src/sim/ballastScenario.ts';
import { timeBelowMinTotal } from '../../../packages/ballast/src/sim/compare.ts';
import { computeKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { readScenarioSet } from '../../../packages/ballast/src/sim/readScenario.ts';
import { runScenarioSet } from '../../../packages/ballast/src/sim/runSet.ts';

const DIR = fileURLToPath(new URL('../../../packages/ballast/scenarios/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();

/** The first cells of the table rows (`│ a │ b │` → `a`). */
function firstCells(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.split('│').map((c) => c.trim()))
    .filter((c) => c.length > 2)
    .map((c) => c[1]!);
}

describe('description and expect', () => {
  const doc = (extra: Record<string, unknown>) => ({
    name: 'x',
    token: { symbol: 'USDC', decimals: 6 },
    chains: { base: { initial: '10', holding: { weight: 1 } }, arbitrum: { initial: '10', holding: { weight: 1 } } },
    traffic: [],
    ...extra,
  });

  it('carries the expect block as expectations, the fields given only, and reads the description', () => {
    const s = readBallastScenario(doc({ description: 'what it tests', expect: { maxRebalances: 2, maxFeesUsd: '1.5' } }));
    expect(s.expectations).toEqual({ maxRebalances: 2, maxFeesUsd: '1.5' });
    expect(readBallastScenario(doc({})).expectations).toBeUndefined();
  });

  it('refuses an unknown or malformed expectation', () => {
    expect(() => readBallastScenario(doc({ expect: { maxLatencyMs: 5 } }))).toThrow(/maxLatencyMs/);
    expect(() => readBallastScenario(doc({ expect: { minCompletionRate: 1.5 } }))).toThrow();
    expect(() => readBallastScenario(doc({ expect: { maxFeesUsd: 2 } }))).toThrow();
  });
});

describe('shipped scenarios', () => {
  it('ships about ten scenarios, each with a description and an expect block', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(10);
    for (const file of FILES) {
      const doc = parseYaml(readFileSync(path.join(DIR, file), 'utf8')) as Record<string, unknown>;
      expect(doc['name'], file).toBe(file.replace(/\.ya?ml$/, ''));
      expect(typeof doc['description'] === 'string' && doc['description'].length > 40, file).toBe(true);
      const set = readScenarioSet(doc);
      expect(Object.keys(set.scenarios[0]?.expectations ?? {}).length, file).toBeGreaterThan(0);
    }
  });

  it.each(FILES)('%s: `ballast simulate` prints the KPI table naming the scenario and every holding', async (file) => {
    const doc = parseYaml(readFileSync(path.join(DIR, file), 'utf8')) as { name: string; chains: Record<string, unknown> };
    const out: string[] = [];
    const program = await buildProgram((s) => out.push(s), ['simulate']);
    await program.parseAsync(['simulate', '--scenario', path.join(DIR, file)], { from: 'user' });
    const printed = out.join('\n');
    const cells = firstCells(printed);
    expect(cells).toContain(doc.name);
    for (const chain of Object.keys(doc.chains)) expect(cells, `${file}: holding ${chain}`).toContain(chain);
    expect(printed).toMatch(/\d+ cycles, [\d.]+ s simulated/);
  });

  it.each(FILES)('%s: a run with seed 1 meets its expect block', async (file) => {
    const set = readScenarioSet(parseYaml(readFileSync(path.join(DIR, file), 'utf8')));
    const e = set.scenarios[0]?.expectations;
    if (!e) throw new Error(`${file} has no expect block`);
    const k = computeKpis(await runScenarioSet(set, { seed: 1 }));
    const unmet: string[] = [];
    const check = (field: string, ok: boolean, actual: unknown) => {
      if (!ok) unmet.push(`${field}: got ${String(actual)}`);
    };
    if (e.minCompletionRate !== undefined) check('minCompletionRate', k.completionRate >= e.minCompletionRate, k.completionRate);
    if (e.minRebalances !== undefined) check('minRebalances', k.totalRebalances >= e.minRebalances, k.totalRebalances);
    if (e.maxRebalances !== undefined) check('maxRebalances', k.totalRebalances <= e.maxRebalances, k.totalRebalances);
    if (e.maxTimeBelowMinMs !== undefined) {
      const below = timeBelowMinTotal(k);
      if (below === null) throw new Error(`${file}: maxTimeBelowMinMs needs a banded holding`);
      check('maxTimeBelowMinMs', below <= e.maxTimeBelowMinMs, below);
    }
    if (e.maxFeesUsd !== undefined) {
      // USD decimal strings, compared exactly as micro-dollars.
      check('maxFeesUsd', parseUnits(k.feesPaidUsd, 6) <= parseUnits(e.maxFeesUsd, 6), k.feesPaidUsd);
    }
    expect(unmet, `${file}: expect block not met`).toEqual([]);
  });
});
