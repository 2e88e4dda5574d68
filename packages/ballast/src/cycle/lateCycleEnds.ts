/**
 * Cycle ends this process could not record because its store connection was lost (docs/ha.md "Partitions"): the
 * cycle ran and ended, only its row stayed open. Rather than leave it for the next run to close as abandoned (a
 * crash, or a leader whose term ended, which it was not), the process records the real end at its next cycle.
 * Kept per store, in memory: a process that dies meanwhile leaves the row to {@link closeAbandoned}, as before.
 */
import type { Logger } from 'pino';
import type { StoreDb } from '../store/db.ts';
import { StoreConnectionError, StoreTransitionError } from '../store/errors.ts';
import { finishCycle } from '../store/cycles.ts';

type CycleEnd = Parameters<typeof finishCycle>[2];

const pending = new WeakMap<StoreDb, Map<number, CycleEnd>>();

/**
 * Records the end of a cycle, or, when the store connection is lost, keeps it for {@link recordLateCycleEnds}.
 *
 * @param finish records the end (e.g. `finishOwnCycle`)
 * @returns true when recorded now, false when kept for later (logged at error, naming the cycle)
 * @throws every error of `finish` but a lost connection
 */
export async function finishOrKeep(
  db: StoreDb,
  cycleId: number,
  end: CycleEnd,
  finish: () => Promise<void>,
  log: Logger,
): Promise<boolean> {
  try {
    await finish();
    return true;
  } catch (error) {
    if (!(error instanceof StoreConnectionError)) throw error;
    let kept = pending.get(db);
    if (!kept) pending.set(db, (kept = new Map()));
    kept.set(cycleId, end);
    log.error({ cycleId, err: error.message }, `the end of cycle ${cycleId} could not be recorded; it is recorded at the next cycle`);
    return false;
  }
}

/**
 * Records the cycle ends kept by {@link finishOrKeep}, oldest first. A row someone else closed meanwhile (the
 * replica that took over) is left as it is.
 *
 * @throws StoreConnectionError when the store is still unreachable (the ends stay kept)
 */
export async function recordLateCycleEnds(db: StoreDb, log: Logger): Promise<void> {
  const kept = pending.get(db);
  if (!kept) return;
  for (const [cycleId, end] of [...kept].sort(([a], [b]) => a - b)) {
    try {
      await finishCycle(db, cycleId, end);
      log.info(
        { cycleId, outcome: end.outcome },
        `the end of cycle ${cycleId} was recorded late (the store was unreachable when it ended)`,
      );
    } catch (error) {
      if (!(error instanceof StoreTransitionError)) throw error;
      log.warn({ cycleId }, `cycle ${cycleId} was closed by another run before its end could be recorded`);
    }
    kept.delete(cycleId);
  }
}
