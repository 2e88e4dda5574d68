/**
 * Lease timing: defaults (15 s ttl, renew every ttl / 3, margin ttl / 5, takeover ≤ 30 s), range checks that
 * name the field, and the local deadline taken from the send time.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LEASE_TTL_MS,
  leaseDeadlineMs,
  leaseSessionLimits,
  maxPartitionTakeoverMs,
  maxTakeoverMs,
  resolveLeaseTiming,
} from '../../../packages/ballast/src/ha/leaseTiming.ts';
import { LeaseOptionsError } from '../../../packages/ballast/src/ha/errors.ts';

describe('resolveLeaseTiming', () => {
  it('defaults to a 15 s lease renewed every 5 s, stopping 3 s early, taken over within 30 s', () => {
    const t = resolveLeaseTiming();
    expect(t).toEqual({ ttlMs: DEFAULT_LEASE_TTL_MS, renewEveryMs: 5_000, marginMs: 3_000 });
    expect(DEFAULT_LEASE_TTL_MS).toBe(15_000);
    expect(maxTakeoverMs(t)).toBe(20_000);
    expect(maxTakeoverMs(t)).toBeLessThanOrEqual(30_000);
  });

  it('derives renew interval and margin from a configured ttl', () => {
    expect(resolveLeaseTiming({ ttlMs: 3_000 })).toEqual({ ttlMs: 3_000, renewEveryMs: 1_000, marginMs: 600 });
    expect(resolveLeaseTiming({ ttlMs: 3_000, renewEveryMs: 500, marginMs: 0 })).toEqual({ ttlMs: 3_000, renewEveryMs: 500, marginMs: 0 });
  });

  it.each([
    [{ ttlMs: 50 }, 'ttlMs'],
    [{ ttlMs: 1.5e3 + 0.5 }, 'ttlMs'],
    [{ ttlMs: 10_000, marginMs: -1 }, 'marginMs'],
    [{ ttlMs: 10_000, marginMs: 10_000 }, 'marginMs'],
    [{ ttlMs: 10_000, renewEveryMs: 5 }, 'renewEveryMs'],
    [{ ttlMs: 10_000, marginMs: 2_000, renewEveryMs: 8_000 }, 'renewEveryMs'],
  ])('refuses %j naming %s', (input, field) => {
    let caught: unknown;
    try {
      resolveLeaseTiming(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LeaseOptionsError);
    expect((caught as LeaseOptionsError).code).toBe('STORE_LEASE_INVALID');
    expect((caught as LeaseOptionsError).field).toBe(field);
    expect((caught as Error).message.startsWith(`${field}: `)).toBe(true);
  });
});

describe('leaseDeadlineMs', () => {
  it('is the send time plus ttl minus margin, so it falls before the database expiry', () => {
    const t = resolveLeaseTiming({ ttlMs: 15_000 });
    expect(leaseDeadlineMs(1_000, t)).toBe(13_000);
    // The database computes expiry from its now(), which is no earlier than the send time.
    const dbNowAfterSend = 1_000 + 40;
    expect(leaseDeadlineMs(1_000, t)).toBeLessThan(dbNowAfterSend + t.ttlMs);
  });
});

describe('leaseSessionLimits', () => {
  it('derives the server-side limits from the lease: lease statements end before the next attempt, a write-ahead within the margin', () => {
    const t = resolveLeaseTiming({ ttlMs: 15_000 });
    const l = leaseSessionLimits(t);
    expect(l).toEqual({
      leaseStatementMs: 3_750,
      fencedTxMs: 3_000,
      sessionMs: 12_000,
      keepAlive: { idleSec: 5, intervalSec: 1, count: 3, userTimeoutMs: 12_000 },
    });
    expect(l.leaseStatementMs).toBeLessThan(t.renewEveryMs); // cancelled on the server before the client gives up
    expect(maxPartitionTakeoverMs(t)).toBe(23_000);
    expect(maxPartitionTakeoverMs(t)).toBeLessThan(30_000);
  });

  it('never yields 0 (which PostgreSQL reads as "no limit") for the shortest timings', () => {
    const l = leaseSessionLimits(resolveLeaseTiming({ ttlMs: 100, renewEveryMs: 10, marginMs: 0 }));
    expect(l.leaseStatementMs).toBeGreaterThanOrEqual(1);
    expect(l.fencedTxMs).toBe(100);
    expect(l.sessionMs).toBe(100);
    expect(l.keepAlive.idleSec).toBe(1);
  });
});
