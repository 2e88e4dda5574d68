/**
 * Ballast side by side with Hyperlane's published rebalancer strategies (hyperlane-xyz/hyperlane-monorepo,
 * typescript/rebalancer-sim/results/<scenario>-comparison.json; docs/simulate.md "Side by side with the published
 * strategies"), like for like:
 *
 * - ranked by Hyperlane's own rule: completion rate (highest first), then rebalance volume (lowest first); the count
 *   of rebalances does not rank ({@link anchorOrder});
 * - each strategy is compared with a run of Ballast from that strategy's own starting balances (its run's
 *   `perChainMetrics[chain].initialBalance`: the published runs were made one after another without a reset, so only
 *   the first starts from the file's balances), whatever the scenario.
 *
 * Only {@link comparePublished} runs anything; the rest is pure.
 */
import { formatUnits } from 'viem';
import { z } from 'zod';
import { computeKpis, type SimKpis } from './kpis.ts';
import { runScenario, type SimRunOptions } from './run.ts';
import type { SimScenario } from './scenario.ts';

const Uint = z.string().regex(/^[0-9]+$/, 'expected a base-unit integer string');

const ResultsSchema = z.looseObject({
  scenarioName: z.string(),
  results: z.array(
    z.looseObject({
      strategyName: z.string(),
      kpis: z.looseObject({
        totalTransfers: z.number().int().nonnegative(),
        completedTransfers: z.number().int().nonnegative(),
        completionRate: z.number().min(0).max(1),
        averageLatency: z.number().nonnegative(),
        totalRebalances: z.number().int().nonnegative(),
        rebalanceVolume: Uint,
        perChainMetrics: z.record(z.string(), z.looseObject({ initialBalance: Uint })).default({}),
      }),
    }),
  ),
});

/** One published strategy run. Amounts base units; latency ms; completion 0–1. */
export interface PublishedRun {
  strategy: string;
  totalTransfers: number;
  completedTransfers: number;
  completionRate: number;
  totalRebalances: number;
  rebalanceVolume: bigint;
  averageLatency: number;
  /** Balance per chain when its run started; empty when the file does not give it. */
  initial: Record<string, bigint>;
}

/** What Hyperlane ranks by. */
export interface Rankable {
  completionRate: number;
  rebalanceVolume: bigint;
}

/** How Ballast's run stands against a strategy's by Hyperlane's rule. */
export type Verdict = 'ahead' | 'level' | 'behind';

/** One published strategy and Ballast's run from the same starting balances. */
export interface PublishedComparison {
  /** The strategy's place in the published ranking (1 first; equal entries share a place). */
  rank: number;
  published: PublishedRun;
  /** Ballast's run from `published.initial` (the scenario's own balances when the file gives none). */
  ballast: SimKpis;
  verdict: Verdict;
}

/** The rule, as the reports state it. */
export const ANCHOR_RULE = 'completion rate (highest first), then rebalance volume (lowest first)';

/**
 * Reads one `-comparison.json` document.
 *
 * @throws ZodError when the document does not have the published shape
 */
export function readPublishedResults(doc: unknown): { scenario: string; runs: PublishedRun[] } {
  const r = ResultsSchema.parse(doc);
  return {
    scenario: r.scenarioName,
    runs: r.results.map((x) => ({
      strategy: x.strategyName,
      totalTransfers: x.kpis.totalTransfers,
      completedTransfers: x.kpis.completedTransfers,
      completionRate: x.kpis.completionRate,
      totalRebalances: x.kpis.totalRebalances,
      rebalanceVolume: BigInt(x.kpis.rebalanceVolume),
      averageLatency: x.kpis.averageLatency,
      initial: Object.fromEntries(Object.entries(x.kpis.perChainMetrics).map(([c, m]) => [c, BigInt(m.initialBalance)])),
    })),
  };
}

/** Hyperlane's order: negative when `a` ranks ahead of `b` (higher completion, then lower volume), 0 when level. */
export function anchorOrder(a: Rankable, b: Rankable): number {
  if (a.completionRate !== b.completionRate) return b.completionRate - a.completionRate;
  return a.rebalanceVolume < b.rebalanceVolume ? -1 : a.rebalanceVolume > b.rebalanceVolume ? 1 : 0;
}

/** Entries sorted by {@link anchorOrder} (a stable sort), each with its place: 1 first, level entries sharing one. */
export function rankByAnchorRule<T extends Rankable>(entries: readonly T[]): { entry: T; rank: number }[] {
  const sorted = [...entries].sort(anchorOrder);
  const ranked: { entry: T; rank: number }[] = [];
  sorted.forEach((entry, i) => {
    const prev = ranked[i - 1];
    ranked.push({ entry, rank: prev && anchorOrder(prev.entry, entry) === 0 ? prev.rank : i + 1 });
  });
  return ranked;
}

/** Ballast's run against a strategy's by {@link anchorOrder}. */
export function verdictOf(ballast: Rankable, strategy: Rankable): Verdict {
  const o = anchorOrder(ballast, strategy);
  return o < 0 ? 'ahead' : o > 0 ? 'behind' : 'level';
}

/** The rankable figures of a run's KPIs. */
export function rankableOf(k: SimKpis): Rankable {
  return { completionRate: k.completionRate, rebalanceVolume: BigInt(k.rebalanceVolume) };
}

/**
 * The scenario started from other balances: `initial` replaced, `maxTransfer` the sum of the new balances (the
 * holdings, the traffic and everything else as they are).
 *
 * @throws Error when `initial` does not name exactly the scenario's chains
 */
export function withStart(s: SimScenario, initial: Readonly<Record<string, bigint>>): SimScenario {
  const names = Object.keys(initial).sort();
  if (names.join('\u0000') !== [...s.chains].sort().join('\u0000')) {
    throw new Error(`${s.name}: starting balances name ${names.join(', ') || 'no chain'}, the scenario has ${s.chains.join(', ')}`);
  }
  const start = Object.fromEntries(s.chains.map((c) => [c, initial[c]!])); // every chain is named (checked above)
  const total = Object.values(start).reduce((a, b) => a + b, 0n);
  return { ...s, initial: start, maxTransfer: formatUnits(total, s.token.decimals) };
}

/** The balances a published run started from: its own, or the scenario's when the file gives none. */
export function startOf(s: SimScenario, run: PublishedRun): Readonly<Record<string, bigint>> {
  return Object.keys(run.initial).length > 0 ? run.initial : s.initial;
}

/**
 * The scenario as each published run starts it ({@link withStart} of {@link startOf}), in the order of `runs`.
 *
 * @throws Error one line when a run's balances name other chains than the scenario's
 */
export function startsOf(s: SimScenario, runs: readonly PublishedRun[]): SimScenario[] {
  return runs.map((r) => withStart(s, startOf(s, r)));
}

/**
 * Runs Ballast once per distinct starting balance of the published runs ({@link startsOf}) and pairs each with its
 * strategy, in the published ranking ({@link rankByAnchorRule}).
 *
 * @throws Error when a run's balances name other chains than the scenario's; as runScenario does
 */
export async function comparePublished(
  s: SimScenario,
  runs: readonly PublishedRun[],
  options: Omit<SimRunOptions, 'storeDir'> = {},
): Promise<PublishedComparison[]> {
  const ranked = rankByAnchorRule(runs);
  const starts = startsOf(
    s,
    ranked.map((r) => r.entry),
  );
  const byStart = new Map<string, SimKpis>();
  const out: PublishedComparison[] = [];
  for (const [i, { entry: published, rank }] of ranked.entries()) {
    const start = starts[i]!; // one per ranked run
    const key = s.chains.map((c) => String(start.initial[c])).join('/');
    let ballast = byStart.get(key);
    if (ballast === undefined) {
      ballast = computeKpis(await runScenario(start, options));
      byStart.set(key, ballast);
    }
    out.push({ rank, published, ballast, verdict: verdictOf(rankableOf(ballast), published) });
  }
  return out;
}

/**
 * Base units as whole units rounded to `places` decimals (half up), e.g. 52597930711863141702 at 18 decimals and 1
 * place → "52.6".
 */
export function roundedUnits(amount: bigint, decimals: number, places = 1): string {
  if (places >= decimals) return formatUnits(amount, decimals);
  const step = 10n ** BigInt(decimals - places);
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const q = (abs + step / 2n) / step;
  const scale = 10n ** BigInt(places);
  const whole = q / scale;
  const frac = places === 0 ? '' : `.${(q % scale).toString().padStart(places, '0')}`;
  return `${negative && q > 0n ? '-' : ''}${whole}${frac}`;
}

/** A start for people: each chain's balance in whole units, `/`-separated in the scenario's chain order. */
export function startText(chains: readonly string[], initial: Readonly<Record<string, bigint>>, decimals: number): string {
  return chains.map((c) => roundedUnits(initial[c] ?? 0n, decimals)).join('/');
}

/** The cells of one side: completed/total (%), rebalances, volume (whole units), average wait (ms). */
export function sideCells(
  x: {
    completedTransfers: number;
    totalTransfers: number;
    completionRate: number;
    totalRebalances: number;
    rebalanceVolume: bigint | string;
    averageLatency: number;
  },
  decimals: number,
): string[] {
  return [
    `${x.completedTransfers}/${x.totalTransfers} (${(x.completionRate * 100).toFixed(1)} %)`,
    String(x.totalRebalances),
    roundedUnits(BigInt(x.rebalanceVolume), decimals),
    x.averageLatency.toFixed(0),
  ];
}

/** The verdict for people: `ahead`, `level` or `behind`, with the figure that decided it. */
export function verdictText(c: PublishedComparison, decimals: number): string {
  if (c.verdict === 'level') return 'level';
  const b = c.ballast;
  const p = c.published;
  const why =
    b.completionRate !== p.completionRate
      ? `completion ${(b.completionRate * 100).toFixed(1)} vs ${(p.completionRate * 100).toFixed(1)} %`
      : `volume ${roundedUnits(BigInt(b.rebalanceVolume), decimals)} vs ${roundedUnits(p.rebalanceVolume, decimals)}`;
  return `${c.verdict} (${why})`;
}

/**
 * The table `ballast simulate --published` prints: per published strategy, in the published ranking, its start,
 * its completion, rebalances, volume and average wait, Ballast's from the same start, and the verdict.
 */
export function publishedTable(s: SimScenario, rows: readonly PublishedComparison[]): { head: string[]; rows: string[][] } {
  const d = s.token.decimals;
  const side = ['paid', 'rebalances', 'volume', 'avg wait ms'];
  return {
    head: ['rank', 'strategy', 'start', ...side, ...side.map((h) => `Ballast ${h}`), 'Ballast by the rule'],
    rows: rows.map((c) => [
      String(c.rank),
      c.published.strategy,
      startText(s.chains, startOf(s, c.published), d),
      ...sideCells(c.published, d),
      ...sideCells(c.ballast, d),
      verdictText(c, d),
    ]),
  };
}

/** What `--json` prints with `--published`. */
export interface PublishedReport {
  scenario: string;
  seed: number;
  rule: string;
  strategies: {
    rank: number;
    strategy: string;
    start: Record<string, string>;
    published: Record<string, unknown>;
    ballast: SimKpis;
    verdict: Verdict;
  }[];
}

/** The `--json` object of a comparison with the published strategies (amounts base-unit decimal strings). */
export function publishedReport(s: SimScenario, seed: number, rows: readonly PublishedComparison[]): PublishedReport {
  return {
    scenario: s.name,
    seed,
    rule: ANCHOR_RULE,
    strategies: rows.map((c) => {
      const { initial: _initial, rebalanceVolume, strategy, ...figures } = c.published;
      const start = startOf(s, c.published);
      return {
        rank: c.rank,
        strategy,
        start: Object.fromEntries(s.chains.map((ch) => [ch, String(start[ch] ?? 0n)])),
        published: { ...figures, rebalanceVolume: rebalanceVolume.toString() },
        ballast: c.ballast,
        verdict: c.verdict,
      };
    }),
  };
}
