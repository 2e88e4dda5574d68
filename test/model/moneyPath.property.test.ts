/**
 * Model-based property test of the money path: the real cycle (planner, executor, reconciler, tracking) runs
 * against in-memory chains and an in-memory Relay service that, on a random schedule, fail or lag lookups, lose,
 * repeat, evict, delay, speed up or cancel broadcasts, reorg blocks, fill, fail, refund or never settle orders,
 * fail Relay calls, and crash the process between any two steps. Every schedule must end with at most one
 * deposit per need and every transfer final or provably in flight (test/model/invariants.ts). A failure prints
 * fast-check's seed and path and the shrunk schedule, with the faults it injected.
 *
 * `BALLAST_MODEL_RUNS=<n>` sets the number of schedules (default 500 with a fixed seed; more, with a fresh seed,
 * for a nightly run);
 * `BALLAST_MODEL_SEED=<seed>` with `BALLAST_MODEL_PATH=<path>` replays a reported failure;
 * `BALLAST_MODEL_LOG=<pino level>` shows Ballast's logs on stderr.
 */
import fc from 'fast-check';
import { ModelTally, modelRunSettings } from './modelRun.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelEnv, runSchedule, type ModelEnv } from './harness.ts';
import { scheduleArb } from './schedule.ts';

/** A fixed seed for the default run, so a red run is always reproducible; a run with `BALLAST_MODEL_RUNS` draws a fresh one. */
const { runs, seed, assertCoverage, fcOptions } = modelRunSettings(20_261_124);

let env: ModelEnv;

beforeAll(() => {
  env = createModelEnv(process.env.BALLAST_MODEL_LOG ?? 'silent');
});
afterAll(() => env.close());

describe('money path under faults (model-based)', () => {
  it(
    `every schedule (${runs}) ends with at most one deposit per need and every transfer final or provably in flight`,
    async () => {
      const tally = new ModelTally('evm', [
        ['double pays', /was paid [0-9]+ times|deposit\(s\) not refunded totalling/],
        ['strandings', /is on chain but its transfer|origin_failed but deposit/],
        ['money lost', /the treasury holds/],
      ]);
      try {
        await fc.assert(
          fc.asyncProperty(scheduleArb, async (schedule) => {
            tally.schedules += 1;
            try {
              const outcome = await runSchedule(env, schedule);
              tally.passed(outcome);
            } catch (error) {
              tally.failed(error);
              throw error;
            }
          }),
          fcOptions,
        );
      } finally {
        console.log(tally.summary(seed));
      }
      if (!assertCoverage) return;
      // The generator must keep reaching every ending, or the property above says little.
      expect(tally.crashes, 'process crashes').toBeGreaterThan(runs / 10);
      for (const status of ['success', 'refund', 'failure', 'origin_failed', 'deposited']) {
        expect(tally.statuses.get(status) ?? 0, `transfers ending ${status}`).toBeGreaterThan(0);
      }
    },
    Math.max(120_000, runs * 1_000),
  );
});
