/**
 * A multi-asset Hyperlane scenario end to end: one run per asset through the real cycle (planner, fee policy,
 * verification, executor, SQLite store) against the simulated chains and Relay service, merged into one log keyed
 * `"ASSET|chain"`.
 */
import { describe, expect, it } from 'vitest';
import { computeKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { readScenarioSet } from '../../../packages/ballast/src/sim/readScenario.ts';
import { runScenarioSet } from '../../../packages/ballast/src/sim/runSet.ts';
import { SIM_AUTOMINE_MS } from '../../../packages/ballast/src/sim/world.ts';

const E18 = 10n ** 18n;
const units = (n: bigint) => (n * E18).toString();

/**
 * USDC in on c1 and c2, USDT out of c2: a cross-asset transfer c1 → c2 drains USDT on c2 out of its weighted band,
 * so Ballast refills it from USDT on c1, which the swap on c2 at 6 s needs (50 out of what would otherwise be 20).
 * USDC's band (±50 % of its total) holds whatever comes in. Same-chain swaps pay at once; a same-asset transfer on
 * c2 is a USDC receipt and payment there.
 */
const doc = {
  name: 'drain-usdt',
  chains: ['c1', 'c2'],
  assets: [
    { symbol: 'USDC', decimals: 18 },
    { symbol: 'USDT', decimals: 18 },
  ],
  transfers: [
    { id: 'x1', timestamp: 0, origin: 'c1', destination: 'c2', amount: units(80n), sourceAsset: 'USDC', destinationAsset: 'USDT' },
    { id: 'sw', timestamp: 100, origin: 'c1', destination: 'c1', amount: units(5n), sourceAsset: 'USDT', destinationAsset: 'USDC' },
    { id: 'x2', timestamp: 6000, origin: 'c2', destination: 'c2', amount: units(1n), sourceAsset: 'USDC', destinationAsset: 'USDC' },
    { id: 'x3', timestamp: 6000, origin: 'c2', destination: 'c2', amount: units(50n), sourceAsset: 'USDC', destinationAsset: 'USDT' },
  ],
  defaultInitialCollateral: units(100n),
  defaultTiming: { userTransferDeliveryDelay: 100, rebalancerPollingFrequency: 1000, userTransferInterval: 100 },
  defaultBridgeConfig: {
    c1: { c2: { deliveryDelay: 500, deliveryJitter: 100, failureRate: 0 } },
    c2: { c1: { deliveryDelay: 500, deliveryJitter: 100, failureRate: 0 } },
  },
  defaultStrategyConfig: {
    type: 'weighted',
    chains: {
      'USDC|c1': { weighted: { weight: '0.5', tolerance: '0.5' } },
      'USDC|c2': { weighted: { weight: '0.5', tolerance: '0.5' } },
      'USDT|c1': { weighted: { weight: '0.5', tolerance: '0.1' } },
      'USDT|c2': { weighted: { weight: '0.5', tolerance: '0.1' } },
    },
  },
};

describe('a multi-asset scenario through the real cycle', () => {
  it('pays every transfer and rebalances the drained asset only', async () => {
    const log = await runScenarioSet(readScenarioSet(doc), { seed: 2 });
    expect(log.cycleErrors).toEqual([]);
    expect(log.chains).toEqual(['USDC|c1', 'USDC|c2', 'USDT|c1', 'USDT|c2']);
    const k = computeKpis(log);
    expect(k.perAssetMetrics!.USDC).toMatchObject({ payments: 2, completedPayments: 2, rebalances: 0, rebalanceVolume: '0' });
    expect(k.perAssetMetrics!.USDT).toMatchObject({ payments: 2, completedPayments: 2 });
    expect(k.perAssetMetrics!.USDT!.rebalances).toBeGreaterThan(0);
    const filled = log.transfers.filter((t) => t.outcome === 'filled');
    expect(filled.map((t) => `${t.origin}>${t.destination}`)).toEqual(filled.map(() => 'USDT|c1>USDT|c2'));
    expect(k).toMatchObject({ totalTransfers: 4, completedTransfers: 4, totalRebalances: filled.length });
    expect(log.storeTransfers.success).toBe(filled.length);
    // each asset's holdings change only by its own traffic and its own rebalances (no fees on these routes)
    expect(log.final['USDC|c1']).toBe((100n + 80n - 5n) * E18);
    expect(log.final['USDC|c2']).toBe((100n + 1n - 1n + 50n) * E18);
    expect(log.final['USDT|c1']! + log.final['USDT|c2']!).toBe((200n + 5n - 80n - 50n) * E18);
    // the refill landed before the second payment was due
    const refill = filled[0]!;
    expect(refill.settledAtMs).toBeLessThan(6000);
    // a same-chain swap is paid at once: mined the moment after it is due (Hyperlane files run on an automining node)
    expect(log.blockMs).toBe(0);
    expect(log.payments.find((p) => p.id === 'x3')!.completedAtMs).toBe(6000 + SIM_AUTOMINE_MS);
  });
});
