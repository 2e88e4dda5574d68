/**
 * refreshInFlight (src/cycle/inFlight.ts) on its own: a transfer whose tracking stopped at `deposited` (shutdown)
 * is closed by the next refresh once the in-memory solver has filled it, its ledger entry is written, and it is
 * reported as closed; one the solver has not filled yet stays in flight.
 */
import { describe, expect, it } from 'vitest';
import { refreshInFlight } from '../../../packages/ballast/src/cycle/inFlight.ts';
import { processTransfer } from '../../../packages/ballast/src/cycle/processTransfer.ts';
import { getLedgerEntry } from '../../../packages/ballast/src/store/ledger.ts';
import { getTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { oneNeed, pipelineSuite, processArgs, trackingDeps, type PipelineWorld } from './pipelineWorld.ts';

const suite = pipelineSuite();

/** Executes the world's transfer and stops tracking it (a shutdown) once its deposit is recorded. */
async function depositedTransfer(p: PipelineWorld): Promise<number> {
  const stop = new AbortController();
  const attempt = await processTransfer(
    { ...p.deps, signal: stop.signal, progress: (e) => (e.stage === 'deposited' ? stop.abort() : undefined) },
    processArgs(p, 'execute'),
  );
  expect(attempt.outcome, attempt.error).toBe('in_flight');
  if (attempt.outcome !== 'in_flight') throw new Error('not in flight');
  expect(attempt.transferStatus).toBe('deposited');
  return attempt.transferId;
}

describe('refreshInFlight', () => {
  it('closes a deposited transfer the solver filled, records its ledger entry and reports it closed', async () => {
    const w = await suite.world('refresh-filled');
    const id = await depositedTransfer(w);
    w.world.advance(10 * 60_000); // the solver fills the final deposit
    const refreshed = await refreshInFlight(trackingDeps(w));
    expect(refreshed.inFlight).toEqual([]);
    expect(refreshed.closed.map((r) => [r.id, r.status])).toEqual([[id, 'success']]);
    expect((await getTransfer(w.db, id))?.status).toBe('success');
    expect(await getLedgerEntry(w.db, id)).toBeDefined();
  });

  it('leaves a deposited transfer the solver has not acted on in flight', async () => {
    const w = await suite.world('refresh-unfilled', {
      schedule: oneNeed({ fills: [{ outcome: 'never', payMinimum: false, delayMs: 0, indexDelayMs: 0 }] }),
    });
    const id = await depositedTransfer(w);
    w.world.advance(10 * 60_000);
    const refreshed = await refreshInFlight(trackingDeps(w));
    expect(refreshed.inFlight.map((r) => [r.id, r.status])).toEqual([[id, 'deposited']]);
    expect(refreshed.closed).toEqual([]);
    expect(await getLedgerEntry(w.db, id)).toBeUndefined();
  });
});
