/**
 * The run lock as a lease: a lock left by a run whose process is gone on this host is taken over at once; one
 * held by a live process is not, and the refusal names who holds it until when.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunLockBusyError, withRunLock } from '../../../packages/ballast/src/app/runLock.ts';
import type { CycleContext } from '../../../packages/ballast/src/cycle/context.ts';
import { acquireRunLock, readRunLock } from '../../../packages/ballast/src/store/lock.ts';
import { tempDb, type TempDb } from '../store/helpers.ts';

let t: TempDb;
const children: ChildProcess[] = [];
beforeEach(() => {
  t = tempDb();
});
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children.length = 0;
  t.cleanup();
});

const NOW = 1_800_000_000_000;

/** The parts of the cycle context the lock uses (db, clock, logger). */
function ctxOf(db: CycleContext['db']): CycleContext {
  // withRunLock reads only db, now, logger and signal; the rest of the context is not needed for the lock.
  return { db, now: () => NOW, logger: pino({ level: 'silent' }) } as unknown as CycleContext;
}

/** A process id that is certainly gone: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  const pid = child.pid!;
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}

function livePid(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  children.push(child);
  return child.pid!;
}

describe('withRunLock', () => {
  it('takes over at once a lock whose holder process is gone on this host', async () => {
    const db = t.open();
    const pid = await deadPid();
    expect(await acquireRunLock(db, { owner: `${hostname()}:${pid}:old`, pid, nowMs: NOW - 1000, ttlMs: 120_000 })).toBe(true);
    let holderInside: string | undefined;
    const result = await withRunLock(ctxOf(db), async () => {
      holderInside = (await readRunLock(db))?.owner;
      return 'ran';
    });
    expect(result).toBe('ran');
    expect(holderInside).toMatch(new RegExp(`^${hostname()}:${process.pid}:`));
    expect(await readRunLock(db)).toBeUndefined(); // released afterwards
  });

  it('refuses while the holder is alive, naming its pid, host and lease', async () => {
    const db = t.open();
    const pid = livePid();
    await acquireRunLock(db, { owner: `${hostname()}:${pid}:live`, pid, nowMs: NOW - 1000, ttlMs: 120_000 });
    const err = await withRunLock(ctxOf(db), async () => 'ran').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunLockBusyError);
    expect((err as Error).message).toContain(`pid ${pid} on ${hostname()}`);
    expect((err as Error).message).toContain(`lease until ${new Date(NOW + 119_000).toISOString()}`);
    expect((await readRunLock(db))?.pid).toBe(pid);
  });

  it('does not take over a lock of a dead pid on another host (that pid means nothing here)', async () => {
    const db = t.open();
    const pid = await deadPid();
    await acquireRunLock(db, { owner: `another-host:${pid}:x`, pid, nowMs: NOW - 1000, ttlMs: 120_000 });
    await expect(withRunLock(ctxOf(db), async () => 'ran')).rejects.toThrow(/on another-host/);
  });
});
