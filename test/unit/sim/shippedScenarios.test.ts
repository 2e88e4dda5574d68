/**
 * The scenarios Ballast ships (packages/ballast/scenarios/, docs/simulate.md "Shipped scenarios"): `ballast simulate`
 * on each prints the KPI table naming the scenario and every holding and says its `expect` block is met, and the
 * KPIs it writes with `--out` (seed 1) meet every field of that block. One run per scenario.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildProgram } from '../../../packages/ballast/src/cli/main.ts';
import { readBallastScenario } from '../../../packages/ballast/src/sim/ballastScenario.ts';
import { unmetExpectations } from '../../../packages/ballast/src/sim/expectations.ts';
import type { SimKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { readScenarioSet } from '../../../packages/ballast/src/sim/readScenario.ts';

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

  it.each(FILES)('%s: `ballast simulate` prints the KPI table, and the run meets its expect block', async (file) => {
    const doc = parseYaml(readFileSync(path.join(DIR, file), 'utf8')) as { name: string; chains: Record<string, unknown> };
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-shipped-'));
    try {
      const out: string[] = [];
      const program = await buildProgram((s) => out.push(s), ['simulate']);
      await program.parseAsync(['simulate', '--scenario', path.join(DIR, file), '--out', dir], { from: 'user' });
      const printed = out.join('\n');
      const cells = firstCells(printed);
      expect(cells).toContain(doc.name);
      for (const chain of Object.keys(doc.chains)) expect(cells, `${file}: holding ${chain}`).toContain(chain);
      expect(printed).toMatch(/\d+ cycles, [\d.]+ s simulated/);
      expect(printed).toMatch(/expect: met \(\d+ checks\)/);
      // the same verdict from the KPIs the run wrote
      const kpis = JSON.parse(readFileSync(path.join(dir, `${doc.name}.json`), 'utf8')) as SimKpis;
      const e = readScenarioSet(doc).scenarios[0]!.expectations!; // checked above: every file has one
      expect(unmetExpectations(kpis, e), `${file}: expect block not met`).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('unmetExpectations', () => {
  const kpis = (over: Partial<SimKpis>) =>
    ({
      completionRate: 1,
      totalRebalances: 3,
      feesPaidUsd: '1.25',
      perChainMetrics: { a: { timeBelowMinMs: 1000 }, b: { timeBelowMinMs: null } },
      ...over,
    }) as unknown as SimKpis;

  it('passes a run that meets every field', () => {
    const e = { minCompletionRate: 1, minRebalances: 3, maxRebalances: 3, maxTimeBelowMinMs: 1000, maxFeesUsd: '1.25' };
    expect(unmetExpectations(kpis({}), e)).toEqual([]);
  });

  it('names each field the run misses, with what it got', () => {
    const e = { minCompletionRate: 1, maxRebalances: 2, maxTimeBelowMinMs: 999, maxFeesUsd: '1.249999' };
    expect(unmetExpectations(kpis({ completionRate: 0.5 }), e)).toEqual([
      'minCompletionRate: got 0.5, expected at least 1',
      'maxRebalances: got 3, expected at most 2',
      'maxTimeBelowMinMs: got 1000, expected at most 999 ms',
      'maxFeesUsd: got 1.25, expected at most 1.249999',
    ]);
    expect(unmetExpectations(kpis({ totalRebalances: 0 }), { minRebalances: 1 })).toEqual(['minRebalances: got 0, expected at least 1']);
  });

  it('fails a time-below-min bound when no holding has a band', () => {
    const k = kpis({ perChainMetrics: { a: { timeBelowMinMs: null } } as unknown as SimKpis['perChainMetrics'] });
    expect(unmetExpectations(k, { maxTimeBelowMinMs: 5 })).toEqual(['maxTimeBelowMinMs: got no banded holding, expected at most 5 ms']);
  });
});
