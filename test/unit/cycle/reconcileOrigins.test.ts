/**
 * reconcileOrigins (src/cycle/reconcile.ts) on its own: a process dies right after the node accepted the deposit
 * (before the store says `sent`), leaving the transfer `broadcast`; once the deposit is mined on the in-memory
 * chain, reconciliation finds it and moves the transfer to `deposited`. A deposit whose send was lost is sent again
 * only by a replica that leads. A transfer that is not `prepared` or `broadcast` is left alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { armCrashPoints, type CrashPoint } from '../../../packages/ballast/src/core/crashPoints.ts';
import { processTransfer } from '../../../packages/ballast/src/cycle/processTransfer.ts';
import { reconcileOrigins } from '../../../packages/ballast/src/cycle/reconcile.ts';
import { getTransfer, listInFlightTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { oneNeed, pipelineSuite, processArgs, trackingDeps, type PipelineWorld } from './pipelineWorld.ts';

const suite = pipelineSuite();
afterEach(() => armCrashPoints(null)); // runs before the suite closes the world

class Died extends Error {}

/** Executes the world's transfer; execution stops with an error at the `hit`-th pass of `point`. */
async function executeUntil(p: PipelineWorld, point: CrashPoint, hit: number) {
  armCrashPoints((at, n) => {
    if (at === point && n === hit) throw new Died(`died at ${at}#${n}`);
  });
  const attempt = await processTransfer(p.deps, processArgs(p, 'execute'));
  armCrashPoints(null);
  return attempt;
}

describe('reconcileOrigins', () => {
  it('moves a transfer left `broadcast` to `deposited` once its deposit is mined', async () => {
    const w = await suite.world('reconcile-mined');
    const attempt = await executeUntil(w, 'tx:sent', 2); // the approval, then the deposit
    expect(attempt.outcome).toBe('origin_failed');
    expect(attempt.error).toMatch(/^execution error: .*died at tx:sent#2/);
    expect(attempt.transferId).toBeUndefined();
    const [left, ...others] = await listInFlightTransfers(w.db);
    expect(others).toEqual([]);
    expect(left?.status).toBe('broadcast');
    expect(left?.txs.map((t) => t.status)).toEqual(['confirmed', 'signed']);
    w.world.advance(20_000); // the node mines what it accepted
    await reconcileOrigins(trackingDeps(w), [left!]);
    expect((await getTransfer(w.db, left!.id))?.status).toBe('deposited');
  });

  it('sends a lost deposit again only while this replica leads', async () => {
    // The deposit's send is lost (the node never took it): the transfer stays in flight, unknown to the node.
    const w = await suite.world('reconcile-leading', { schedule: oneNeed({ sendFaults: [{ at: 1, fault: 'lost' }] }) });
    await processTransfer(w.deps, processArgs(w, 'execute'));
    const [left] = await listInFlightTransfers(w.db);
    expect(left?.txs.at(-1)?.status).toBe('signed');
    const sends = w.world.counters.sends;
    w.world.advance(20_000);
    await reconcileOrigins({ ...trackingDeps(w), leading: () => false }, [left!]);
    expect(w.world.counters.sends).toBe(sends); // a follower sends nothing
    expect((await getTransfer(w.db, left!.id))?.status).toBe(left!.status);
    await reconcileOrigins({ ...trackingDeps(w), leading: () => true }, [left!]);
    expect(w.world.counters.sends).toBe(sends + 1); // the leader sends the recorded bytes again
    w.world.advance(20_000);
    await reconcileOrigins(trackingDeps(w), [(await getTransfer(w.db, left!.id))!]);
    expect((await getTransfer(w.db, left!.id))?.status).toBe('deposited');
  });

  it('leaves a transfer that is already `deposited` as it is', async () => {
    const w = await suite.world('reconcile-deposited');
    await executeUntil(w, 'transfer:deposited', 1);
    const [row] = await listInFlightTransfers(w.db);
    expect(row?.status).toBe('deposited');
    w.world.advance(20_000);
    await reconcileOrigins(trackingDeps(w), [row!]);
    expect(await getTransfer(w.db, row!.id)).toEqual(row);
  });
});
