/**
 * Hyperlane's published rebalancer-sim comparison results (hyperlane-xyz/hyperlane-monorepo,
 * typescript/rebalancer-sim/results/<scenario>-comparison.json; format in docs/simulate.md "Side by side"): each
 * strategy's completion, completed rebalances and average latency, and the bar Ballast is held to on a scenario —
 * the fewest rebalances of any strategy that completed every transfer, with that strategy's average latency. Pure.
 */
import { z } from 'zod';

const ResultsSchema = z.looseObject({
  scenarioName: z.string(),
  results: z.array(
    z.looseObject({
      strategyName: z.string(),
      kpis: z.looseObject({
        totalTransfers: z.number().int(),
        completedTransfers: z.number().int(),
        completionRate: z.number(),
        averageLatency: z.number(),
        totalRebalances: z.number().int(),
        rebalanceVolume: z.string(),
      }),
    }),
  ),
});

/** One published strategy run. Latency in ms; completion 0–1. */
export interface AnchorRun {
  strategy: string;
  totalTransfers: number;
  completedTransfers: number;
  completionRate: number;
  totalRebalances: number;
  averageLatency: number;
}

/** The bar on one scenario: the strategy that completed everything with the fewest rebalances (ties: lowest latency). */
export interface AnchorBar {
  strategy: string;
  totalRebalances: number;
  averageLatency: number;
}

/**
 * Reads one `-comparison.json` document.
 *
 * @throws ZodError when the document does not have the published shape
 */
export function readAnchorResults(doc: unknown): { scenario: string; runs: AnchorRun[] } {
  const r = ResultsSchema.parse(doc);
  return {
    scenario: r.scenarioName,
    runs: r.results.map((x) => ({
      strategy: x.strategyName,
      totalTransfers: x.kpis.totalTransfers,
      completedTransfers: x.kpis.completedTransfers,
      completionRate: x.kpis.completionRate,
      totalRebalances: x.kpis.totalRebalances,
      averageLatency: x.kpis.averageLatency,
    })),
  };
}

/** The bar of a scenario's runs; undefined when no strategy completed every transfer. */
export function anchorBar(runs: readonly AnchorRun[]): AnchorBar | undefined {
  const complete = runs.filter((r) => r.completedTransfers === r.totalTransfers);
  const best = [...complete].sort((a, b) => a.totalRebalances - b.totalRebalances || a.averageLatency - b.averageLatency)[0];
  return best && { strategy: best.strategy, totalRebalances: best.totalRebalances, averageLatency: best.averageLatency };
}
