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
 * `BALLAST_MODEL_RUNS=<n>` sets the number of schedules (default 1000 with a fixed seed; more, with a fresh
 * seed, on demand); `BALLAST_MODEL_SEED=<seed>` with `BALLAST_MODEL_PATH=<path>` replays a reported failure;
 * `BALLAST_MODEL_LOG=<pino level>` shows Ballast's logs on stderr.
 */
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEnv } from '../harness.ts';
import { createSolModelEnv, runSolSchedule } from './solHarness.ts';
import { solScheduleArb } from './solSchedule.ts';

const DEFAULT_RUNS = 1_000;
const runs = Number(process.env.BALLAST_MODEL_RUNS ?? DEFAULT_RUNS);
/** A fixed seed for the default run, so a red run is always reproducible; a run with `BALLAST_MODEL_RUNS` draws a fresh one. */
const FIXED_SEED = 20_270_116;
const seed =
  process.env.BALLAST_MODEL_SEED !== undefined
    ? Number(process.env.BALLAST_MODEL_SEED)
    : process.env.BALLAST_MODEL_RUNS === undefined
      ? FIXED_SEED
      : undefined;
const replayPath = process.env.BALLAST_MODEL_PATH;
if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`BALLAST_MODEL_RUNS must be a positive integer, got ${process.env.BALLAST_MODEL_RUNS}`);
if (seed !== undefined && !Number.isSafeInteger(seed)) throw new Error(`BALLAST_MODEL_SEED must be an integer, got ${process.env.BALLAST_MODEL_SEED}`);

/** Below this many schedules the coverage of the generator is not asserted (a replay runs one). */
const COVERAGE_MIN_RUNS = 500;

let env: ModelEnv;

beforeAll(() => {
  env = createSolModelEnv(process.env.BALLAST_MODEL_LOG ?? 'silent');
});
afterAll(() => env.close());

describe('Solana money path under faults (model-based)', () => {
  it(
    `every schedule (${runs}) pays the need at most once, strands no deposit, keeps fees within the caps and ends in band`,
    async () => {
      const seen = { unknownMethods: new Set<string>(), schedules: 0, crashes: 0, failures: 0, violations: new Map<string, number>(), statuses: new Map<string, number>() };
      const started = Date.now();
      try {
        await fc.assert(
          fc.asyncProperty(solScheduleArb, async (schedule) => {
            seen.schedules += 1;
            try {
              const outcome = await runSolSchedule(env, schedule);
              seen.crashes += outcome.crashes;
              for (const m of outcome.unknownMethods) seen.unknownMethods.add(m);
              for (const [status, n] of Object.entries(outcome.statuses)) seen.statuses.set(status, (seen.statuses.get(status) ?? 0) + n);
            } catch (error) {
              seen.failures += 1;
              const text = error instanceof Error ? error.message : String(error);
              for (const [kind, re] of [['double pays', /is paid [0-9]+ times/], ['strandings', /is stranded/], ['fee caps', /above the caps/]] as const) {
                if (re.test(text)) seen.violations.set(kind, (seen.violations.get(kind) ?? 0) + 1);
              }
              throw error;
            }
          }),
          { numRuns: runs, ...(seed !== undefined ? { seed } : {}), ...(replayPath !== undefined ? { path: replayPath } : {}) },
        );
      } finally {
        const outcomes = [...seen.statuses].map(([s, n]) => `${s} ${n}`).join(', ');
        const v = (k: string) => seen.violations.get(k) ?? 0;
        console.log(
          `svm model: ${seen.schedules} schedules (seed ${seed ?? 'random'}), ${seen.crashes} crashes, ${v('double pays')} double pays, ${v('strandings')} strandings, ` +
            `${v('fee caps')} fees over the caps, ${seen.failures} failing runs (shrinking included); outcomes: ${outcomes || 'none'}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
      }
      expect([...seen.unknownMethods], 'JSON-RPC methods the model does not answer').toEqual([]);
      if (replayPath !== undefined || runs < COVERAGE_MIN_RUNS) return;
      // The generator must keep reaching every ending, or the property above says little.
      expect(seen.crashes, 'process crashes').toBeGreaterThan(runs / 10);
      for (const status of ['success', 'refund', 'failure', 'deposited']) {
        expect(seen.statuses.get(status) ?? 0, `transfers ending ${status}`).toBeGreaterThan(0);
      }
    },
    Math.max(300_000, runs * 2_000),
  );
});
