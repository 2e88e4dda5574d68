import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { acquireRunLock, readRunLock, refreshRunLock, releaseRunLock } from '../../../packages/ballast/src/store/lock.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';

const TTL = 60_000;

describeEachEngine('run lock', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  describe('run lock', () => {
    it('is exclusive until released by its owner', async () => {
      expect(await acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 1000, ttlMs: TTL })).toBe(true);
      expect(await acquireRunLock(db, { owner: 'b', pid: 2, nowMs: 2000, ttlMs: TTL })).toBe(false);
      expect(await acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 2000, ttlMs: TTL })).toBe(false); // not re-entrant
      expect(await releaseRunLock(db, 'b')).toBe(false); // only the owner releases
      expect(await readRunLock(db)).toEqual({ owner: 'a', pid: 1, acquiredAtMs: 1000, expiresAtMs: 61_000 });
      expect(await releaseRunLock(db, 'a')).toBe(true);
      expect(await readRunLock(db)).toBeUndefined();
      expect(await acquireRunLock(db, { owner: 'b', pid: 2, nowMs: 3000, ttlMs: TTL })).toBe(true);
    });

    it('can be taken over once expired, and the old owner can then neither refresh nor release it', async () => {
      await acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 0, ttlMs: TTL });
      expect(await acquireRunLock(db, { owner: 'b', pid: 2, nowMs: TTL - 1, ttlMs: TTL })).toBe(false);
      expect(await acquireRunLock(db, { owner: 'b', pid: 2, nowMs: TTL, ttlMs: TTL })).toBe(true);
      expect(await refreshRunLock(db, { owner: 'a', nowMs: TTL + 1, ttlMs: TTL })).toBe(false);
      expect(await releaseRunLock(db, 'a')).toBe(false);
      expect((await readRunLock(db))?.owner).toBe('b');
    });

    it('refresh extends the expiry so a live holder keeps the lock', async () => {
      await acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 0, ttlMs: TTL });
      expect(await refreshRunLock(db, { owner: 'a', nowMs: 50_000, ttlMs: TTL })).toBe(true);
      expect(await acquireRunLock(db, { owner: 'b', pid: 2, nowMs: 70_000, ttlMs: TTL })).toBe(false);
      expect((await readRunLock(db))?.expiresAtMs).toBe(110_000);
    });

    it('holds across two connections to the same store', async () => {
      const one = db;
      const two = await engine.openAgain(db);
      expect(await acquireRunLock(one, { owner: 'cron', pid: 10, nowMs: 1000, ttlMs: TTL })).toBe(true);
      expect(await acquireRunLock(two, { owner: 'daemon', pid: 11, nowMs: 1001, ttlMs: TTL })).toBe(false);
      expect(await releaseRunLock(one, 'cron')).toBe(true);
      expect(await acquireRunLock(two, { owner: 'daemon', pid: 11, nowMs: 1002, ttlMs: TTL })).toBe(true);
    });

    it('rejects a non-positive TTL', async () => {
      await expect(acquireRunLock(db, { owner: 'a', pid: 1, nowMs: 0, ttlMs: 0 })).rejects.toThrow(/ttlMs must be a positive integer/);
    });

    it('exactly one of several processes racing for it wins', async () => {
      // The store is created and migrated by engine.open(); each racer opens it with openStore.
      const openStoreModule = fileURLToPath(new URL('../../../packages/ballast/src/store/openStore.ts', import.meta.url));
      const lockModule = fileURLToPath(new URL('../../../packages/ballast/src/store/lock.ts', import.meta.url));
      const dir = mkdtempSync(join(tmpdir(), 'ballast-lock-race-'));
      try {
        const script = join(dir, 'race.mts');
        writeFileSync(
          script,
          `import { openStore } from ${JSON.stringify(openStoreModule)};
import { acquireRunLock } from ${JSON.stringify(lockModule)};
async function main(): Promise<void> {
  const db = await openStore(process.argv[2]);
  const startAt = Number(process.argv[3]);
  // Line up the racers: sleep until just before the start (six spinning processes would starve two cores), then
  // spin the last few milliseconds so that all of them call at once.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - 20 - Date.now())));
  while (Date.now() < startAt) { /* spin */ }
  const won = await acquireRunLock(db, { owner: 'p' + process.pid, pid: process.pid, nowMs: 1000, ttlMs: 60000 });
  await db.close();
  process.stdout.write(won ? 'won' : 'lost');
}
main().catch((err) => { console.error(err); process.exit(1); });
`,
        );
        const startAt = Date.now() + 3000;
        const runs = Array.from(
          { length: 6 },
          () =>
            new Promise<string>((resolve, reject) => {
              const child = spawn(process.execPath, ['--import', 'tsx', script, engine.setting(db), String(startAt)], {
                stdio: ['ignore', 'pipe', 'pipe'],
              });
              let out = '';
              let err = '';
              child.stdout.on('data', (d: Buffer) => (out += d.toString()));
              child.stderr.on('data', (d: Buffer) => (err += d.toString()));
              const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 25_000);
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
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 40_000);
  });
});
