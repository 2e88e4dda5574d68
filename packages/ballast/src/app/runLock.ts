/**
 * The single-run lock shared by `run --once` and the daemon (docs/design.md: "Both take the same single-run lock
 * (in SQLite), so a cron run and a daemon never act at once"). A lease: it records its owner (host, pid) and
 * is renewed while a cycle runs, so a crashed holder cannot block forever; a holder whose process is gone on
 * this host is taken over at once instead of waiting for the lease to run out.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { acquireRunLock, readRunLock, refreshRunLock, releaseRunLock, takeOverRunLock, type RunLockHolder } from '../store/lock.ts';
import type { CycleContext } from '../cycle/context.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Lock lifetime without refresh, ms. */
export const RUN_LOCK_TTL_MS = 120_000;
/** Refresh interval while held, ms. */
export const RUN_LOCK_REFRESH_MS = 30_000;

/** Raised when another live run holds the lock. `code` is stable; the CLI exits 4 (README "Exit codes"). */
export class RunLockBusyError extends BallastError {
  readonly code = 'RUN_LOCK_BUSY';
  constructor(readonly holder?: RunLockHolder) {
    super(
      holder
        ? `another Ballast run holds the run lock: pid ${holder.pid} on ${ownerHost(holder.owner) ?? 'an unknown host'}, since ` +
            `${new Date(holder.acquiredAtMs).toISOString()}, lease until ${new Date(holder.expiresAtMs).toISOString()}; this run did nothing`
        : 'another Ballast run holds the run lock (a daemon or a cron run); this run did nothing',
    );
  }
}

/** The host part of an owner id `<host>:<pid>:<uuid>`, or undefined for another form. */
function ownerHost(owner: string): string | undefined {
  const parts = owner.split(':');
  return parts.length >= 3 ? parts.slice(0, -2).join(':') : undefined;
}

/** Whether a process with this pid exists on this host (signal 0 probes without delivering anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

/**
 * Takes the lock: free or expired, or held by a run whose process is gone on this very host.
 *
 * @throws RunLockBusyError naming the holder when a live run (or one on another host) holds it
 */
async function takeRunLock(ctx: CycleContext, owner: string): Promise<void> {
  const lease = { owner, pid: process.pid, nowMs: ctx.now(), ttlMs: RUN_LOCK_TTL_MS };
  if (await acquireRunLock(ctx.db, lease)) return;
  const holder = await readRunLock(ctx.db);
  if (holder && ownerHost(holder.owner) === hostname() && holder.pid !== process.pid && !processAlive(holder.pid)) {
    // Guarded by the expected owner: when another run took it over first, this one finds the lock busy.
    if (await takeOverRunLock(ctx.db, { ...lease, expectedOwner: holder.owner })) {
      ctx.logger.warn({ deadPid: holder.pid, since: holder.acquiredAtMs }, 'run lock held by a run that is gone; taken over');
      return;
    }
  }
  throw new RunLockBusyError((await readRunLock(ctx.db)) ?? holder);
}

/**
 * Runs `fn` while holding the run lock. `fn` receives a signal that aborts when the process shuts down or when
 * the lock is lost (a refresh finds another owner after a long pause or a clock jump): the cycle then starts no
 * new transfer and stops tracking, so two runs never act at once.
 *
 * @throws RunLockBusyError when the lock is held by another live run
 */
export async function withRunLock<T>(ctx: CycleContext, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  await takeRunLock(ctx, owner);
  const lost = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, lost.signal]) : lost.signal;
  let refreshing: Promise<void> | undefined;
  const refresh = async (): Promise<void> => {
    try {
      if (!(await refreshRunLock(ctx.db, { owner, nowMs: ctx.now(), ttlMs: RUN_LOCK_TTL_MS }))) {
        ctx.logger.error('run lock lost to another run; this cycle stops starting transfers');
        lost.abort();
      }
    } catch (error) {
      ctx.logger.error({ err: shortErrorMessage(error) }, 'run lock refresh failed; this cycle stops starting transfers');
      lost.abort();
    }
  };
  const timer = setInterval(() => {
    if (refreshing) return; // the previous refresh is still waiting for the store (e.g. behind a long transaction)
    // refresh() never rejects (it logs); the catch only guards against an unhandled rejection all the same.
    refreshing = refresh()
      .catch((error: unknown) => ctx.logger.error({ err: shortErrorMessage(error) }, 'run lock refresh failed'))
      .finally(() => {
        refreshing = undefined;
      });
  }, RUN_LOCK_REFRESH_MS);
  timer.unref();
  try {
    return await fn(signal);
  } finally {
    clearInterval(timer);
    await refreshing; // a refresh in progress must not land after the release below
    await releaseRunLock(ctx.db, owner);
  }
}
