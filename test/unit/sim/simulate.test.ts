/**
 * `ballast simulate` end to end: small scenarios run through the real cycle (planner, fee policy, verification,
 * executor, SQLite store) against the simulated chains and Relay service.
 */
import { describe, expect, it } from 'vitest';
import { readBallastScenario } from '../../../packages/ballast/src/sim/ballastScenario.ts';
import { computeKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { runScenario } from '../../../packages/ballast/src/sim/run.ts';
import { SIM_BLOCK_MS } from '../../../packages/ballast/src/sim/world.ts';
import { payRefillDoc } from './payRefill.ts';

const USDC = 1_000_000n;

/** alpha pays 700 USDC at 1 s; beta holds a surplus; alpha's band decides whether Ballast refills it. */
function scenario(alphaMin: string) {
  return readBallastScenario(payRefillDoc(alphaMin));
}

describe('ballast simulate through the real cycle', () => {
  it('pays, refills the short holding from the surplus, and records the transfer in the store', async () => {
    const log = await runScenario(scenario('500'), { seed: 3 });
    expect(log.cycleErrors).toEqual([]);
    expect(log.payments).toHaveLength(1);
    expect(log.payments[0]!.completedAtMs).not.toBeNull();
    const filled = log.transfers.filter((t) => t.outcome === 'filled');
    expect(filled).toHaveLength(1);
    const t = filled[0]!;
    expect([t.origin, t.destination]).toEqual(['beta', 'alpha']);
    // 5 bps + 0.10 USD taken from the input
    expect(t.fee).toBe((t.amountIn * 5n) / 10_000n + USDC / 10n);
    expect(log.final.alpha).toBe(300n * USDC + t.amountOut);
    expect(log.final.beta).toBe(3050n * USDC - t.amountIn);
    expect(log.final.alpha).toBeGreaterThanOrEqual(500n * USDC);
    expect(log.storeTransfers).toEqual({ success: 1 });
    const k = computeKpis(log);
    expect(k).toMatchObject({ completionRate: 1, totalRebalances: 1, rebalanceVolume: t.amountIn.toString() });
    expect(k.perChainMetrics.alpha!.timeBelowMinMs).toBeGreaterThan(0);
  });

  it('drives the real planner: a band that is not breached moves nothing; a payment completes when mined', async () => {
    const log = await runScenario(scenario('200'), { seed: 3 });
    const k = computeKpis(log);
    expect(k).toMatchObject({ completionRate: 1, totalRebalances: 0, transfersMade: 0 });
    // due at 1 s, sent then, mined in the next block (every 250 ms): its wait runs to the block, as Hyperlane counts it
    expect(log.payments[0]).toMatchObject({ dueMs: 1000, completedAtMs: 1000 + SIM_BLOCK_MS });
    expect(k.averageLatency).toBe(SIM_BLOCK_MS);
    expect(log.final).toEqual({ alpha: 300n * USDC, beta: 3050n * USDC });
    expect(log.storeTransfers).toEqual({});
  });

  it('is deterministic for a seed', async () => {
    const a = computeKpis(await runScenario(scenario('500'), { seed: 9 }));
    const b = computeKpis(await runScenario(scenario('500'), { seed: 9 }));
    expect(b).toEqual(a);
  });

  it('keeps a payment waiting while its holding is short, and fails it after the drain window', async () => {
    const s = readBallastScenario({
      name: 'short',
      token: { symbol: 'USDC', decimals: 6 },
      chains: {
        alpha: { initial: '100', holding: { min: '50', target: '100', max: '200' } },
        beta: { initial: '100', holding: { min: '50', target: '100', max: '200' } },
      },
      traffic: [{ at: 0, chain: 'alpha', payment: '500' }],
      drainMs: 3000,
    });
    const log = await runScenario(s, { seed: 1 });
    expect(log.payments[0]!.completedAtMs).toBeNull();
    expect(log.final.alpha).toBe(100n * USDC);
    expect(computeKpis(log)).toMatchObject({ completionRate: 0, failedTransfers: 1 });
  });

  it('drives the flow-aware mode: a steady drain is pre-funded, where bands alone leave a payment stuck above min', async () => {
    // alpha pays 6 USDC every 500 ms for 10 s (120 in all) from 100, beta receives the same; alpha's floor is 1.
    const traffic = Array.from({ length: 20 }, (_, i) => [
      { at: 500 * i, chain: 'alpha', payment: '6' },
      { at: 500 * i, chain: 'beta', receipt: '6' },
    ]).flat();
    const drain = (strategy?: object) =>
      readBallastScenario({
        name: strategy ? 'drain-flow' : 'drain-bands',
        token: { symbol: 'USDC', decimals: 6 },
        chains: {
          alpha: { initial: '100', holding: { min: '1', target: '100', max: '100' } },
          beta: { initial: '100', holding: { min: '1', target: '100', max: '100' } },
        },
        traffic,
        routes: { default: { delayMs: 500, jitterMs: 100 } },
        drainMs: 5000,
        ...(strategy ? { strategy } : {}),
      });
    const bands = computeKpis(await runScenario(drain(), { seed: 2 }));
    // alpha stops at 4 USDC: above its min of 1, below the next payment of 6; nothing refills it
    expect(bands.totalRebalances).toBe(0);
    expect(bands.completionRate).toBeLessThan(1);
    expect(BigInt(bands.perChainMetrics.alpha!.finalBalance)).toBe(4n * USDC);
    const flow = computeKpis(await runScenario(drain({ kind: 'flow', halfLifeSec: 2, horizonSec: 2, minSamples: 2 }), { seed: 2 }));
    expect(flow.completionRate).toBe(1);
    expect(flow.totalRebalances).toBeGreaterThan(0);
    expect(flow.perChainMetrics.alpha!.rebalancesIn).toBe(flow.totalRebalances);
  });
});
