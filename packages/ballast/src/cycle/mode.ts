/**
 * The run mode of a cycle or a manual transfer, one value instead of separate flags. Operators keep writing
 * `monitorOnly: true` (config), `daemon --monitor-only`, `ballast plan` and `transfer --dry-run`; the edges
 * (src/app/createBallast.ts, src/cycle/manualTransfer.ts) map them here. Pure.
 *
 * - `execute`: quote, check, pass the spending gates and sign (a normal `once` or `daemon` cycle).
 * - `plan`: quote and check only; the spending gates are not judged and nothing is signed (`ballast plan`).
 * - `monitor`: as `plan`, and also judge the kill switch and the spending limits read-only, count the cycle like a
 *   daemon's and report what a normal cycle would have done (`monitorOnly`, `daemon --monitor-only`, and
 *   `transfer --dry-run`).
 */

/** How far a cycle or a manual transfer goes: see the module comment. */
export type Mode = 'execute' | 'plan' | 'monitor';

/** The `mode` recorded on a cycle row and in its report: `plan` for every cycle that signs nothing. */
export type CycleKind = 'once' | 'daemon' | 'plan';

/**
 * The mode of a process from its configuration and its command line: `monitor` when `monitorOnly: true` is
 * configured or `--monitor-only` was given, else `execute`.
 *
 * @param configMonitorOnly the config key `monitorOnly`
 * @param flagMonitorOnly `daemon --monitor-only`
 */
export function processMode(configMonitorOnly: boolean, flagMonitorOnly: boolean | undefined): 'execute' | 'monitor' {
  return configMonitorOnly || flagMonitorOnly === true ? 'monitor' : 'execute';
}

/**
 * One cycle to run: its mode and, for a cycle that may sign, what started it (`once`: `ballast run --once`,
 * `daemon`: a daemon tick), which is recorded on the cycle row.
 */
export type CycleRun = { mode: 'execute'; trigger: 'once' | 'daemon' } | { mode: 'plan' | 'monitor' };

/**
 * The cycle a process runs when asked for `requested`: a `plan` request stays `plan`; `once` and `daemon` cycles
 * run in the process's mode.
 *
 * @param requested what the caller asked for (`ballast plan` → `plan`, `run --once` → `once`, the daemon → `daemon`)
 * @param process the process's mode ({@link processMode})
 */
export function cycleRun(requested: CycleKind, process: 'execute' | 'monitor'): CycleRun {
  if (requested === 'plan') return { mode: 'plan' };
  return process === 'execute' ? { mode: 'execute', trigger: requested } : { mode: 'monitor' };
}

/**
 * The mode of a manual transfer: `transfer --dry-run` judges it like monitor-only mode (kill switch and limits
 * read-only) and signs nothing.
 */
export function transferMode(dryRun: boolean): 'execute' | 'monitor' {
  return dryRun ? 'monitor' : 'execute';
}

/** The kind recorded on the cycle row: the trigger (`once` or `daemon`) of a cycle that may sign, else `plan`. */
export function cycleKind(run: CycleRun): CycleKind {
  return run.mode === 'execute' ? run.trigger : 'plan';
}

/** Whether a cycle of this mode signs (and so takes the run lock, reconciles and closes abandoned cycles). */
export function signs(mode: Mode): boolean {
  return mode === 'execute';
}

/**
 * Whether a cycle of this mode is counted in the cycle metrics (`ballast_cycles_total`, duration, last success):
 * cycles that act or watch for a daemon, not `ballast plan`.
 */
export function countsCycle(mode: Mode): boolean {
  return mode !== 'plan';
}
