/**
 * Small Hyperlane documents the published-comparison tests share: a two-chain emaFlow scenario and a published
 * `-comparison.json` of made-up strategies.
 */
const E18 = 10n ** 18n;
const units = (n: bigint) => (n * E18).toString();

/** Two chains of 100 tokens, an emaFlow strategy; `transfers` of whole tokens c1 → c2 at the given times. */
export function flowDoc(transfers: { at: number; tokens: bigint }[] = [{ at: 1000, tokens: 1n }]) {
  const ema = { emaFlow: { alpha: '0.3', minSamplesForSignal: 3 }, bridgeLockTime: 500 };
  return {
    name: 'duo-flow',
    chains: ['c1', 'c2'],
    transfers: transfers.map((t, i) => ({ id: `t${i}`, timestamp: t.at, origin: 'c1', destination: 'c2', amount: units(t.tokens) })),
    defaultInitialCollateral: units(100n),
    defaultTiming: { userTransferDeliveryDelay: 100, rebalancerPollingFrequency: 1000 },
    defaultBridgeConfig: {
      c1: { c2: { deliveryDelay: 500, deliveryJitter: 100 } },
      c2: { c1: { deliveryDelay: 500, deliveryJitter: 100 } },
    },
    defaultStrategyConfig: { type: 'emaFlow', chains: { c1: ema, c2: ema } },
  };
}

/** A published result of strategies with their completion, volume (tokens) and start (tokens on c1 / c2). */
export function publishedDoc(runs: { name: string; completed: number; volume: bigint; start: [bigint, bigint] }[]) {
  return {
    scenarioName: 'duo-flow',
    results: runs.map((r) => ({
      strategyName: r.name,
      kpis: {
        totalTransfers: 1,
        completedTransfers: r.completed,
        completionRate: r.completed,
        averageLatency: 150,
        totalRebalances: r.volume > 0n ? 1 : 0,
        rebalanceVolume: units(r.volume),
        perChainMetrics: { c1: { initialBalance: units(r.start[0]) }, c2: { initialBalance: units(r.start[1]) } },
      },
    })),
  };
}
