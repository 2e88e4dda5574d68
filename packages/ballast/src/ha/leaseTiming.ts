/**
 * Leader lease timing (pure): option defaults and checks, and the local deadline arithmetic (docs/ha.md
 * "Clocks and margins").
 *
 * The lease expires on the database clock at `now_db + ttl`, where `now_db` is read by the renew statement.
 * The leader keeps its own deadline on the monotonic clock, taken BEFORE the renew is sent:
 * `deadline = sentAt + ttl − margin`. Since the statement runs after it was sent, `sentAt` is no later than
 * `now_db` (in real time), so the local deadline falls at least `margin` before the database expiry; the
 * margin absorbs clock-rate differences between the two machines and the time to stop acting.
 */
import { LeaseOptionsError } from './errors.ts';

/** Default lease lifetime without renewal, ms. */
export const DEFAULT_LEASE_TTL_MS = 15_000;

/** Lease timing options as configured (all ms, integers). */
export interface LeaseTimingInput {
  /** Lifetime of a lease without renewal, ms; default 15 000; 100 to 3 600 000. */
  ttlMs?: number;
  /** Interval between renew (leader) or takeover (follower) attempts, ms; default ttl / 3. */
  renewEveryMs?: number;
  /** How long before the lease's expiry the leader stops acting, ms; default ttl / 5. */
  marginMs?: number;
}

/** Resolved lease timing, ms. Invariant: 0 ≤ margin, 0 < renewEvery < ttl − margin. */
export interface LeaseTiming {
  ttlMs: number;
  renewEveryMs: number;
  marginMs: number;
}

function int(field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new LeaseOptionsError(field, `must be an integer number of milliseconds from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/**
 * Applies the defaults and checks the ranges.
 * @throws LeaseOptionsError (`STORE_LEASE_INVALID`) naming the field: not an integer, out of range, or a renew
 *   interval that leaves no renewal before the local deadline (renewEveryMs must be below ttlMs − marginMs).
 */
export function resolveLeaseTiming(input: LeaseTimingInput = {}): LeaseTiming {
  const ttlMs = int('ttlMs', input.ttlMs ?? DEFAULT_LEASE_TTL_MS, 100, 3_600_000);
  const marginMs = int('marginMs', input.marginMs ?? Math.floor(ttlMs / 5), 0, ttlMs - 1);
  const renewEveryMs = int('renewEveryMs', input.renewEveryMs ?? Math.floor(ttlMs / 3), 10, ttlMs);
  if (renewEveryMs >= ttlMs - marginMs) {
    throw new LeaseOptionsError(
      'renewEveryMs',
      `must be below ttlMs − marginMs (${ttlMs - marginMs}) so the leader renews before its local deadline; ` +
        `got ${renewEveryMs} (default ttlMs / 3)`,
    );
  }
  return { ttlMs, renewEveryMs, marginMs };
}

/**
 * The leader's local deadline for a renew sent at `sentAtMs` (monotonic ms): `sentAt + ttl − margin`.
 * Past it without a later successful renew, the leader is not leader any more.
 */
export function leaseDeadlineMs(sentAtMs: number, timing: LeaseTiming): number {
  return sentAtMs + timing.ttlMs - timing.marginMs;
}

/**
 * Longest time from the leader's last successful renew to a follower holding the lease, ms, when the
 * followers run: the lease expires `ttl` after that renew and a follower tries every `renewEvery`
 * (plus one round trip, not counted). 20 s with the defaults.
 */
export function maxTakeoverMs(timing: LeaseTiming): number {
  return timing.ttlMs + timing.renewEveryMs;
}

/**
 * Server-side limits of the replicas' PostgreSQL sessions, derived from the lease (docs/ha.md "Partitions"), so a
 * replica cut off from the database cannot hold a lock past the point where another must take over:
 *
 * - `leaseStatementMs` (lease statements: `statement_timeout` and `lock_timeout`): ¾ of the renew interval, below
 *   the client's own deadline (the renew interval), so the server cancels a lease statement before the elector
 *   sends the next: never more than one per replica waits on the server;
 * - `fencedTxMs` (a write-ahead after its fencing check: statement, lock and idle-in-transaction limits, `SET
 *   LOCAL`): the margin, at least 100 ms; the lease row lock a cut-off leader holds is released by then;
 * - `sessionMs` (every store session: `idle_in_transaction_session_timeout` and `lock_timeout`): ttl − margin,
 *   the longest a leader may act without renewing;
 * - `keepAlive`: probes from the renew interval (≥ 1 s) every second, 3 unanswered end the session; data left
 *   unacknowledged `sessionMs` ends it too.
 *
 * A takeover after a leader is cut off inside a write-ahead therefore comes at most
 * `ttl + fencedTxMs + renewEvery` (plus a round trip) after that leader's last renew ({@link maxPartitionTakeoverMs}).
 */
export interface LeaseSessionLimits {
  leaseStatementMs: number;
  fencedTxMs: number;
  sessionMs: number;
  keepAlive: { idleSec: number; intervalSec: number; count: number; userTimeoutMs: number };
}

/** See {@link LeaseSessionLimits}. */
export function leaseSessionLimits(t: LeaseTiming): LeaseSessionLimits {
  const sessionMs = t.ttlMs - t.marginMs;
  return {
    leaseStatementMs: Math.max(1, Math.floor((t.renewEveryMs * 3) / 4)),
    fencedTxMs: Math.max(100, t.marginMs),
    sessionMs,
    keepAlive: { idleSec: Math.max(1, Math.round(t.renewEveryMs / 1000)), intervalSec: 1, count: 3, userTimeoutMs: sessionMs },
  };
}

/**
 * Longest time from the leader's last successful renew to a follower holding the lease when the leader was cut
 * off from the database in the middle of a write-ahead, ms: the lease expires `ttl` after that renew, the server
 * ends the cut-off transaction (and its lock on the lease row) at most `fencedTxMs` after its last statement,
 * and a follower tries every `renewEvery` (plus one round trip, not counted). 23 s with the defaults.
 */
export function maxPartitionTakeoverMs(timing: LeaseTiming): number {
  return timing.ttlMs + leaseSessionLimits(timing).fencedTxMs + timing.renewEveryMs;
}
