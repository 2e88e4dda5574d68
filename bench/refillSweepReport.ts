/**
 * The section bench/refillSweep.ts writes in bench/RESULTS.md: per refill point, what every scenario completed,
 * moved and waited, how often the point ranks first by Hyperlane's rule (completion rate, then rebalance volume),
 * and how Ballast stands against the published strategies with it; then every scenario's runs. Pure.
 */
import { parseUsdMicros } from '@ballast/protocol/core/units.ts';
import { timeBelowMinTotal, type SimKpis } from '../packages/ballast/src/sim/kpis.ts';
import { anchorOrder, rankByAnchorRule, roundedUnits } from '../packages/ballast/src/sim/published.ts';

/** One scenario's runs, one per refill point. */
export interface SweepScenario {
  /** `shipped`: packages/ballast/scenarios/; `anchor`: Hyperlane's rebalancer-sim files. */
  group: 'shipped' | 'anchor';
  name: string;
  /** The token's decimals (the volume's unit). */
  decimals: number;
  /** KPIs by refill point. */
  runs: Record<string, SimKpis>;
}

/** Per refill point: Ballast's verdicts against the published strategies, each from its own start. */
export type PointVerdicts = Record<string, { ahead: number; level: number; behind: number }>;

/** Per refill point: the perturbed families' runs added up (volume base units of Hyperlane's token). */
export type FamilyTotals = Record<string, { paid: number; total: number; rebalances: number; volume: bigint; runs: number }>;

/** What the section is made of. */
export interface RefillSectionInput {
  points: readonly string[];
  scenarios: readonly SweepScenario[];
  verdicts: PointVerdicts;
  families: FamilyTotals;
  wallSec: number;
}

/** A refill point's figures over a list of scenarios. */
export interface PointSummary {
  point: string;
  completed: number;
  total: number;
  /** Scenarios whose every payment completed. */
  fullyPaid: number;
  /** Scenarios where the point ranks first by Hyperlane's rule (level points share the first place). */
  first: number;
  /** Mean place by Hyperlane's rule among the points (1 best). */
  meanRank: number;
  rebalances: number;
  /** Volume per group, base units summed (one token per group: USDC for shipped, Hyperlane's token for anchor). */
  volume: Record<SweepScenario['group'], bigint>;
  /** Mean of the scenarios' average and 95th-percentile waits, ms. */
  meanAvgWaitMs: number;
  meanP95WaitMs: number;
  /** Time below min summed over every banded holding of every scenario, ms. */
  belowMinMs: number;
  /** Fees of the filled transfers, micro-USD summed over the scenarios. */
  feesMicroUsd: bigint;
}

const rankable = (k: SimKpis) => ({ completionRate: k.completionRate, rebalanceVolume: BigInt(k.rebalanceVolume) });

/** The place of each point in one scenario by Hyperlane's rule (1 first; level points share a place). */
export function placesOf(s: SweepScenario, points: readonly string[]): Record<string, number> {
  const ranked = rankByAnchorRule(points.map((point) => ({ point, ...rankable(s.runs[point]!) })));
  return Object.fromEntries(ranked.map((r) => [r.entry.point, r.rank]));
}

/** Each point's figures over `scenarios`. */
export function summarize(points: readonly string[], scenarios: readonly SweepScenario[]): PointSummary[] {
  const places = scenarios.map((s) => placesOf(s, points));
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return points.map((point) => {
    const runs = scenarios.map((s) => s.runs[point]!);
    const volume = { shipped: 0n, anchor: 0n };
    scenarios.forEach((s, i) => (volume[s.group] += BigInt(runs[i]!.rebalanceVolume)));
    return {
      point,
      completed: runs.reduce((n, k) => n + k.completedTransfers, 0),
      total: runs.reduce((n, k) => n + k.totalTransfers, 0),
      fullyPaid: runs.filter((k) => k.completedTransfers === k.totalTransfers).length,
      first: places.filter((p) => p[point] === 1).length,
      meanRank: mean(places.map((p) => p[point]!)),
      rebalances: runs.reduce((n, k) => n + k.totalRebalances, 0),
      volume,
      meanAvgWaitMs: mean(runs.map((k) => k.averageLatency)),
      meanP95WaitMs: mean(runs.map((k) => k.p95Latency)),
      belowMinMs: runs.reduce((n, k) => n + (timeBelowMinTotal(k) ?? 0), 0),
      feesMicroUsd: runs.reduce((n, k) => n + parseUsdMicros(k.feesPaidUsd), 0n),
    };
  });
}

/**
 * The point that serves best overall by Hyperlane's rule: most payments completed, then the most scenarios where it
 * ranks first, then the lowest mean place; the earlier point of the list on a full tie.
 */
export function bestPoint(summaries: readonly PointSummary[]): string {
  const best = [...summaries].sort((a, b) => b.completed - a.completed || b.first - a.first || a.meanRank - b.meanRank)[0];
  if (best === undefined) throw new RangeError('no refill point to choose from');
  return best.point;
}

/** `+12.3 %` / `-4.0 %` / `0 %`: `v` against `base`. */
function change(v: bigint, base: bigint): string {
  if (base === 0n) return v === 0n ? '0 %' : 'n/a';
  const permille = Number(((v - base) * 10_000n) / base) / 100;
  return `${permille > 0 ? '+' : ''}${permille.toFixed(1)} %`;
}

/** Time below min of a run in whole seconds, `-` when no holding has a band. */
function belowText(k: SimKpis): string {
  const ms = timeBelowMinTotal(k);
  return ms === null ? '-' : (ms / 1000).toFixed(0);
}

/** Micro-USD as dollars with 2 decimals (rounded down). */
const usd = (micros: bigint): string => `${micros / 1_000_000n}.${((micros % 1_000_000n) / 10_000n).toString().padStart(2, '0')}`;

/** The lines under the section's heading. */
export function refillSection(input: RefillSectionInput): string[] {
  const { points, scenarios, verdicts, families, wallSec } = input;
  const baseFamily = families[points[0]!];
  const all = summarize(points, scenarios);
  const base = all[0]!; // points are never empty
  const decimalsOf = (g: SweepScenario['group']) => scenarios.find((s) => s.group === g)?.decimals ?? 18;
  const vol = (s: PointSummary, g: SweepScenario['group']) =>
    `${roundedUnits(s.volume[g], decimalsOf(g), g === 'shipped' ? 0 : 1)} (${change(s.volume[g], base.volume[g])})`;
  const groups = (['shipped', 'anchor'] as const).filter((g) => scenarios.some((s) => s.group === g));
  const verdictCell = (p: string) => {
    const v = verdicts[p];
    return v && v.ahead + v.level + v.behind > 0 ? `${v.ahead} / ${v.level} / ${v.behind}` : '-';
  };
  const cell = (k: SimKpis, decimals: number) =>
    `${k.completedTransfers}/${k.totalTransfers} / ${k.totalRebalances} / ${roundedUnits(BigInt(k.rebalanceVolume), decimals)} / ${k.averageLatency.toFixed(0)} / ${belowText(k)}`;
  return [
    `- Date: ${new Date().toISOString()}; written by \`npx tsx bench/runRefillSweep.ts\` (bench/refillSweep.ts)`,
    '',
    `Every scenario Ballast ships (${scenarios.filter((s) => s.group === 'shipped').length}) and every Hyperlane rebalancer-sim scenario`,
    `(${scenarios.filter((s) => s.group === 'anchor').length}) with seed 1, once per refill point (\`policy.refillTo\`: a holding below min is refilled to its`,
    'target, or to min plus that share of its band), each payment that waits on its holding recorded as a need;',
    `${scenarios.length * points.length} runs and the published comparisons in ${wallSec.toFixed(1)} s of wall time. In each scenario the points are ranked by`,
    "Hyperlane's rule (completion rate, then rebalance volume); volumes are summed per group (USDC for Ballast's own,",
    "Hyperlane's 18-decimal token for theirs), beside the change from `target`.",
    '',
    `| refill point | payments completed | scenarios fully paid | first by the rule (of ${scenarios.length}) | mean place | rebalances | ${groups.map((g) => `volume, ${g}`).join(' | ')} | fees USD | mean avg wait ms | mean p95 wait ms | below min, s | vs published: ahead / level / behind |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ${groups.map(() => '---:').join(' | ')} | ---: | ---: | ---: | ---: | --- |`,
    ...all.map(
      (s) =>
        `| ${s.point} | ${s.completed}/${s.total} | ${s.fullyPaid} | ${s.first} | ${s.meanRank.toFixed(2)} | ${s.rebalances} | ${groups.map((g) => vol(s, g)).join(' | ')} | ${usd(s.feesMicroUsd)} | ${s.meanAvgWaitMs.toFixed(0)} | ${s.meanP95WaitMs.toFixed(0)} | ${(s.belowMinMs / 1000).toFixed(0)} | ${verdictCell(s.point)} |`,
    ),
    '',
    `Best by the rule alone (most payments completed, then most scenarios first, then the lowest mean place): **${bestPoint(all)}**.`,
    'docs/simulate.md "Refill point" weighs the rebalances, waits and time below min beside it, and recommends the default.',
    '',
    ...(baseFamily && baseFamily.runs > 0
      ? [
          `The perturbed families of the flow-* scenarios (bench/simulate.ts, ${baseFamily.runs} runs per point: amounts × 0.8–1.2, times ± 500 ms,`,
          'chains renamed, member k with seed k):',
          '',
          '| refill point | payments completed | rebalances | volume (tokens) |',
          '| --- | ---: | ---: | ---: |',
          ...points.map((p) => {
            const f = families[p]!;
            return `| ${p} | ${f.paid}/${f.total} | ${f.rebalances} | ${roundedUnits(f.volume, 18)} (${change(f.volume, baseFamily.volume)}) |`;
          }),
          '',
        ]
      : []),
    '### Every scenario with each refill point',
    '',
    'Each cell: paid / rebalances / volume (whole tokens) / average wait (ms) / time below min (s, `-` with no band); the best by',
    'the rule in bold (level points all).',
    '',
    `| group | scenario | ${points.join(' | ')} |`,
    `| --- | --- | ${points.map(() => '---').join(' | ')} |`,
    ...scenarios.map((s) => {
      const runs = points.map((p) => s.runs[p]!);
      const best = [...runs].sort((a, b) => anchorOrder(rankable(a), rankable(b)))[0]!;
      const cells = runs.map((k) => (anchorOrder(rankable(k), rankable(best)) === 0 ? `**${cell(k, s.decimals)}**` : cell(k, s.decimals)));
      return `| ${s.group} | ${s.name} | ${cells.join(' | ')} |`;
    }),
    '',
  ];
}
