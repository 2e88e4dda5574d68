/**
 * Readiness of the daemon for `/readyz` (pure; the daemon supplies the clock and the facts). Ready means the
 * store is open and a cycle finished, whatever its outcome, within `metrics.readyAfterSchedules` schedule
 * intervals: one Relay outage ending a cycle in error does not make the daemon unready, a scheduler that
 * stopped running cycles (or a cycle stuck for that long) does. Before the first cycle finishes, the same span
 * counts from the daemon's start as a start-up grace.
 */
import type { HealthReport } from './server.ts';

/** Default of `metrics.readyAfterSchedules`. */
export const DEFAULT_READY_AFTER_SCHEDULES = 3;

/** What readiness is judged from. Times in ms since the epoch. */
export interface ReadinessInput {
  nowMs: number;
  /** When the daemon started (the start-up grace counts from here). */
  startedAtMs: number;
  /** When the last cycle finished (any outcome), or null before the first one. */
  lastCycleFinishedAtMs: number | null;
  storeOpen: boolean;
  /** Longest allowed age of the last cycle: readyAfterSchedules × the schedule interval, ms. */
  maxAgeMs: number;
}

/** The JSON body of `/readyz`. Ages in whole seconds. */
export interface ReadinessDetail {
  ready: boolean;
  storeOpen: boolean;
  /** Seconds since the last cycle finished; null before the first one. */
  lastCycleAgeSeconds: number | null;
  /** Seconds since the daemon started. */
  uptimeSeconds: number;
  maxAgeSeconds: number;
  /** Why not ready (absent when ready). */
  reason?: string;
}

/**
 * Judges readiness.
 *
 * @returns `{ ok, detail }` for the metrics server (200 when ok, else 503)
 */
export function readiness(input: ReadinessInput): HealthReport & { detail: ReadinessDetail } {
  const seconds = (ms: number) => Math.max(0, Math.floor(ms / 1000));
  const age = input.lastCycleFinishedAtMs === null ? null : input.nowMs - input.lastCycleFinishedAtMs;
  const sinceStart = input.nowMs - input.startedAtMs;
  const base = {
    storeOpen: input.storeOpen,
    lastCycleAgeSeconds: age === null ? null : seconds(age),
    uptimeSeconds: seconds(sinceStart),
    maxAgeSeconds: seconds(input.maxAgeMs),
  };
  let reason: string | undefined;
  if (!input.storeOpen) reason = 'the store is closed';
  else if (age === null && sinceStart > input.maxAgeMs) reason = `no cycle finished in the ${base.maxAgeSeconds} s since start`;
  else if (age !== null && age > input.maxAgeMs)
    reason = `the last cycle finished ${base.lastCycleAgeSeconds} s ago, more than ${base.maxAgeSeconds} s`;
  const ready = reason === undefined;
  return { ok: ready, detail: { ready, ...base, ...(reason !== undefined ? { reason } : {}) } };
}

/**
 * The schedule interval, ms: the longest gap between consecutive run times among the next ones given (a cron
 * schedule need not be regular, e.g. weekdays only).
 *
 * @param nextRuns upcoming run times in order (node-cron `getNextRuns`); fewer than two: 0
 */
export function scheduleIntervalMs(nextRuns: readonly Date[]): number {
  let longest = 0;
  for (let i = 1; i < nextRuns.length; i++) longest = Math.max(longest, nextRuns[i]!.getTime() - nextRuns[i - 1]!.getTime());
  return longest;
}
