/**
 * refreshInFlight (src/cycle/inFlight.ts) on its own: a transfer whose tracking stopped at `deposited` (shutdown)
 * is closed by the next refresh once the in-memory solver has filled it, its ledger entry is written, and it is
 * reported as closed; one the solver has not filled yet stays in flight.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { refreshInFlight, type RefreshDeps } from '../../../src/cycle/inFlight.ts';
import { processTransfer } from '../../../src/cycle/processTransfer.ts';
import { getLedgerEntry } from '../../../src/store/ledger.ts';
import { getTransfer } from '../../../src/store/transfers.ts';
import { createModelEnv, type ModelEnv } from '../../model/harness.ts';
import { oneNeed, pipelineWorld, type PipelineWorld } from './pipelineWorld.ts';

let env: ModelEnv;
let w: PipelineWorld | undefined;

beforeAll(() => {
  env = createModelEnv();
});
afterEach(() => w?.close());
afterAll(() => env.close());

/** Just what refreshInFlight declares, taken from the world's parts. */
function refreshDeps(p: PipelineWorld): RefreshDeps {
  const { config, db, relay, chains, metrics, logger, now } = p.deps;
  return { config, db, relay, chains, metrics, logger, now };
}

/** Executes the world's transfer and stops tracking it (a shutdown) once its deposit is recorded. */
async function depositedTransfer(p: PipelineWorld): Promise<number> {
  const stop = new AbortController();
  const attempt = await processTransfer(
    { ...p.deps, signal: stop.signal, progress: (e) => (e.stage === 'deposited' ? stop.abort() : undefined) },
    { cycleId: p.cycleId, planId: p.planId, planned: p.planned, chainsDoc: p.chainsDoc, mode: 'execute' },
  );
  expect(attempt.outcome, attempt.error).toBe('in_flight');
  if (attempt.outcome !== 'in_flight') throw new Error('not in flight');
  expect(attempt.transferStatus).toBe('deposited');
  return attempt.transferId;
}

describe('refreshInFlight', () => {
  it('closes a deposited transfer the solver filled, records its ledger entry and reports it closed', async () => {
    w = await pipelineWorld(env, 'refresh-filled');
    const id = await depositedTransfer(w);
    w.world.advance(10 * 60_000); // the solver fills the final deposit
    const refreshed = await refreshInFlight(refreshDeps(w));
    expect(refreshed.inFlight).toEqual([]);
    expect(refreshed.closed.map((r) => [r.id, r.status])).toEqual([[id, 'success']]);
    expect((await getTransfer(w.db, id))?.status).toBe('success');
    expect(await getLedgerEntry(w.db, id)).toBeDefined();
  });

  it('leaves a deposited transfer the solver has not acted on in flight', async () => {
    w = await pipelineWorld(env, 'refresh-unfilled', {
      schedule: oneNeed({ fills: [{ outcome: 'never', payMinimum: false, delayMs: 0, indexDelayMs: 0 }] }),
    });
    const id = await depositedTransfer(w);
    w.world.advance(10 * 60_000);
    const refreshed = await refreshInFlight(refreshDeps(w));
    expect(refreshed.inFlight.map((r) => [r.id, r.status])).toEqual([[id, 'deposited']]);
    expect(refreshed.closed).toEqual([]);
    expect(await getLedgerEntry(w.db, id)).toBeUndefined();
  });
});
