/**
 * docs/metrics.md against the registry: every registered `ballast_*` metric has a catalogue row with its type and
 * labels, and every row names a registered metric.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';

interface Row {
  name: string;
  type: string;
  labels: string[];
}

function catalogueRows(): Row[] {
  const text = readFileSync(fileURLToPath(new URL('../../../docs/metrics.md', import.meta.url)), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('| `ballast_'))
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim());
      const labels = cells[3] === '—' ? [] : [...cells[3]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
      return { name: cells[1]!.replace(/`/g, ''), type: cells[2]!, labels };
    });
}

async function registered(): Promise<Row[]> {
  const m = createMetrics();
  return (await m.registry.getMetricsAsJSON())
    .filter((x) => x.name.startsWith('ballast_'))
    .map((x) => ({
      name: x.name,
      type: String(x.type),
      labels: (m.registry.getSingleMetric(x.name) as unknown as { labelNames: string[] }).labelNames, // prom-client keeps them on the instance
    }));
}

describe('docs/metrics.md', () => {
  it('documents every registered ballast_* metric with its type and labels', async () => {
    const rows = new Map(catalogueRows().map((r) => [r.name, r]));
    const reg = await registered();
    expect(reg.length).toBeGreaterThan(40);
    const missing = reg.filter((r) => !rows.has(r.name)).map((r) => r.name);
    expect(missing, 'registered but not in docs/metrics.md').toEqual([]);
    for (const r of reg) expect(rows.get(r.name), r.name).toEqual(r);
  });

  it('has no stale or duplicate row', async () => {
    const names = new Set((await registered()).map((r) => r.name));
    const rows = catalogueRows();
    expect(
      rows.filter((r) => !names.has(r.name)).map((r) => r.name),
      'in docs/metrics.md but not registered',
    ).toEqual([]);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
  });
});
