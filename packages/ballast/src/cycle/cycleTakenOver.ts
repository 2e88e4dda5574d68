/**
 * Closing a cycle whose run's leader term ended before it finished (PostgreSQL store with a leader lease,
 * docs/ha.md): the leader that took over has closed the row already (`aborted`, src/cycle/cycleSteps.ts
 * `closeAbandoned`) and reconciles what the cycle left in flight. The old run's own close then finds the row
 * finished; that is the takeover working, not a crash, and {@link CycleTakenOverError} says so.
 */
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { termHasEnded } from '../executor/termEnded.ts';
import { finishCycle } from '../store/cycles.ts';
import { StoreTransitionError } from '../store/errors.ts';
import type { CycleContext } from './context.ts';

/**
 * The cycle was closed by the replica that took over (code `CYCLE_TAKEN_OVER`): the run's leader term ended before
 * the cycle finished, and the new leader closed its row and reconciles its transfers. Nothing is lost; the process
 * goes on as a follower (the daemon logs it at warn). The store's conflict is the `cause`.
 */
export class CycleTakenOverError extends BallastError {
  readonly code = 'CYCLE_TAKEN_OVER' as const;

  /**
   * @param cycleId the cycle the run could not close
   * @param options.cause the store's `STORE_TRANSITION_CONFLICT`
   */
  constructor(
    readonly cycleId: number,
    options?: { cause?: unknown },
  ) {
    super(
      `cycle ${cycleId} was closed by the replica that took over (term ended); that replica reconciles its transfers (nothing lost)`,
      options,
    );
  }
}

/**
 * Records the end of the run's own cycle ({@link finishCycle}), telling a takeover apart from a genuine conflict.
 *
 * @param ctx the store and, with a leader lease, the run-term check (`ctx.leading`)
 * @throws CycleTakenOverError (`CYCLE_TAKEN_OVER`) when the row was already closed and the run's term has ended:
 *   the leader that took over closed it; StoreTransitionError (`STORE_TRANSITION_CONFLICT`) as finishCycle while
 *   the run still leads, or without a lease (another writer closed the row: a genuine conflict)
 */
export async function finishOwnCycle(
  ctx: Pick<CycleContext, 'db' | 'leading'>,
  cycleId: number,
  f: Parameters<typeof finishCycle>[2],
): Promise<void> {
  try {
    await finishCycle(ctx.db, cycleId, f);
  } catch (error) {
    const conflict = error instanceof StoreTransitionError && error.code === 'STORE_TRANSITION_CONFLICT';
    if (conflict && termHasEnded(ctx.leading)) throw new CycleTakenOverError(cycleId, { cause: error });
    throw error;
  }
}
