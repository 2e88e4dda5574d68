/**
 * Model-based property test of the Solana money path: the real cycle (planner, executor with the real Solana
 * adapter and signer, reconciler, tracking) moves USDC from Solana to alpha against an in-memory Solana cluster
 * and JSON-RPC node and an in-memory Relay service that, on a random schedule, fail RPC calls (503s), answer
 * from a node that lags by up to 200 slots, forget signatures for several status reads, hand out blockhashes
 * close to expiry, lose, drop or delay sends (a delayed one may outlive its blockhash), fill, fail, refund or
 * never settle orders (deposits landed after the deadline are refunded), fail Relay calls, and crash the
 * process between any two steps. Every schedule must end with the need paid at most once, no deposit
 * stranded, every fee within the caps and the treasury back in band (test/model/svm/solInvariants.ts). A run
 * prints one summary line; a failure prints fast-check's seed and path and the shrunk schedule, with the
 * faults it injected.
 *
 * `BALLAST_MODEL_RUNS=<n>` sets the number of schedules (default 250 with a fixed seed; more, with a fresh
 * seed, on demand); `BALLAST_MODEL_SEED=<seed>` with `BALLAST_MODEL_PATH=<path>` replays a reported failure;
 * `BALLAST_MODEL_LOG=<pino level>` shows Ballast's logs on stderr.
 */
import fc from 'fast-check';
import { ModelTally, modelRunSettings } from '../modelRun.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEnv } from '../harness.ts';
import { createSolModelEnv, runSolSchedule } from './solHarness.ts';
import { solScheduleArb } from './solSchedule.ts';

/** A fixed seed for the default run, so a red run is always reproducible; a run with `BALLAST_MODEL_RUNS` draws a fresh one. */
const { runs, seed, assertCoverage, fcOptions } = modelRunSettings(20_270_116);

let env: ModelEnv;

beforeAll(() => {
  env = createSolModelEnv(process.env.BALLAST_MODEL_LOG ?? 'silent');
});
afterAll(() => env.close());

describe('Solana money path under faults (model-based)', () => {
  it(
    `every schedule (${runs}) pays the need at most once, strands no deposit, keeps fees within the caps and ends in band`,
    async () => {
      const tally = new ModelTally('svm', [
        ['double pays', /is paid [0-9]+ times/],
        ['strandings', /is stranded/],
        ['fees over the caps', /above the caps/],
      ]);
      const unknownMethods = new Set<string>();
      try {
        await fc.assert(
          fc.asyncProperty(solScheduleArb, async (schedule) => {
            tally.schedules += 1;
            try {
              const outcome = await runSolSchedule(env, schedule);
              tally.passed(outcome);
              for (const m of outcome.unknownMethods) unknownMethods.add(m);
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
      expect([...unknownMethods], 'JSON-RPC methods the model does not answer').toEqual([]);
      if (!assertCoverage) return;
      // The generator must keep reaching every ending, or the property above says little.
      expect(tally.crashes, 'process crashes').toBeGreaterThan(runs / 10);
      for (const status of ['success', 'refund', 'failure', 'deposited']) {
        expect(tally.statuses.get(status) ?? 0, `transfers ending ${status}`).toBeGreaterThan(0);
      }
    },
    Math.max(300_000, runs * 2_000),
  );
});
