/**
 * The single-run lock shared by `run --once` and the daemon (DESIGN.md: "Both take the same single-run lock
 * (in SQLite), so a cron run and a daemon never act at once"). Held with a TTL and refreshed while a cycle
 * runs, so a crashed holder cannot block forever.
 */
import { randomUUID } from 'node:crypto';
import { acquireRunLock, refreshRunLock, releaseRunLock } from '../store/lock.ts';
import type { CycleContext } from '../cycle/context.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { BallastError } from '../core/errors.ts';

/** Lock lifetime without refresh, ms. */
export const RUN_LOCK_TTL_MS = 120_000;
/** Refresh interval while held, ms. */
export const RUN_LOCK_REFRESH_MS = 30_000;

/** Raised when another process holds the lock. `code` is stable; the CLI exits 1. */
export class RunLockBusyError extends BallastError {
  readonly code = 'RUN_LOCK_BUSY';
  constructor() {
    super('another Ballast run holds the run lock (a daemon or a cron run); this run did nothing');
  }
}

/**
 * Runs `fn` while holding the run lock. `fn` receives a signal that aborts when the process shuts down or when
 * the lock is lost (a refresh finds another owner after a long pause or a clock jump): the cycle then starts no
 * new transfer and stops tracking, so two runs never act at once.
 *
 * @throws RunLockBusyError when the lock is held by someone else
 */
export async function withRunLock<T>(ctx: CycleContext, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const owner = `${process.pid}:${randomUUID()}`;
  if (!acquireRunLock(ctx.db, { owner, pid: process.pid, nowMs: ctx.now(), ttlMs: RUN_LOCK_TTL_MS })) {
    throw new RunLockBusyError();
  }
  const lost = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, lost.signal]) : lost.signal;
  const timer = setInterval(() => {
    try {
      if (!refreshRunLock(ctx.db, { owner, nowMs: ctx.now(), ttlMs: RUN_LOCK_TTL_MS })) {
        ctx.logger.error('run lock lost to another run; this cycle stops starting transfers');
        lost.abort();
      }
    } catch (error) {
      ctx.logger.error({ err: shortErrorMessage(error) }, 'run lock refresh failed; this cycle stops starting transfers');
      lost.abort();
    }
  }, RUN_LOCK_REFRESH_MS);
  timer.unref();
  try {
    return await fn(signal);
  } finally {
    clearInterval(timer);
    releaseRunLock(ctx.db, owner);
  }
}
