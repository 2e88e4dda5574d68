/**
 * The elector's state machine: a term starts on a held answer and lasts until sentAt + ttl − margin; the
 * deadline is checked before anything else (a paused leader waking up is not leader, whatever it receives
 * next); taken over, epoch changed, stopped.
 */
import { describe, expect, it } from 'vitest';
import { FOLLOWER, isLeaderAt, renewEpoch, stepElector, type ElectorState } from '../../../packages/ballast/src/ha/leaseState.ts';
import { resolveLeaseTiming } from '../../../packages/ballast/src/ha/leaseTiming.ts';

const timing = resolveLeaseTiming({ ttlMs: 15_000, renewEveryMs: 5_000, marginMs: 3_000 });

describe('stepElector', () => {
  it('gains on a held answer with the deadline from the send time, and renews at the same epoch', () => {
    const a = stepElector(FOLLOWER, { kind: 'held', epoch: 4n, sentAtMs: 100, nowMs: 150 }, timing);
    expect(a.changes).toEqual([{ kind: 'gained', epoch: 4n }]);
    expect(a.state).toEqual({ role: 'leader', epoch: 4n, deadlineMs: 12_100 });
    expect(renewEpoch(a.state)).toBe(4n);
    expect(isLeaderAt(a.state, 12_099)).toBe(true);
    expect(isLeaderAt(a.state, 12_100)).toBe(false);

    const b = stepElector(a.state, { kind: 'held', epoch: 4n, sentAtMs: 5_100, nowMs: 5_120 }, timing);
    expect(b.changes).toEqual([]);
    expect(b.state).toEqual({ role: 'leader', epoch: 4n, deadlineMs: 17_100 });
  });

  it('steps down at the deadline even when the database is unreachable', () => {
    const leader: ElectorState = { role: 'leader', epoch: 2n, deadlineMs: 12_000 };
    expect(stepElector(leader, { kind: 'renewFailed', nowMs: 11_999 }, timing)).toEqual({ state: leader, changes: [] });
    const down = stepElector(leader, { kind: 'clock', nowMs: 12_000 }, timing);
    expect(down.changes).toEqual([{ kind: 'lost', epoch: 2n, reason: 'deadline' }]);
    expect(down.state).toEqual(FOLLOWER);
    expect(renewEpoch(down.state)).toBeNull();
  });

  it('a paused leader waking up past its deadline loses first, and a late held answer does not restore it', () => {
    const leader: ElectorState = { role: 'leader', epoch: 7n, deadlineMs: 12_000 };
    // The renew was sent at 5 000 (deadline 17 000) but the process was paused until 30 000.
    const woke = stepElector(leader, { kind: 'held', epoch: 7n, sentAtMs: 5_000, nowMs: 30_000 }, timing);
    expect(woke.changes).toEqual([{ kind: 'lost', epoch: 7n, reason: 'deadline' }]);
    expect(woke.state).toEqual(FOLLOWER);
  });

  it('loses when another replica holds the lease, and restarts the term on a new epoch', () => {
    const leader: ElectorState = { role: 'leader', epoch: 3n, deadlineMs: 12_000 };
    const taken = stepElector(leader, { kind: 'notHeld', owner: 'other', nowMs: 6_000 }, timing);
    expect(taken.changes).toEqual([{ kind: 'lost', epoch: 3n, reason: 'taken' }]);
    expect(taken.state).toEqual(FOLLOWER);

    const bumped = stepElector(leader, { kind: 'held', epoch: 4n, sentAtMs: 6_000, nowMs: 6_010 }, timing);
    expect(bumped.changes).toEqual([
      { kind: 'lost', epoch: 3n, reason: 'epochChanged' },
      { kind: 'gained', epoch: 4n },
    ]);
    expect(bumped.state).toEqual({ role: 'leader', epoch: 4n, deadlineMs: 18_000 });
  });

  it('a follower stays follower on refusals, failures and clock ticks; stop ends a term', () => {
    for (const ev of [
      { kind: 'notHeld', owner: 'x', nowMs: 1 } as const,
      { kind: 'renewFailed', nowMs: 1 } as const,
      { kind: 'clock', nowMs: 1 } as const,
      { kind: 'stopped', nowMs: 1 } as const,
    ]) {
      expect(stepElector(FOLLOWER, ev, timing)).toEqual({ state: FOLLOWER, changes: [] });
    }
    const leader: ElectorState = { role: 'leader', epoch: 9n, deadlineMs: 12_000 };
    expect(stepElector(leader, { kind: 'stopped', nowMs: 100 }, timing).changes).toEqual([{ kind: 'lost', epoch: 9n, reason: 'stopped' }]);
  });
});
