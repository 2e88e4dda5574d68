/**
 * `BALLAST_CRASH_AT=<point>[#n]`: fault injection for the crash-recovery suite. When set, the process kills
 * itself with SIGKILL (no cleanup, no flush, exactly like a power cut or an OOM kill) the n-th time it passes
 * that step boundary (src/core/crashPoints.ts). `BALLAST_PAUSE_AT=<point>[#n]` stops it there instead (SIGSTOP to
 * itself, like a long GC pause or a frozen host) until someone sends SIGCONT: the paused-leader case of the
 * failover suite (docs/ha.md). Unset in production; never read from the YAML config.
 */
import { armCrashPoints, parseCrashTarget } from '../core/crashPoints.ts';
import type { EnvMap } from './env.ts';

/**
 * Arms the SIGKILL handler when `BALLAST_CRASH_AT` is set, else the SIGSTOP handler when `BALLAST_PAUSE_AT` is.
 *
 * @returns the armed target, or null when the variable is unset or empty
 * @throws Error naming the accepted points when the value is not one
 */
export function armCrashFromEnv(env: EnvMap): { point: string; hit: number } | null {
  const kill = env.BALLAST_CRASH_AT;
  const pause = env.BALLAST_PAUSE_AT;
  const useKill = kill !== undefined && kill !== '';
  const text = useKill ? kill : pause;
  if (text === undefined || text === '') return null;
  const target = parseCrashTarget(text);
  const signal = useKill ? 'SIGKILL' : 'SIGSTOP';
  armCrashPoints((point, hit) => {
    if (point === target.point && hit === target.hit) process.kill(process.pid, signal);
  });
  return target;
}
