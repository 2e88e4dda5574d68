/**
 * The in-process status feed and the tracker awaiting it (src/webhooks/statusFeed.ts,
 * src/executor/trackRequest.ts `pushed`): a pushed status ends the poll wait and is handled like a read,
 * through the same ownership check; without pushes the tracker polls as before.
 */
import { describe, expect, it } from 'vitest';
import { trackRequest } from '../../../packages/ballast/src/executor/trackRequest.ts';
import type { IntentStatus } from '../../../packages/protocol/src/relay/schemas.ts';
import { StatusFeed } from '../../../packages/ballast/src/webhooks/statusFeed.ts';

const OURS = '0xdeposit';
const status = (s: string, inTxHashes = [OURS]): IntentStatus => ({ status: s, inTxHashes, txHashes: s === 'success' ? ['0xfill'] : [] });

/** A fake clock whose sleep advances time instantly. */
function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

describe('StatusFeed', () => {
  it('hands a pushed status to the subscriptions of that request only, case-insensitively', async () => {
    const feed = new StatusFeed();
    const a = feed.subscribe('0xAB');
    const b = feed.subscribe('0xcd');
    expect(feed.publish('0xab', status('pending'))).toBe(1);
    expect(await a.next(60_000)).toMatchObject({ status: 'pending' });
    expect(await b.next(0)).toBeNull();
    a.close();
    b.close();
    expect(feed.hasSubscriber('0xab')).toBe(false);
    expect(feed.publish('0xab', status('success'))).toBe(0);
  });

  it('wakes a waiting subscription at once, and a closed or aborted one resolves null', async () => {
    const feed = new StatusFeed();
    const sub = feed.subscribe('0x01');
    const waiting = sub.next(60_000);
    feed.publish('0x01', status('success'));
    expect(await waiting).toMatchObject({ status: 'success' });
    const abort = new AbortController();
    const aborted = sub.next(60_000, abort.signal);
    abort.abort();
    expect(await aborted).toBeNull();
    const closing = sub.next(60_000);
    sub.close();
    expect(await closing).toBeNull();
  });
});

describe('trackRequest with pushed statuses', () => {
  it('ends on a pushed terminal status without waiting for the next poll', async () => {
    const c = clock();
    const feed = new StatusFeed();
    const sub = feed.subscribe('0xreq');
    let reads = 0;
    const seen: [string, string][] = [];
    const tracking = trackRequest({
      getStatus: async () => {
        reads++;
        queueMicrotask(() => feed.publish('0xreq', status('success')));
        return status('pending');
      },
      onStatus: (s, source) => seen.push([s.status, source]),
      isOurs: (s) => s.inTxHashes.includes(OURS),
      pollMs: 3_600_000,
      timeoutMs: 86_400_000,
      now: c.now,
      sleep: c.sleep,
      pushed: sub,
    });
    const result = await tracking;
    sub.close();
    expect(result.final).toBe('success');
    expect(result.last?.txHashes).toEqual(['0xfill']);
    expect(reads).toBe(1);
    expect(seen).toEqual([
      ['pending', 'poll'],
      ['success', 'push'],
    ]);
  });

  it('does not accept a pushed terminal status about another deposit, and goes on polling', async () => {
    const c = clock();
    const feed = new StatusFeed();
    const sub = feed.subscribe('0xreq');
    const answers = [status('pending'), status('success')];
    let reads = 0;
    const foreign: string[] = [];
    feed.publish('0xreq', status('refund', ['0xsomeone-else']));
    const result = await trackRequest({
      getStatus: async () => answers[Math.min(reads++, answers.length - 1)]!,
      onStatus: () => {},
      isOurs: (s) => s.inTxHashes.includes(OURS),
      onForeignFinal: (s) => foreign.push(s.status),
      pollMs: 0,
      timeoutMs: 60_000,
      now: c.now,
      sleep: c.sleep,
      pushed: sub,
    });
    sub.close();
    expect(foreign).toEqual(['refund']);
    expect(result.final).toBe('success');
    expect(reads).toBe(2);
  });
});
