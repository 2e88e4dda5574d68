/**
 * Metric names in PromQL and in a prom-client registry, for the deploy/ tests (dashboard, alerts, live
 * Prometheus) that check every name they query exists.
 */
import type { Registry } from 'prom-client';

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'group',
]);

/**
 * The metric names an expression selects: identifiers followed by `{`, `[` or an operator that are neither
 * functions (followed by `(`), keywords, nor inside label matchers, strings or `by (...)` lists.
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings
    .replace(/\{[^}]*\}/g, '{}') // label matchers
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\[[^\]]*\]/g, '[]'); // ranges
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const word = m[0];
    const after = stripped.slice(m.index + word.length).trimStart();
    if (after.startsWith('(') || PROMQL_WORDS.has(word)) continue;
    const before = stripped.slice(0, m.index);
    if (/[0-9.]$/.test(before)) continue; // a number's exponent or unit (1e3, 5m)
    names.add(word);
  }
  return [...names];
}

/** Every sample name a registry exposes (histograms as `_bucket`, `_sum`, `_count`), from its metadata. */
export async function registryMetricNames(registry: Registry): Promise<string[]> {
  const metrics = await registry.getMetricsAsJSON();
  // prom-client's typings declare `type` as a numeric enum; at run time it is the exposition type name.
  return metrics.flatMap((m) => (String(m.type) === 'histogram' ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name]));
}

/** Every sample name in a Prometheus text exposition's `# TYPE` lines (histograms as `_bucket`, `_sum`, `_count`). */
export function expositionMetricNames(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
    type === 'histogram' || type === 'summary' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`, name!] : [name!],
  );
}
