import { describe, expect, it } from 'vitest';
import { trackRequest } from '../../../packages/ballast/src/executor/trackRequest.ts';
import type { IntentStatus, RequestStatus } from '../../../packages/protocol/src/relay/schemas.ts';

/** A fake clock whose sleep advances time instantly. */
function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms), advance: (ms: number) => void (t += ms) };
}

function statuses(seq: (RequestStatus | Error)[]) {
  let i = 0;
  const calls: number[] = [];
  return {
    calls,
    get: async (): Promise<IntentStatus> => {
      calls.push(i);
      const s = seq[Math.min(i++, seq.length - 1)]!;
      if (s instanceof Error) throw s;
      return { status: s, inTxHashes: [], txHashes: s === 'success' ? ['0xfill'] : [] };
    },
  };
}

describe('trackRequest', () => {
  it('polls until a terminal status and reports each change once', async () => {
    const c = clock();
    const s = statuses(['waiting', 'waiting', 'pending', 'submitted', 'success']);
    const seen: string[] = [];
    const r = await trackRequest({
      getStatus: s.get,
      onStatus: (x) => seen.push(x.status),
      pollMs: 1000,
      timeoutMs: 60_000,
      now: c.now,
      sleep: c.sleep,
    });
    expect(r.final).toBe('success');
    expect(r.last?.txHashes).toEqual(['0xfill']);
    expect(seen).toEqual(['waiting', 'pending', 'submitted', 'success']);
    expect(s.calls).toHaveLength(5);
    expect(c.now()).toBe(4000);
  });

  it('tracks through delayed and unknown statuses (non-final) to the terminal one', async () => {
    const c = clock();
    const s = statuses(['pending', 'delayed', 'fallback', 'brand-new-status', 'success']);
    const seen: string[] = [];
    const r = await trackRequest({
      getStatus: s.get,
      onStatus: (x) => seen.push(x.status),
      pollMs: 1000,
      timeoutMs: 60_000,
      now: c.now,
      sleep: c.sleep,
    });
    expect(r.final).toBe('success');
    expect(seen).toEqual(['pending', 'delayed', 'fallback', 'brand-new-status', 'success']);
  });

  it('returns final null at the deadline and leaves the request in flight', async () => {
    const c = clock();
    const s = statuses(['pending']);
    const r = await trackRequest({ getStatus: s.get, onStatus: () => {}, pollMs: 1000, timeoutMs: 5000, now: c.now, sleep: c.sleep });
    expect(r.final).toBeNull();
    expect(r.last?.status).toBe('pending');
    expect(c.now()).toBe(5000);
  });

  it('keeps polling through read errors, reporting each failing stretch once', async () => {
    const c = clock();
    const s = statuses([new Error('503 a'), new Error('503 b'), new Error('503 c'), 'pending', new Error('503 d'), 'refund']);
    const errors: string[] = [];
    const r = await trackRequest({
      getStatus: s.get,
      onStatus: () => {},
      onError: (e) => errors.push((e as Error).message),
      pollMs: 500,
      timeoutMs: 10_000,
      now: c.now,
      sleep: c.sleep,
    });
    expect(r.final).toBe('refund');
    expect(errors).toEqual(['503 a', '503 d']);
  });

  it('failed reads are not "still waiting": no reindex is asked while every read fails', async () => {
    const c = clock();
    const s = statuses([new Error('503')]);
    let reindex = 0;
    const r = await trackRequest({
      getStatus: s.get,
      onStatus: () => {},
      onStuckWaiting: async () => void reindex++,
      stuckWaitingMs: 1000,
      pollMs: 500,
      timeoutMs: 5_000,
      now: c.now,
      sleep: c.sleep,
    });
    expect(r.final).toBeNull();
    expect(reindex).toBe(0);
  });

  it('asks for a reindex once when still waiting after stuckWaitingMs', async () => {
    const c = clock();
    const s = statuses(['waiting', 'waiting', 'waiting', 'waiting', 'pending', 'success']);
    let reindex = 0;
    const r = await trackRequest({
      getStatus: s.get,
      onStatus: () => {},
      onStuckWaiting: async () => void reindex++,
      stuckWaitingMs: 2000,
      pollMs: 1000,
      timeoutMs: 60_000,
      now: c.now,
      sleep: c.sleep,
    });
    expect(r.final).toBe('success');
    expect(reindex).toBe(1);
  });

  it('stops at once when the abort signal fires', async () => {
    const c = clock();
    const s = statuses(['pending']);
    const abort = new AbortController();
    const r = await trackRequest({
      getStatus: s.get,
      onStatus: () => abort.abort(),
      pollMs: 1000,
      timeoutMs: 60_000,
      now: c.now,
      sleep: c.sleep,
      signal: abort.signal,
    });
    expect(r.final).toBeNull();
    expect(s.calls).toHaveLength(1);
  });

  it('ends on time when a status read hangs (or retries) past the tracking window, and tells the read to stop', async () => {
    let readSignal: AbortSignal | undefined;
    const started = Date.now();
    const r = await trackRequest({
      getStatus: (signal) => {
        readSignal = signal;
        return new Promise<IntentStatus>(() => {}); // never answers
      },
      onStatus: () => {},
      pollMs: 10,
      timeoutMs: 150,
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    const tookMs = Date.now() - started;
    expect(r.final).toBeNull();
    expect(tookMs).toBeGreaterThanOrEqual(140); // not before the window ends
    // A hung read would keep it waiting for ever: this bound tells the two apart and leaves room for a loaded
    // machine (how fast the window ends is not what is tested).
    expect(tookMs).toBeLessThan(30_000);
    expect(readSignal?.aborted).toBe(true);
  });

  it('a read that fails because the window closed is not reported as a failed read', async () => {
    const errors: unknown[] = [];
    const r = await trackRequest({
      getStatus: (signal) => new Promise<IntentStatus>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
      onStatus: () => {},
      onError: (e) => errors.push(e),
      pollMs: 10,
      timeoutMs: 50,
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    expect(r.final).toBeNull();
    expect(errors).toEqual([]);
  });
});
