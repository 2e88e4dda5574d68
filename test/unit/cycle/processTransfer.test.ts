/**
 * processTransfer (src/cycle/processTransfer.ts) on its own, in each mode: `plan` stops after the checks,
 * `monitor` judges the kill switch read-only, `execute` refuses on the kill switch (recording the hit) or signs,
 * sends and tracks the transfer on the in-memory chains and Relay service, with a real SQLite store.
 */
import { describe, expect, it } from 'vitest';
import { processTransfer } from '../../../packages/ballast/src/cycle/processTransfer.ts';
import type { TransferStage } from '../../../packages/ballast/src/cycle/progressEvent.ts';
import { listLimitHits } from '../../../packages/ballast/src/store/limitHits.ts';
import { getTransfer, listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { pipelineSuite, processArgs as args, rowsForPlan, withPolicy } from './pipelineWorld.ts';
// After the world helper: test/model/world.ts and inMemoryRelay.ts import each other, and load in the order the
// model harness (imported by the helper) gives them.
import { ADDR } from '../../model/world.ts';

const suite = pipelineSuite();

const killSwitch = () => withPolicy(suite.env.config, { limits: { ...suite.env.config.policy.limits, killSwitch: true } });

describe('processTransfer', () => {
  it('in `plan` mode ends `quoted` and signs nothing', async () => {
    const w = await suite.world('plan');
    const stages: TransferStage[] = [];
    const attempt = await processTransfer({ ...w.deps, progress: (e) => stages.push(e.stage) }, args(w, 'plan'));
    expect(attempt.outcome, attempt.error).toBe('quoted');
    expect(stages).toEqual(['planned', 'quoted', 'verified', 'checked']);
    expect(await listRecentTransfers(w.db, 10)).toEqual([]);
    expect(w.world.chains.alpha.mempool.size).toBe(0);
  });

  it('in `execute` mode signs, sends and tracks the transfer to its end', async () => {
    const w = await suite.world('execute');
    const before = w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury);
    const attempt = await processTransfer(w.deps, args(w, 'execute'));
    expect(attempt.outcome, attempt.error).toBe('success');
    if (attempt.outcome !== 'success') return;
    // Narrowed: an executed attempt carries its transfer row and origin transactions.
    const row = await getTransfer(w.db, attempt.transferId);
    expect(row?.status).toBe('success');
    expect(attempt.transferStatus).toBe('success');
    expect(attempt.originTxHashes.length).toBeGreaterThan(0);
    expect(row?.txs.map((t) => t.txHash)).toEqual(expect.arrayContaining(attempt.originTxHashes));
    expect(before - w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury)).toBe(w.planned.amountIn);
  });

  it('in `execute` mode with the kill switch engaged records the hit, asks for no quote and signs nothing', async () => {
    const w = await suite.world('kill-switch', { config: killSwitch() });
    const attempt = await processTransfer(w.deps, args(w, 'execute'));
    expect(attempt.outcome).toBe('skipped_limit');
    expect(attempt.request).toBeUndefined();
    expect(attempt.quote).toBeUndefined();
    expect(await rowsForPlan(w, 'quotes')).toBe(0);
    const hits = await listLimitHits(w.db, 10);
    expect(hits.map((h) => [h.planId, h.reason, h.quoteId])).toEqual([[w.planId, 'kill_switch', undefined]]);
    expect(await listRecentTransfers(w.db, 10)).toEqual([]);
  });

  it('in `monitor` mode with the kill switch engaged checks the quote and records no hit', async () => {
    const w = await suite.world('monitor', { config: killSwitch() });
    const attempt = await processTransfer(w.deps, args(w, 'monitor'));
    expect(attempt.outcome).toBe('skipped_limit');
    expect(attempt.error).toMatch(/^kill_switch: /);
    expect(attempt.verdict?.ok).toBe(true);
    expect(await rowsForPlan(w, 'quotes')).toBe(1);
    expect(await listLimitHits(w.db, 10)).toEqual([]);
    expect(await listRecentTransfers(w.db, 10)).toEqual([]);
  });
});
