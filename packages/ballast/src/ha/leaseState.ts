/**
 * The elector's state machine (pure): what one renew outcome or clock reading does to leadership.
 *
 * States: follower, or leader of an epoch until a local deadline (monotonic ms, see leaseTiming.ts). Rules:
 * - any event first checks the deadline: a leader at or past it becomes follower (`lost`, reason `deadline`),
 *   whatever the database may still say, so a process that was paused stops before it does anything;
 * - a successful renew or take-over sent at `sentAtMs` makes us leader until `sentAt + ttl − margin`
 *   (`gained` when we were follower; the same epoch extends the term; another epoch ends the old term and
 *   starts a new one); an answer whose deadline is already past changes nothing;
 * - the row held by someone else ends our term (`lost`, reason `taken`); a failed renew changes nothing but
 *   the deadline check; `stopped` ends the term (reason `stopped`).
 */
import { leaseDeadlineMs, type LeaseTiming } from './leaseTiming.ts';

/** Elector state. `deadlineMs` is on the monotonic clock. */
export type ElectorState = { role: 'follower' } | { role: 'leader'; epoch: bigint; deadlineMs: number };

/** Inputs of {@link stepElector}. `nowMs` is the monotonic clock when the event is applied. */
export type ElectorEvent =
  | { kind: 'held'; epoch: bigint; sentAtMs: number; nowMs: number }
  | { kind: 'notHeld'; owner: string | null; nowMs: number }
  | { kind: 'renewFailed'; nowMs: number }
  | { kind: 'clock'; nowMs: number }
  | { kind: 'stopped'; nowMs: number };

/** Why a term ended. */
export type LossReason = 'deadline' | 'taken' | 'epochChanged' | 'stopped';

/** A change of leadership produced by a step, in order. */
export type LeadershipChange = { kind: 'gained'; epoch: bigint } | { kind: 'lost'; epoch: bigint; reason: LossReason };

/** Result of {@link stepElector}. */
export interface ElectorStep {
  state: ElectorState;
  changes: LeadershipChange[];
}

/** The initial state. */
export const FOLLOWER: ElectorState = { role: 'follower' };

/** True when `state` is a leader whose deadline is still ahead of `nowMs`. */
export function isLeaderAt(state: ElectorState, nowMs: number): boolean {
  return state.role === 'leader' && nowMs < state.deadlineMs;
}

/** The epoch to present when renewing: ours while leader, none (take over only an expired lease) otherwise. */
export function renewEpoch(state: ElectorState): bigint | null {
  return state.role === 'leader' ? state.epoch : null;
}

/**
 * Applies one event.
 * @returns the new state and the leadership changes it caused (none, `lost`, `gained`, or `lost` then `gained`)
 */
export function stepElector(state: ElectorState, event: ElectorEvent, timing: LeaseTiming): ElectorStep {
  const changes: LeadershipChange[] = [];
  let current = state;
  if (current.role === 'leader' && event.nowMs >= current.deadlineMs) {
    changes.push({ kind: 'lost', epoch: current.epoch, reason: 'deadline' });
    current = FOLLOWER;
  }
  switch (event.kind) {
    case 'held': {
      const deadlineMs = leaseDeadlineMs(event.sentAtMs, timing);
      if (deadlineMs <= event.nowMs) break; // the answer came too late to act on
      if (current.role === 'leader' && current.epoch === event.epoch) {
        current = { role: 'leader', epoch: event.epoch, deadlineMs: Math.max(deadlineMs, current.deadlineMs) };
        break;
      }
      if (current.role === 'leader') changes.push({ kind: 'lost', epoch: current.epoch, reason: 'epochChanged' });
      current = { role: 'leader', epoch: event.epoch, deadlineMs };
      changes.push({ kind: 'gained', epoch: event.epoch });
      break;
    }
    case 'notHeld':
    case 'stopped':
      if (current.role === 'leader') {
        changes.push({ kind: 'lost', epoch: current.epoch, reason: event.kind === 'notHeld' ? 'taken' : 'stopped' });
        current = FOLLOWER;
      }
      break;
    case 'renewFailed':
    case 'clock':
      break;
  }
  return { state: current, changes };
}
