/**
 * The six flow-* scenarios of Hyperlane's rebalancer-sim (hyperlane-xyz/hyperlane-monorepo,
 * typescript/rebalancer-sim/scenarios), read as is from `BALLAST_SCENARIOS_DIR`, else from
 * `../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios` beside the repository. They are not part of
 * this repository: when absent, the tests are skipped with one line saying where they were looked for.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readHyperlaneScenario } from '../../../packages/ballast/src/sim/hyperlane.ts';
import { computeKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { runScenario } from '../../../packages/ballast/src/sim/run.ts';

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
const present = NAMES.every((n) => existsSync(path.join(DIR, `${n}.json`)));
if (!present)
  process.stdout.write(`Hyperlane flow-* scenarios not found in ${DIR} (set BALLAST_SCENARIOS_DIR): ${NAMES.length} tests skipped\n`);

describe.skipIf(!present)("Hyperlane's flow-* scenarios", () => {
  for (const name of NAMES) {
    it(`${name} runs through the real cycle and reports KPIs`, async () => {
      const doc = JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as { transfers: unknown[] };
      const log = await runScenario(readHyperlaneScenario(doc), { seed: 1 });
      const k = computeKpis(log);
      expect(log.cycleErrors).toEqual([]);
      expect(k.totalTransfers).toBe(doc.transfers.length);
      expect(k.completedTransfers + k.failedTransfers).toBe(doc.transfers.length);
      expect(k.completionRate).toBeGreaterThanOrEqual(0);
      expect(k.completionRate).toBeLessThanOrEqual(1);
      expect(k.cycles).toBeGreaterThan(0);
      expect(k.p50Latency).toBeLessThanOrEqual(k.p95Latency);
      expect(k.p95Latency).toBeLessThanOrEqual(k.p99Latency);
      // every filled transfer is in the store as a success
      expect(log.storeTransfers.success ?? 0).toBe(k.totalRebalances);
      // the treasury's total only changes by the traffic (zero-sum here) and the fees paid
      const total = (b: Record<string, bigint>) => Object.values(b).reduce((s, x) => s + x, 0n);
      const paid = log.payments.filter((p) => p.completedAtMs !== null).reduce((s, p) => s + p.amount, 0n);
      const received = doc.transfers.length === 0 ? 0n : BigInt(k.paymentVolume);
      expect(total(log.final)).toBe(total(log.initial) + received - paid - BigInt(k.feesPaid) - inFlight(log));
    });
  }
});

/** Inputs of transfers deposited but not filled by the end (they have left the treasury). */
function inFlight(log: Awaited<ReturnType<typeof runScenario>>): bigint {
  return log.transfers.filter((t) => t.outcome === 'inFlight').reduce((s, t) => s + t.amountIn, 0n);
}
