/**
 * Ballast beside Hyperlane's published strategies (src/sim/published.ts) and perturbed families
 * (src/sim/perturb.ts), pure parts: Hyperlane's ranking rule, reading published runs, starting a scenario from a
 * strategy's own balances, and the members of a family. `ballast simulate --published` runs in compare.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { flowDoc, publishedDoc as results } from './publishedDocs.ts';
import { readHyperlaneScenario } from '../../../packages/ballast/src/sim/hyperlane.ts';
import { perturbHyperlane, renamedChains } from '../../../packages/ballast/src/sim/perturb.ts';
import {
  anchorOrder,
  rankByAnchorRule,
  readPublishedResults,
  roundedUnits,
  verdictOf,
  withStart,
} from '../../../packages/ballast/src/sim/published.ts';
import { readScenarioSet } from '../../../packages/ballast/src/sim/readScenario.ts';

const E18 = 10n ** 18n;
const units = (n: bigint) => (n * E18).toString();

describe("Hyperlane's ranking rule", () => {
  const run = (completionRate: number, volume: bigint) => ({ completionRate, rebalanceVolume: volume });

  it('ranks by completion rate first, then by volume, never by the count of rebalances', () => {
    expect(anchorOrder(run(1, 500n), run(0.9, 0n))).toBeLessThan(0);
    expect(anchorOrder(run(1, 10n), run(1, 20n))).toBeLessThan(0);
    expect(anchorOrder(run(1, 10n), run(1, 10n))).toBe(0);
    const ranked = rankByAnchorRule([
      { name: 'a', ...run(0.95, 0n) },
      { name: 'b', ...run(1, 300n) },
      { name: 'c', ...run(1, 100n) },
      { name: 'd', ...run(1, 100n) },
    ]);
    expect(ranked.map((r) => [r.entry.name, r.rank])).toEqual([
      ['c', 1],
      ['d', 1],
      ['b', 3],
      ['a', 4],
    ]);
    expect(verdictOf(run(1, 10n), run(1, 20n))).toBe('ahead');
    expect(verdictOf(run(1, 10n), run(1, 10n))).toBe('level');
    expect(verdictOf(run(0.5, 0n), run(1, 900n))).toBe('behind');
  });

  it('reads the published runs with their volume and starting balances', () => {
    const { scenario, runs } = readPublishedResults(results([{ name: 'first', completed: 1, volume: 52n, start: [100n, 100n] }]));
    expect(scenario).toBe('duo-flow');
    expect(runs).toEqual([
      {
        strategy: 'first',
        totalTransfers: 1,
        completedTransfers: 1,
        completionRate: 1,
        totalRebalances: 1,
        rebalanceVolume: 52n * E18,
        averageLatency: 150,
        initial: { c1: 100n * E18, c2: 100n * E18 },
      },
    ]);
  });

  it('starts a scenario from other balances, the rest as it was, and refuses other chains', () => {
    const s = readHyperlaneScenario(flowDoc());
    const started = withStart(s, { c1: 5n * E18, c2: 195n * E18 });
    expect(started.initial).toEqual({ c1: 5n * E18, c2: 195n * E18 });
    expect(started.holdings).toEqual(s.holdings);
    expect(started.flows).toEqual(s.flows);
    expect(started.maxTransfer).toBe('200');
    expect(() => withStart(s, { c1: E18, c3: E18 })).toThrow('duo-flow: starting balances name c1, c3, the scenario has c1, c2');
    expect(roundedUnits(52_597_930_711_863_141_702n, 18)).toBe('52.6');
    expect(roundedUnits(4_249_999_999_999_999_999n, 18, 2)).toBe('4.25');
    expect(roundedUnits(0n, 18)).toBe('0.0');
  });
});

describe('perturbed families', () => {
  const base = flowDoc([
    { at: 0, tokens: 10n },
    { at: 1000, tokens: 20n },
    { at: 1000, tokens: 30n },
    { at: 5000, tokens: 40n },
  ]);

  it('scales each amount by 0.8–1.2, moves each time by up to ± 500 ms, renames the chains everywhere', () => {
    const m = perturbHyperlane(base, 7);
    const names = renamedChains(['c1', 'c2'], 7);
    expect(m.name).toBe('duo-flow~7');
    expect(m.chains).toEqual([names.c1, names.c2]);
    expect(new Set(m.chains).size).toBe(2);
    expect(m.chains.some((c) => c === 'c1' || c === 'c2')).toBe(false);
    expect(Object.keys(m.defaultStrategyConfig.chains)).toEqual(m.chains);
    expect(Object.keys(m.defaultBridgeConfig)).toEqual(m.chains);
    expect(Object.keys(m.defaultBridgeConfig[names.c1!]!)).toEqual([names.c2]);
    const byId = new Map(base.transfers.map((t) => [t.id, t]));
    for (const t of m.transfers) {
      const was = byId.get(t.id)!;
      expect([t.origin, t.destination]).toEqual([names.c1, names.c2]);
      expect(BigInt(t.amount) * 1000n).toBeGreaterThanOrEqual(BigInt(was.amount) * 800n);
      expect(BigInt(t.amount) * 1000n).toBeLessThanOrEqual(BigInt(was.amount) * 1200n);
      expect(Math.abs(t.timestamp - was.timestamp)).toBeLessThanOrEqual(500);
      expect(t.timestamp).toBeGreaterThanOrEqual(0);
    }
    expect(m.transfers.map((t) => t.timestamp)).toEqual(m.transfers.map((t) => t.timestamp).sort((a, b) => a - b));
    // the traffic did move: not every amount and time is the file's
    expect(m.transfers.some((t) => t.amount !== byId.get(t.id)!.amount)).toBe(true);
    expect(m.transfers.some((t) => t.timestamp !== byId.get(t.id)!.timestamp)).toBe(true);
  });

  it('repeats for a seed, differs between seeds, and reads and maps like its file', () => {
    expect(perturbHyperlane(base, 3)).toEqual(perturbHyperlane(base, 3));
    expect(perturbHyperlane(base, 3).transfers).not.toEqual(perturbHyperlane(base, 4).transfers);
    const m = perturbHyperlane(base, 3);
    const [s] = readScenarioSet(m).scenarios;
    expect(s!.chains).toEqual(m.chains);
    expect(s!.holdings.map((h) => h.chain)).toEqual(m.chains);
    expect(s!.flows.filter((f) => f.kind === 'payment')).toHaveLength(4);
    expect(perturbHyperlane(base, 3, { rename: false, jitterMs: 0, minPermille: 1000, maxPermille: 1000 }).transfers).toEqual(
      base.transfers,
    );
    expect(() => perturbHyperlane(base, 1, { minPermille: 1300 })).toThrow(RangeError);
  });
});
