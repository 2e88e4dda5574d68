import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../packages/ballast/src/relay/rateLimiter.ts';

function fakeClock(start = 0) {
  const clock = { now: start, sleeps: [] as number[] };
  return {
    clock,
    now: () => clock.now,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
    },
  };
}

describe('createRateLimiter', () => {
  it('lets `limit` calls through, then waits until the oldest leaves the window', async () => {
    const { clock, now, sleep } = fakeClock(1000);
    const limiter = createRateLimiter({ limit: 3, windowMs: 60_000, now, sleep });
    await limiter.acquire();
    clock.now = 2000;
    await limiter.acquire();
    await limiter.acquire();
    expect(clock.sleeps).toEqual([]);
    clock.now = 10_000;
    await limiter.acquire(); // slot at 61_000 (first call + window)
    expect(clock.sleeps).toEqual([51_000]);
  });

  it('gives concurrent callers distinct slots', async () => {
    const { clock, now, sleep } = fakeClock(0);
    const limiter = createRateLimiter({ limit: 2, windowMs: 1000, now, sleep });
    await Promise.all([1, 2, 3, 4, 5].map(() => limiter.acquire()));
    // Slots: 0, 0, 1000, 1000, 2000 → waits of 1000, 1000, 2000 with the clock standing still.
    expect(clock.sleeps).toEqual([1000, 1000, 2000]);
  });

  it('forgets calls older than the window', async () => {
    const { clock, now, sleep } = fakeClock(0);
    const limiter = createRateLimiter({ limit: 1, windowMs: 1000, now, sleep });
    await limiter.acquire();
    clock.now = 1500;
    await limiter.acquire();
    expect(clock.sleeps).toEqual([]);
  });

  it('tells how many calls could start now without waiting', async () => {
    const { clock, now, sleep } = fakeClock(0);
    const limiter = createRateLimiter({ limit: 3, windowMs: 1000, now, sleep });
    expect(limiter.free()).toBe(3);
    await limiter.acquire();
    await limiter.acquire();
    expect(limiter.free()).toBe(1);
    await limiter.acquire();
    expect(limiter.free()).toBe(0);
    await limiter.acquire(); // queued for the slot at 1000: nothing is free while it waits
    clock.now = 999;
    expect(limiter.free()).toBe(0);
    clock.now = 1000; // the queued call started; the first three left the window
    expect(limiter.free()).toBe(2);
  });

  it('rejects a non-positive limit', () => {
    const { now, sleep } = fakeClock();
    expect(() => createRateLimiter({ limit: 0, windowMs: 1000, now, sleep })).toThrow(RangeError);
  });
});
