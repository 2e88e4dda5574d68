/**
 * GET /chains cache: served from memory within the TTL, fetched again after it, one request shared by
 * concurrent callers, and `refresh(seen)` fetching once however many callers saw the same stale list.
 */
import { describe, expect, it } from 'vitest';
import { createChainsCache } from '../../../packages/ballast/src/relay/chainsCache.ts';
import type { ChainsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { RelaySectionSchema } from '../../../packages/ballast/src/config/schema.ts';

/** A counting fetch returning a new list (tagged by its number) on every call. */
function source() {
  let calls = 0;
  let fail = false;
  return {
    get calls() {
      return calls;
    },
    failNext() {
      fail = true;
    },
    fetch: async (): Promise<ChainsResponse> => {
      calls += 1;
      await new Promise((r) => setTimeout(r, 5));
      if (fail) {
        fail = false;
        throw new Error('GET /chains: 503');
      }
      return { chains: [{ id: calls, name: `list-${calls}` }] } as unknown as ChainsResponse; // only identity and id matter here
    },
  };
}

describe('createChainsCache', () => {
  it('serves the fetched list until the TTL passes, then fetches again', async () => {
    const src = source();
    let nowMs = 1_000_000;
    const cache = createChainsCache({ fetch: src.fetch, ttlMs: 300_000, now: () => nowMs });
    expect(cache.current()).toBeNull();
    const first = await cache.get();
    for (let i = 0; i < 50; i++) {
      nowMs += 5_000; // 50 cycles 5 s apart: 250 s < 300 s
      expect(await cache.get()).toBe(first);
    }
    expect(src.calls).toBe(1);
    nowMs += 50_000; // 300 s after the fetch
    const second = await cache.get();
    expect(second).not.toBe(first);
    expect(second.chains[0]!.id).toBe(2);
    expect(src.calls).toBe(2);
    expect(cache.fetches).toBe(2);
  });

  it('ttlMs 0 fetches on every get', async () => {
    const src = source();
    const cache = createChainsCache({ fetch: src.fetch, ttlMs: 0 });
    await cache.get();
    await cache.get();
    expect(src.calls).toBe(2);
  });

  it('concurrent callers share one request', async () => {
    const src = source();
    const cache = createChainsCache({ fetch: src.fetch, ttlMs: 60_000 });
    const lists = await Promise.all([cache.get(), cache.get(), cache.get()]);
    expect(src.calls).toBe(1);
    expect(new Set(lists).size).toBe(1);
  });

  it('refresh(seen) fetches once for every caller that saw the same list, and replaces the cached list', async () => {
    const src = source();
    const cache = createChainsCache({ fetch: src.fetch, ttlMs: 60_000 });
    const stale = await cache.get();
    const [a, b] = await Promise.all([cache.refresh(stale), cache.refresh(stale)]);
    const c = await cache.refresh(stale); // a third caller judged with the old list: the newer one, no request
    expect(src.calls).toBe(2);
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(a).not.toBe(stale);
    expect(await cache.get()).toBe(a);
    expect(cache.current()).toBe(a);
    expect(await cache.refresh(a)).not.toBe(a); // the list in hand is the newest: fetched again
    expect(src.calls).toBe(3);
  });

  it('a failed fetch throws and leaves the cached list as it was; the next call tries again', async () => {
    const src = source();
    let nowMs = 0;
    const cache = createChainsCache({ fetch: src.fetch, ttlMs: 1_000, now: () => nowMs });
    const first = await cache.get();
    src.failNext();
    await expect(cache.refresh(first)).rejects.toThrow('GET /chains: 503');
    expect(cache.current()).toBe(first);
    nowMs = 2_000;
    src.failNext();
    await expect(cache.get()).rejects.toThrow('503'); // expired and unreachable: no stale list served
    const again = await cache.get();
    expect(again.chains[0]!.id).toBe(4);
  });

  it('refuses a negative TTL', () => {
    expect(() => createChainsCache({ fetch: source().fetch, ttlMs: -1 })).toThrow(/ttlMs must be a non-negative/);
  });
});

describe('relay.chainsCacheSec', () => {
  it('defaults to 300 s', () => {
    expect(RelaySectionSchema.parse({}).chainsCacheSec).toBe(300);
  });

  it.each([-1, 1.5, 86_401, '300'])('refuses %j with a message naming the key and the range', (value) => {
    const parsed = RelaySectionSchema.safeParse({ chainsCacheSec: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['chainsCacheSec']);
    expect(parsed.error?.issues[0]?.message).toMatch(
      /chainsCacheSec must be (a whole number of seconds|between 0 \(fetch every cycle\) and 86400)/,
    );
  });
});
