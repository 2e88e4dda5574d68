/**
 * Model-based property test of the Bitcoin money path: the real cycle (planner, executor with the real Bitcoin
 * adapter and signer, reconciler, tracking) moves BTC from Bitcoin to WBTC on alpha against an in-memory
 * Bitcoin chain and Esplora API and an in-memory Relay service that, on a random schedule, fail Esplora reads
 * (503s, a lagging backend, a load-balanced backend without our mempool transaction), lose, evict (another
 * node keeps the transaction and may bring it back much later), or leave broadcasts stuck, reorg blocks,
 * fill, fail, refund or never settle orders (deposits mined after the deadline are refunded), fail Relay
 * calls, and crash the process between any two steps; under a fee market that jumps between blocks (miners
 * clear at the market's rate), a node that refuses replacements by BIP-125 rules 2–6 and under its moving
 * mempool minimum fee (trimming what falls below it), a Relay that may price from a stale market or build on
 * our own unconfirmed change, with Ballast allowed to spend that change or not. Every schedule must end with
 * the need paid at most once, no transfer or deposit stranded (final, or waiting with an alert), every signed
 * transaction within its caps, fee loops bounded by the route pause and the treasury back in band when the
 * market let it (test/model/bvm/btcInvariants.ts, btcSettled.ts). A run prints one summary line; a failure
 * prints fast-check's seed and path and the shrunk schedule, with the faults it injected.
 *
 * `BALLAST_MODEL_RUNS=<n>` sets the number of schedules (default 250 with a fixed seed; more, with a fresh
 * seed, on demand); `BALLAST_MODEL_SEED=<seed>` with `BALLAST_MODEL_PATH=<path>` replays a reported failure;
 * `BALLAST_MODEL_LOG=<pino level>` shows Ballast's logs on stderr.
 */
import fc from 'fast-check';
import { ModelTally, modelRunSettings } from '../modelRun.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBtcModelEnvs, runBtcSchedule, type BtcModelEnvs } from './btcHarness.ts';
import { btcScheduleArb } from './btcSchedule.ts';

/** A fixed seed for the default run, so a red run is always reproducible; a run with `BALLAST_MODEL_RUNS` draws a fresh one. */
const { runs, seed, assertCoverage, fcOptions } = modelRunSettings(20_270_115);

let envs: BtcModelEnvs;

beforeAll(() => {
  envs = createBtcModelEnvs(process.env.BALLAST_MODEL_LOG ?? 'silent');
});
afterAll(() => envs.close());

describe('Bitcoin money path under faults (model-based)', () => {
  it(
    `every schedule (${runs}) pays the need at most once, strands nothing, keeps fees within the caps, bounds fee loops and ends in band`,
    async () => {
      const tally = new ModelTally('bvm', [
        ['double pays', /is paid [0-9]+ times/],
        ['strandings', /is stranded/],
        ['fees over the caps', /above the caps/],
        ['fee loops', /cancels mined in a row|must step up|cancels signed over/],
      ]);
      let marketSchedules = 0;
      try {
        await fc.assert(
          fc.asyncProperty(btcScheduleArb, async (schedule) => {
            tally.schedules += 1;
            if (schedule.market || schedule.marketJumps || schedule.minFeeMoves) marketSchedules += 1;
            try {
              const outcome = await runBtcSchedule(envs, schedule);
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
      expect(marketSchedules, 'schedules with a drawn fee market').toBeGreaterThan(runs / 4);
      for (const status of ['success', 'refund', 'failure', 'deposited']) {
        expect(tally.statuses.get(status) ?? 0, `transfers ending ${status}`).toBeGreaterThan(0);
      }
    },
    Math.max(300_000, runs * 2_000),
  );
});
