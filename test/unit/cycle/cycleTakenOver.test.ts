/**
 * finishOwnCycle (src/cycle/cycleTakenOver.ts) on both engines: a cycle row closed by the leader that took over
 * (`closeAbandonedCycles`, `term_ended`) is a takeover once the run's term has ended (`CYCLE_TAKEN_OVER`, the row
 * left as that leader wrote it), and stays a genuine conflict while the run still leads or without a lease.
 */
import { beforeEach, expect, it } from 'vitest';
import { CycleTakenOverError, finishOwnCycle } from '../../../packages/ballast/src/cycle/cycleTakenOver.ts';
import { closeAbandonedCycles, getCycle, startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import type { StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { StoreTransitionError } from '../../../packages/ballast/src/store/errors.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';

const end = { outcome: 'ok' as const, finishedAtMs: 200, summary: { planned: 1 } };

describeEachEngine('finishOwnCycle', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  /** A daemon cycle the leader that took over has closed already. */
  async function closedByTheNewLeader(): Promise<number> {
    const id = await startCycle(db, { mode: 'daemon', startedAtMs: 100 });
    expect(await closeAbandonedCycles(db, 150, 'term_ended')).toEqual([id]);
    return id;
  }

  it('after the term ended: CYCLE_TAKEN_OVER naming the cycle, and the row stays as the new leader closed it', async () => {
    const id = await closedByTheNewLeader();
    const error = await finishOwnCycle({ db, leading: () => false }, id, end).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CycleTakenOverError);
    expect(error).toMatchObject({ code: 'CYCLE_TAKEN_OVER', cycleId: id, cause: { code: 'STORE_TRANSITION_CONFLICT' } });
    expect((error as Error).message).toMatch(new RegExp(`^cycle ${id} was closed by the replica that took over \\(term ended\\)`));
    expect(await getCycle(db, id)).toMatchObject({ outcome: 'aborted', finishedAtMs: 150, error: expect.stringMatching(/term ended/) });
  });

  it('while the run still leads, or without a lease, the same conflict stays STORE_TRANSITION_CONFLICT', async () => {
    const id = await closedByTheNewLeader();
    for (const ctx of [{ db, leading: () => true }, { db }]) {
      const error = await finishOwnCycle(ctx, id, end).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreTransitionError);
      expect(error).toMatchObject({ code: 'STORE_TRANSITION_CONFLICT' });
    }
  });

  it('after the term ended, a row nobody closed yet is finished as usual', async () => {
    const id = await startCycle(db, { mode: 'daemon', startedAtMs: 100 });
    await finishOwnCycle({ db, leading: () => false }, id, end);
    expect(await getCycle(db, id)).toMatchObject({ outcome: 'ok', finishedAtMs: 200, error: null });
  });
});
