/**
 * The six flow-* scenarios of Hyperlane's rebalancer-sim (hyperlane-xyz/hyperlane-monorepo,
 * typescript/rebalancer-sim/scenarios) and their published results (`../results`), read as is from
 * `BALLAST_SCENARIOS_DIR`, else from `../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios` beside the
 * repository. They are not part of this repository: when absent, the tests are skipped with one line saying where
 * they were looked for.
 *
 * Hyperlane's rule ranks the published strategies as its own scorecard does; each strategy's start is the one its
 * run reports; Ballast's run from the file's own balances (the first strategy's start) completes every payment, with
 * waits counted from the request to the mined payment. The comparison from every strategy's start, and where Ballast
 * is behind by the rule, is `npm run bench` (bench/RESULTS.md): too many runs for the test suite.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readHyperlaneScenario } from '../../../packages/ballast/src/sim/hyperlane.ts';
import { computeKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { rankByAnchorRule, readPublishedResults, startsOf } from '../../../packages/ballast/src/sim/published.ts';
import { runScenario } from '../../../packages/ballast/src/sim/run.ts';
import { SIM_AUTOMINE_MS } from '../../../packages/ballast/src/sim/world.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DIR = process.env.BALLAST_SCENARIOS_DIR ?? path.resolve(ROOT, '../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios');
const NAMES = [
  'flow-burst-spike',
  'flow-gradual-ramp',
  'flow-idle-then-spike',
  'flow-oscillating',
  'flow-sustained-drain',
  'flow-whale-noise',
];
const RESULTS = path.join(DIR, '..', 'results');
const present = NAMES.every((n) => existsSync(path.join(DIR, `${n}.json`)) && existsSync(path.join(RESULTS, `${n}-comparison.json`)));
if (!present)
  process.stdout.write(
    `Hyperlane flow-* scenarios or results not found in ${DIR} and ${RESULTS} (set BALLAST_SCENARIOS_DIR): ${NAMES.length * 2} tests skipped\n`,
  );

const read = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

describe.skipIf(!present)("Hyperlane's flow-* scenarios", () => {
  for (const name of NAMES) {
    it(`${name}: Hyperlane's rule gives its published ranking, and each strategy starts where its run did`, () => {
      const doc = read(path.join(RESULTS, `${name}-comparison.json`)) as {
        winner: string;
        scorecard: { strategyName: string; rank: number }[];
      };
      const { scenario, runs } = readPublishedResults(doc);
      expect(scenario).toBe(name);
      const published = [...doc.scorecard].sort((a, b) => a.rank - b.rank).map((r) => r.strategyName);
      expect(rankByAnchorRule(runs).map((r) => r.entry.strategy)).toEqual(published);
      expect(rankByAnchorRule(runs)[0]!.entry.strategy).toBe(doc.winner);
      // The runs were not reset between strategies: only the first starts from the file's own balances.
      const s = readHyperlaneScenario(read(path.join(DIR, `${name}.json`)));
      const starts = startsOf(s, runs);
      expect(starts.map((x) => x.initial)).toEqual(runs.map((r) => r.initial));
      const key = (b: Record<string, bigint>) => s.chains.map((c) => String(b[c])).join('/');
      expect(starts.map((x) => key(x.initial) === key(s.initial))).toEqual([true, false, false, false, false]);
    });

    it(`${name}: from the file's own balances every payment completes, each wait counted to its mined block`, async () => {
      const doc = read(path.join(DIR, `${name}.json`)) as { transfers: unknown[]; defaultTiming: { userTransferDeliveryDelay: number } };
      const log = await runScenario(readHyperlaneScenario(doc), { seed: 1 });
      const k = computeKpis(log);
      expect(log.cycleErrors).toEqual([]);
      expect(k.totalTransfers).toBe(doc.transfers.length);
      expect(k.completionRate).toBe(1);
      expect(k.p50Latency).toBeLessThanOrEqual(k.p95Latency);
      expect(k.p95Latency).toBeLessThanOrEqual(k.p99Latency);
      // every filled transfer is in the store as a success
      expect(log.storeTransfers.success ?? 0).toBe(k.totalRebalances);
      // a payment completes when its block is mined, as on Hyperlane's automining node: a block of its own, the
      // moment after it is sent; at least the delivery delay after its request
      const delay = doc.defaultTiming.userTransferDeliveryDelay;
      expect(log.blockMs).toBe(0);
      for (const p of log.payments) expect(p.completedAtMs! - p.requestedAtMs).toBeGreaterThanOrEqual(delay + SIM_AUTOMINE_MS);
      // most payments are not held up: mined the moment after they are due, not on a block cadence
      expect(k.p50Latency).toBe(delay + SIM_AUTOMINE_MS);
      // the treasury's total only changes by the traffic (zero-sum here) and the fees paid
      const total = (b: Record<string, bigint>) => Object.values(b).reduce((sum, x) => sum + x, 0n);
      const inFlight = log.transfers.filter((t) => t.outcome === 'inFlight').reduce((sum, t) => sum + t.amountIn, 0n);
      expect(total(log.final)).toBe(total(log.initial) - BigInt(k.feesPaid) - inFlight);
    });
  }
});
