import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireRunLock, readRunLock, refreshRunLock, releaseRunLock } from '../../../src/store/lock.ts';
import { tempDb, type TempDb } from './helpers.ts';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
});
afterEach(() => {
  t.cleanup();
});

const TTL = 60_000;

describe('run lock', () => {
  it('is exclusive until released by its owner', () => {
    const db = t.open();
    expect(acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 1000, ttlMs: TTL })).toBe(true);
    expect(acquireRunLock(db, { owner: 'b', pid: 2, nowMs: 2000, ttlMs: TTL })).toBe(false);
    expect(acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 2000, ttlMs: TTL })).toBe(false); // not re-entrant
    expect(releaseRunLock(db, 'b')).toBe(false); // only the owner releases
    expect(readRunLock(db)).toEqual({ owner: 'a', pid: 1, acquiredAtMs: 1000, expiresAtMs: 61_000 });
    expect(releaseRunLock(db, 'a')).toBe(true);
    expect(readRunLock(db)).toBeUndefined();
    expect(acquireRunLock(db, { owner: 'b', pid: 2, nowMs: 3000, ttlMs: TTL })).toBe(true);
  });

  it('can be taken over once expired, and the old owner can then neither refresh nor release it', () => {
    const db = t.open();
    acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 0, ttlMs: TTL });
    expect(acquireRunLock(db, { owner: 'b', pid: 2, nowMs: TTL - 1, ttlMs: TTL })).toBe(false);
    expect(acquireRunLock(db, { owner: 'b', pid: 2, nowMs: TTL, ttlMs: TTL })).toBe(true);
    expect(refreshRunLock(db, { owner: 'a', nowMs: TTL + 1, ttlMs: TTL })).toBe(false);
    expect(releaseRunLock(db, 'a')).toBe(false);
    expect(readRunLock(db)?.owner).toBe('b');
  });

  it('refresh extends the expiry so a live holder keeps the lock', () => {
    const db = t.open();
    acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 0, ttlMs: TTL });
    expect(refreshRunLock(db, { owner: 'a', nowMs: 50_000, ttlMs: TTL })).toBe(true);
    expect(acquireRunLock(db, { owner: 'b', pid: 2, nowMs: 70_000, ttlMs: TTL })).toBe(false);
    expect(readRunLock(db)?.expiresAtMs).toBe(110_000);
  });

  it('holds across two connections to the same file', () => {
    const one = t.open();
    const two = t.open();
    expect(acquireRunLock(one, { owner: 'cron', pid: 10, nowMs: 1000, ttlMs: TTL })).toBe(true);
    expect(acquireRunLock(two, { owner: 'daemon', pid: 11, nowMs: 1001, ttlMs: TTL })).toBe(false);
    expect(releaseRunLock(one, 'cron')).toBe(true);
    expect(acquireRunLock(two, { owner: 'daemon', pid: 11, nowMs: 1002, ttlMs: TTL })).toBe(true);
  });

  it('rejects a non-positive TTL', () => {
    const db = t.open();
    expect(() => acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 0, ttlMs: 0 })).toThrow(/ttlMs must be a positive integer/);
  });

  it('exactly one of several processes racing for it wins', async () => {
    t.open(); // create and migrate the file first
    const lockModule = fileURLToPath(new URL('../../../src/store/lock.ts', import.meta.url));
    const dbModule = fileURLToPath(new URL('../../../src/store/database.ts', import.meta.url));
    const script = join(t.dir, 'race.ts');
    writeFileSync(
      script,
      `import { openDatabase } from ${JSON.stringify(dbModule)};
import { acquireRunLock } from ${JSON.stringify(lockModule)};
const db = openDatabase(process.argv[2]);
const startAt = Number(process.argv[3]);
while (Date.now() < startAt) { /* line up the racers */ }
const won = acquireRunLock(db, { owner: 'p' + process.pid, pid: process.pid, nowMs: 1000, ttlMs: 60000 });
db.close();
process.stdout.write(won ? 'won' : 'lost');
`,
    );
    const startAt = Date.now() + 2500;
    const runs = Array.from({ length: 6 }, () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script, t.file, String(startAt)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 20_000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          if (code === 0) resolve(out);
          else reject(new Error(`racer exited ${code}: ${err}`));
        });
      }),
    );
    const results = await Promise.all(runs);
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost')).toHaveLength(5);
  }, 30_000);
});
