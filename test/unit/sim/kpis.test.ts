import { describe, expect, it } from 'vitest';
import { computeKpis, nearestRank, peakInFlight, timeBelow } from '../../../packages/ballast/src/sim/kpis.ts';
import type { SimLog } from '../../../packages/ballast/src/sim/run.ts';

/** A hand-made log: two chains, token with 2 decimals at 2 USD, four payments (one failed), two transfers. */
function log(): SimLog {
  return {
    scenario: 'hand-made',
    seed: 7,
    chains: ['a', 'b'],
    token: { symbol: 'TOK', decimals: 2, priceUsd: '2' },
    pollMs: 1000,
    blockMs: 250,
    mins: { a: 500n, b: null },
    bands: { a: { min: 500n, target: 800n, max: 1500n }, b: null },
    initial: { a: 1000n, b: 1000n },
    final: { a: 600n, b: 1200n },
    payments: [
      { id: 'p1', chain: 'a', amount: 100n, requestedAtMs: 0, dueMs: 100, completedAtMs: 300 },
      { id: 'p2', chain: 'a', amount: 200n, requestedAtMs: 1000, dueMs: 1100, completedAtMs: 2000 },
      { id: 'p3', chain: 'b', amount: 300n, requestedAtMs: 2000, dueMs: 2100, completedAtMs: 2500 },
      { id: 'p4', chain: 'b', amount: 400n, requestedAtMs: 3000, dueMs: 3100, completedAtMs: null },
    ],
    transfers: [
      { origin: 'b', destination: 'a', amountIn: 250n, amountOut: 245n, fee: 5n, quotedAtMs: 1000, settledAtMs: 3000, outcome: 'filled' },
      { origin: 'b', destination: 'a', amountIn: 150n, amountOut: 149n, fee: 1n, quotedAtMs: 2000, settledAtMs: 4000, outcome: 'filled' },
      {
        origin: 'a',
        destination: 'b',
        amountIn: 999n,
        amountOut: 0n,
        fee: 0n,
        quotedAtMs: 5000,
        settledAtMs: null,
        outcome: 'notDeposited',
      },
    ],
    samples: [
      { atMs: 0, balances: { a: 1000n, b: 1000n } },
      { atMs: 1000, balances: { a: 400n, b: 1000n } },
      { atMs: 2500, balances: { a: 499n, b: 900n } },
      { atMs: 4000, balances: { a: 700n, b: 700n } },
    ],
    cycles: 4,
    cycleErrors: [],
    durationMs: 5000,
    storeTransfers: { success: 2 },
  };
}

describe('simulation KPIs', () => {
  it('uses nearest-rank percentiles: sorted[ceil(p/100·n) − 1], 0 for none', () => {
    expect(nearestRank([], 50)).toBe(0);
    expect(nearestRank([10, 20, 30, 40], 50)).toBe(20); // ceil(2) − 1 = 1
    expect(nearestRank([10, 20, 30, 40], 95)).toBe(40); // ceil(3.8) − 1 = 3
    expect(nearestRank([10, 20, 30], 50)).toBe(20); // ceil(1.5) − 1 = 1
  });

  it('computes the scenario figures from the event log', () => {
    const k = computeKpis(log());
    // latencies of completed payments: 300, 1000, 500 → sorted 300, 500, 1000
    expect(k).toMatchObject({
      totalTransfers: 4,
      completedTransfers: 3,
      failedTransfers: 1,
      completionRate: 0.75,
      averageLatency: 600,
      p50Latency: 500,
      p95Latency: 1000,
      p99Latency: 1000,
      totalRebalances: 2,
      rebalanceVolume: '400',
      transfersMade: 2,
      feesPaid: '6',
      // 6 base units = 0.06 TOK at 2 USD
      feesPaidUsd: '0.12',
      // 6 / 400 = 150 bps
      feesBps: 150,
      paymentVolume: '1000',
      efficiency: 0.4,
      // both filled transfers are open between 2000 and 3000
      peakCapitalInFlight: '400',
    });
  });

  it('computes per-holding figures, time below min only for a band', () => {
    const k = computeKpis(log());
    expect(k.perChainMetrics.a).toMatchObject({
      initialBalance: '1000',
      finalBalance: '600',
      payments: 2,
      completedPayments: 2,
      completionRate: 1,
      p50Latency: 300,
      p95Latency: 1000,
      rebalancesIn: 2,
      rebalancesOut: 0,
      rebalanceVolumeIn: '394',
      rebalanceVolumeOut: '0',
      // below 500 from 1000 to 4000
      timeBelowMinMs: 3000,
    });
    expect(k.perChainMetrics.b).toMatchObject({
      payments: 2,
      completedPayments: 1,
      completionRate: 0.5,
      rebalancesOut: 2,
      rebalanceVolumeOut: '400',
      timeBelowMinMs: null,
    });
  });

  it('counts time below min up to the end of the run for the last sample', () => {
    const samples = [
      { atMs: 0, balances: { a: 10n } },
      { atMs: 1000, balances: { a: 1n } },
    ];
    expect(timeBelow(samples, 'a', 5n, 4000)).toBe(3000);
    expect(timeBelow(samples, 'a', 11n, 4000)).toBe(4000);
  });

  it('leaves transfers that never settled open to the end for the capital in flight', () => {
    const open = { origin: 'a', destination: 'b', amountOut: 0n, fee: 0n, settledAtMs: null, outcome: 'inFlight' as const };
    expect(
      peakInFlight([
        { ...open, amountIn: 5n, quotedAtMs: 0 },
        { ...open, amountIn: 7n, quotedAtMs: 10 },
      ]),
    ).toBe(12n);
  });

  it('reports a run without payments as complete with zero latencies', () => {
    const k = computeKpis({ ...log(), payments: [] });
    expect(k).toMatchObject({ totalTransfers: 0, completionRate: 1, p50Latency: 0, averageLatency: 0, efficiency: 0 });
  });
});
