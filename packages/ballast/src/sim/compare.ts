/**
 * `ballast simulate --compare` (docs/simulate.md "Comparing configs"): the same scenario and seed run once per
 * variant — `scenario` (the scenario's own holdings) or a Ballast config file used as the global `--config` is —
 * then a scorecard with one row per variant, ranked by Hyperlane's rule (completion, then rebalance volume;
 * src/sim/published.ts) and the best value of each column marked, the compare JSON
 * `{ scenario, seed, variants: [{ name, rank, kpis }] }`, and the files `--out` writes. Only {@link runVariants}
 * runs anything; the rest is pure.
 */
import path from 'node:path';
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { formatUnits } from 'viem';
import { computeKpis, timeBelowMinTotal, type SimKpis } from './kpis.ts';
import { rankableOf, rankByAnchorRule } from './published.ts';
import { runScenario, type SimLog } from './run.ts';
import type { SimRefillPoint, SimScenario } from './scenario.ts';
import { balancesSvg, compareSvg } from './svg.ts';

/** The variant name meaning "the scenario's own holdings". */
export const SCENARIO_VARIANT = 'scenario';

/** One variant: its label, and the config file it runs with (none: the scenario's own holdings). */
export interface Variant {
  name: string;
  configFile?: string;
}

/** A variant's run: its log and KPIs. */
export interface VariantRun {
  name: string;
  log: SimLog;
  kpis: SimKpis;
}

/** What `--json` prints with `--compare`: the variants in the order given, each with its place by Hyperlane's rule. */
export interface CompareReport {
  scenario: string;
  seed: number;
  variants: { name: string; rank: number; kpis: SimKpis }[];
}

/** The scorecard: a header and one row per variant, the best cell of each column ending in ` *`. */
export interface Scorecard {
  head: string[];
  rows: string[][];
}

/**
 * A name made safe for a file name: letters, digits, `.`, `_` and `-` kept, any other run of characters one `-`,
 * no leading dot or dash; `scenario` when nothing is left.
 */
export function safeFileName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '')
    .replace(/-+$/, '');
  return safe === '' ? 'scenario' : safe;
}

/**
 * The variants of `--compare` arguments, in order: `scenario`, or a config file path labelled by its base name
 * without extension (`configs/high-min.yaml` → `high-min`). A label whose file name is already taken (or is
 * `compare`, the name of the compare files) gets `-2`, `-3`, … so every variant has its own row and files.
 */
export function variantsOf(args: readonly string[]): Variant[] {
  const taken = new Set(['compare']);
  return args.map((arg) => {
    const base = arg === SCENARIO_VARIANT ? SCENARIO_VARIANT : path.parse(arg).name || arg;
    let name = base;
    for (let i = 2; taken.has(safeFileName(name)); i++) name = `${base}-${i}`;
    taken.add(safeFileName(name));
    return arg === SCENARIO_VARIANT ? { name } : { name, configFile: arg };
  });
}

/**
 * Runs the scenario once per variant, one after the other, with the same seed and refill point (`runScenario` with
 * the variant's `configFile`).
 *
 * @throws as runScenario does (ConfigError for a config file that does not load)
 */
export async function runVariants(
  s: SimScenario,
  variants: readonly Variant[],
  options: { seed: number; logLevel?: string; refillTo?: SimRefillPoint },
): Promise<VariantRun[]> {
  const runs: VariantRun[] = [];
  for (const v of variants) {
    const log = await runScenario(s, {
      seed: options.seed,
      ...(v.configFile ? { configFile: v.configFile } : {}),
      ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      ...(options.refillTo ? { refillTo: options.refillTo } : {}),
    });
    runs.push({ name: v.name, log, kpis: computeKpis(log) });
  }
  return runs;
}

/**
 * The place of each variant, in the order given, by Hyperlane's rule (completion rate highest first, then rebalance
 * volume lowest first; 1 first, level variants sharing a place).
 */
export function ranksOf(variants: readonly { kpis: SimKpis }[]): number[] {
  const ranked = rankByAnchorRule(variants.map((v, i) => ({ ...rankableOf(v.kpis), i })));
  const ranks: number[] = [];
  for (const { entry, rank } of ranked) ranks[entry.i] = rank;
  return ranks;
}

/** The compare JSON of runs of one scenario and seed. */
export function compareReport(scenario: string, seed: number, runs: readonly VariantRun[]): CompareReport {
  const ranks = ranksOf(runs);
  return { scenario, seed, variants: runs.map(({ name, kpis }, i) => ({ name, rank: ranks[i]!, kpis })) };
}

/** A scorecard column: its cell text, the value compared, and which end is best. */
interface Column {
  head: string;
  text: (k: SimKpis) => string;
  value: (k: SimKpis) => number | bigint | null;
  best: 'highest' | 'lowest';
}

function columns(decimals: number): Column[] {
  const units = (s: string) => formatUnits(BigInt(s), decimals);
  const latency = (head: string, pick: (k: SimKpis) => number): Column => ({
    head,
    text: (k) => String(pick(k)),
    value: pick,
    best: 'lowest',
  });
  return [
    {
      head: 'completed',
      text: (k) => `${k.completedTransfers}/${k.totalTransfers} (${(k.completionRate * 100).toFixed(1)} %)`,
      value: (k) => k.completionRate,
      best: 'highest',
    },
    latency('p50 ms', (k) => k.p50Latency),
    latency('p95 ms', (k) => k.p95Latency),
    latency('p99 ms', (k) => k.p99Latency),
    { head: 'rebalances', text: (k) => String(k.totalRebalances), value: (k) => k.totalRebalances, best: 'lowest' },
    { head: 'volume', text: (k) => units(k.rebalanceVolume), value: (k) => BigInt(k.rebalanceVolume), best: 'lowest' },
    { head: 'fees USD', text: (k) => k.feesPaidUsd, value: (k) => parseUsdMicros(k.feesPaidUsd), best: 'lowest' },
    { head: 'efficiency', text: (k) => String(k.efficiency), value: (k) => k.efficiency, best: 'lowest' },
    { head: 'below min ms', text: (k) => String(timeBelowMinTotal(k) ?? '-'), value: timeBelowMinTotal, best: 'lowest' },
    { head: 'peak in flight', text: (k) => units(k.peakCapitalInFlight), value: (k) => BigInt(k.peakCapitalInFlight), best: 'lowest' },
  ];
}

/**
 * The scorecard of variants (amounts in whole units of a token with `decimals`): per variant, its place by
 * Hyperlane's rule ({@link ranksOf}), payments completed (n/total and %), p50/p95/p99 wait ms, rebalances, volume,
 * fees USD, efficiency, time below min (summed over the banded holdings; `-` with none) and peak capital in flight;
 * rows in the order of their places (level variants in the order given). Where the variants differ in a column,
 * every cell with its best value (the highest completion, the lowest of every other column) ends in ` *`.
 */
export function scorecard(variants: readonly { name: string; kpis: SimKpis }[], decimals: number): Scorecard {
  const cols = columns(decimals);
  const ranks = ranksOf(variants);
  const rows = variants.map((v, i) => [String(ranks[i]), v.name, ...cols.map((c) => c.text(v.kpis))]);
  cols.forEach((c, i) => {
    const values = variants.map((v) => c.value(v.kpis));
    const present = values.filter((x): x is number | bigint => x !== null);
    if (present.length < 2 || present.every((x) => x === present[0])) return; // nothing to choose between
    const best = present.reduce((a, b) => ((c.best === 'highest' ? b > a : b < a) ? b : a));
    values.forEach((x, row) => {
      if (x === best) rows[row]![i + 2] += ' *'; // rows and values are both per variant
    });
  });
  const order = variants.map((_, i) => i).sort((a, b) => ranks[a]! - ranks[b]! || a - b);
  return { head: ['rank', 'variant', ...cols.map((c) => c.head)], rows: order.map((i) => rows[i]!) };
}

/**
 * The files `--out` writes for a compare run, by file name: `<scenario>-compare.json` (the compare JSON, through
 * `json`), `<scenario>-<variant>.svg` per variant (its balances) and `<scenario>-compare.svg` (every variant's
 * balances). Names made safe by {@link safeFileName}.
 */
export function compareFiles(report: CompareReport, runs: readonly VariantRun[], json: (v: unknown) => string): Record<string, string> {
  const base = safeFileName(report.scenario);
  const files: Record<string, string> = { [`${base}-compare.json`]: `${json(report)}\n` };
  for (const r of runs) files[`${base}-${safeFileName(r.name)}.svg`] = balancesSvg(r.log);
  files[`${base}-compare.svg`] = compareSvg(report.scenario, report.seed, runs);
  return files;
}

/** The files `--out` writes for a single run: `<scenario>.json` (the KPI object, through `json`) and `<scenario>.svg`. */
export function runFiles(log: SimLog, kpis: SimKpis, json: (v: unknown) => string): Record<string, string> {
  const base = safeFileName(log.scenario);
  return { [`${base}.json`]: `${json(kpis)}\n`, [`${base}.svg`]: balancesSvg(log) };
}
