/**
 * What the three money-path property tests (EVM, Bitcoin, Solana) share: how many schedules to run and with
 * which seed (from the environment), and the tally printed as one summary line per VM — schedules, crashes,
 * double pays, strandings and other violations, endings, time.
 *
 * Environment: `BALLAST_MODEL_RUNS=<n>` sets the number of schedules (default 250 with the test's fixed seed;
 * with it, a fresh seed, drawn here so the summary line can name it, unless `BALLAST_MODEL_SEED` is given);
 * `BALLAST_MODEL_SEED=<seed>` with `BALLAST_MODEL_PATH=<path>` replays a reported failure.
 *
 * The default is what `npm test` runs on every change: the same 250 schedules per VM each time (a fixed seed),
 * whose tally still reaches what the coverage checks ask for (each VM's first 250 schedules: 94 to 144 crashes,
 * every ending the checks name, 173 Bitcoin schedules with a fee market). Every failure a fresh-seed run ever found
 * is kept as a replay (moneyPath.replays.test.ts and the bvm/ and svm/ replays), which run in full every time; new
 * schedules come from `npm run test:model:fresh` (5,000 per VM, fresh seeds).
 */

/** Below this many schedules the coverage of the generator is not asserted (a replay runs one). */
export const COVERAGE_MIN_RUNS = 250;
const DEFAULT_RUNS = 250;

/** The run's settings and fast-check's options for them. */
export interface ModelRunSettings {
  runs: number;
  /** The seed: the test's fixed one, `BALLAST_MODEL_SEED`, or a fresh one drawn for this run. */
  seed: number;
  replayPath: string | undefined;
  /** Whether the run is long enough to assert the generator's coverage. */
  assertCoverage: boolean;
  fcOptions: { numRuns: number; seed?: number; path?: string };
}

/**
 * Reads the run settings from the environment.
 *
 * @param fixedSeed the test's seed for the default run, so a red default run is always reproducible
 * @throws Error naming the variable when `BALLAST_MODEL_RUNS` or `BALLAST_MODEL_SEED` is not an integer
 */
export function modelRunSettings(fixedSeed: number, env: NodeJS.ProcessEnv = process.env): ModelRunSettings {
  const runs = Number(env.BALLAST_MODEL_RUNS ?? DEFAULT_RUNS);
  const seed =
    env.BALLAST_MODEL_SEED !== undefined
      ? Number(env.BALLAST_MODEL_SEED)
      : env.BALLAST_MODEL_RUNS === undefined
        ? fixedSeed
        : Math.floor(Math.random() * 2 ** 31); // fresh, and known: printed in the summary line and by fast-check
  const replayPath = env.BALLAST_MODEL_PATH;
  if (!Number.isSafeInteger(runs) || runs < 1)
    throw new Error(`BALLAST_MODEL_RUNS must be a positive integer, got ${env.BALLAST_MODEL_RUNS}`);
  if (!Number.isSafeInteger(seed)) throw new Error(`BALLAST_MODEL_SEED must be an integer, got ${env.BALLAST_MODEL_SEED}`);
  return {
    runs,
    seed,
    replayPath,
    assertCoverage: replayPath === undefined && runs >= COVERAGE_MIN_RUNS,
    fcOptions: { numRuns: runs, seed, ...(replayPath !== undefined ? { path: replayPath } : {}) },
  };
}

/** A kind of invariant violation, recognised by the words of the invariant's message. */
export type ViolationKind = readonly [name: string, words: RegExp];

/** Counts what the schedules of one run did, and prints it as one line. */
export class ModelTally {
  schedules = 0;
  crashes = 0;
  failures = 0;
  readonly statuses = new Map<string, number>();
  readonly violations = new Map<string, number>();
  private readonly started = Date.now();

  /** @param kinds the violations to count, in the order the summary names them */
  constructor(
    private readonly vm: string,
    private readonly kinds: readonly ViolationKind[],
  ) {}

  /** Notes a schedule that ran to its end: its crashes and how its transfers ended. */
  passed(outcome: { crashes: number; statuses: Record<string, number> }): void {
    this.crashes += outcome.crashes;
    for (const [status, n] of Object.entries(outcome.statuses)) this.statuses.set(status, (this.statuses.get(status) ?? 0) + n);
  }

  /** Notes a schedule that broke an invariant (shrinking runs included), by the kinds its message names. */
  failed(error: unknown): void {
    this.failures += 1;
    const text = error instanceof Error ? error.message : String(error);
    for (const [name, words] of this.kinds) if (words.test(text)) this.violations.set(name, (this.violations.get(name) ?? 0) + 1);
  }

  /** The summary line: `<vm> model: N schedules (seed S), C crashes, <count> <kind>…; outcomes: …; T s`. */
  summary(seed: number): string {
    const outcomes = [...this.statuses].map(([s, n]) => `${s} ${n}`).join(', ');
    const counts = this.kinds.map(([name]) => `${this.violations.get(name) ?? 0} ${name}`).join(', ');
    return (
      `${this.vm} model: ${this.schedules} schedules (seed ${seed}), ${this.crashes} crashes, ${counts}, ` +
      `${this.failures} failing runs (shrinking included); outcomes: ${outcomes || 'none'}; ${((Date.now() - this.started) / 1000).toFixed(1)} s`
    );
  }
}
