/**
 * Model-based property test of the Bitcoin money path: the real cycle (planner, executor with the real Bitcoin
 * adapter and signer, reconciler, tracking) moves BTC from Bitcoin to WBTC on alpha against an in-memory
 * Bitcoin chain and Esplora API and an in-memory Relay service that, on a random schedule, fail Esplora reads
 * (503s, a lagging backend, a load-balanced backend without our mempool transaction), lose, evict (another
 * node keeps the transaction and may bring it back much later), or leave broadcasts stuck, reorg blocks,
 * fill, fail, refund or never settle orders (deposits mined after the deadline are refunded), fail Relay
 * calls, and crash the process between any two steps. Every schedule must end with the need paid at most
 * once, no deposit stranded, every miner fee within the caps and the treasury back in band
 * (test/model/bvm/btcInvariants.ts). A run prints one summary line; a failure prints fast-check's seed and
 * path and the shrunk schedule, with the faults it injected.
 *
 * `BALLAST_MODEL_RUNS=<n>` sets the number of schedules (default 1000 with a fixed seed; more, with a fresh
 * seed, on demand); `BALLAST_MODEL_SEED=<seed>` with `BALLAST_MODEL_PATH=<path>` replays a reported failure;
 * `BALLAST_MODEL_LOG=<pino level>` shows Ballast's logs on stderr.
 */
import fc from 'fast-check';
import { ModelTally, modelRunSettings } from '../modelRun.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEnv } from '../harness.ts';
import { createBtcModelEnv, runBtcSchedule } from './btcHarness.ts';
import { btcScheduleArb } from './btcSchedule.ts';

/** A fixed seed for the default run, so a red run is always reproducible; a run with `BALLAST_MODEL_RUNS` draws a fresh one. */
const { runs, seed, assertCoverage, fcOptions } = modelRunSettings(20_270_115);

let env: ModelEnv;

beforeAll(() => {
  env = createBtcModelEnv(process.env.BALLAST_MODEL_LOG ?? 'silent');
});
afterAll(() => env.close());

describe('Bitcoin money path under faults (model-based)', () => {
  it(
    `every schedule (${runs}) pays the need at most once, strands no deposit, keeps fees within the caps and ends in band`,
    async () => {
      const tally = new ModelTally('bvm', [
        ['double pays', /is paid [0-9]+ times/],
        ['strandings', /is stranded/],
        ['fees over the caps', /above the caps/],
      ]);
      try {
        await fc.assert(
          fc.asyncProperty(btcScheduleArb, async (schedule) => {
            tally.schedules += 1;
            try {
              const outcome = await runBtcSchedule(env, schedule);
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
      for (const status of ['success', 'refund', 'failure', 'deposited']) {
        expect(tally.statuses.get(status) ?? 0, `transfers ending ${status}`).toBeGreaterThan(0);
      }
    },
    Math.max(300_000, runs * 2_000),
  );
});
