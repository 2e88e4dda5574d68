/**
 * Multi-asset Hyperlane scenarios: read into one single-asset scenario per asset, and the per-asset run logs
 * merged into one log keyed `"ASSET|chain"` whose KPIs report per holding and per asset.
 */
import { describe, expect, it } from 'vitest';
import { computeKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { mergeAssetLogs, readMultiAssetScenarios } from '../../../packages/ballast/src/sim/multiAsset.ts';
import { readScenarioSet } from '../../../packages/ballast/src/sim/readScenario.ts';
import type { SimLog } from '../../../packages/ballast/src/sim/run.ts';

const E18 = 10n ** 18n;
const units = (n: bigint) => (n * E18).toString();

/** Two chains, USDC and USDT: a cross-asset transfer, a same-chain swap, a same-asset transfer. */
function doc() {
  const weighted = (weight: string, tolerance: string) => ({ weighted: { weight, tolerance }, bridgeLockTime: 500 });
  return {
    name: 'duo',
    chains: ['c1', 'c2'],
    assets: [
      { symbol: 'USDC', decimals: 18 },
      { symbol: 'USDT', decimals: 18 },
    ],
    walletInventory: { USDC: units(100n), USDT: '0' },
    transfers: [
      { id: 'x', timestamp: 1000, origin: 'c1', destination: 'c2', amount: units(7n), sourceAsset: 'USDC', destinationAsset: 'USDT' },
      { id: 's', timestamp: 200, origin: 'c2', destination: 'c2', amount: units(3n), sourceAsset: 'USDT', destinationAsset: 'USDC' },
      { id: 'u', timestamp: 500, origin: 'c2', destination: 'c1', amount: units(2n), sourceAsset: 'USDT', destinationAsset: 'USDT' },
    ],
    defaultInitialCollateral: units(50n),
    initialImbalance: { 'USDT|c1': units(10n) },
    defaultTiming: { userTransferDeliveryDelay: 100, rebalancerPollingFrequency: 1000, userTransferInterval: 100 },
    defaultBridgeConfig: { c1: { c2: { deliveryDelay: 700, deliveryJitter: 0, failureRate: 0 } } },
    defaultStrategyConfig: {
      type: 'weighted',
      chains: {
        'USDC|c1': weighted('0.7', '0.1'),
        'USDC|c2': weighted('0.3', '0.1'),
        'USDT|c1': weighted('0.5', '0.2'),
        'USDT|c2': weighted('0.5', '0.2'),
      },
    },
  };
}

describe('reading a multi-asset Hyperlane scenario', () => {
  it('makes one scenario per asset, named and tokened after it', () => {
    const set = readScenarioSet(doc());
    expect(set.name).toBe('duo');
    expect(set.multiAsset).toBe(true);
    expect(set.scenarios.map((s) => [s.name, s.token])).toEqual([
      ['duo/USDC', { symbol: 'USDC', decimals: 18, priceUsd: '1' }],
      ['duo/USDT', { symbol: 'USDT', decimals: 18, priceUsd: '1' }],
    ]);
  });

  it("splits each transfer into a receipt of its source asset and a payment of its destination asset; a same-chain swap's payment is due at once", () => {
    const [usdc, usdt] = readMultiAssetScenarios(doc());
    expect(usdc!.flows).toEqual([
      { id: 's', kind: 'payment', chain: 'c2', atMs: 200, amount: 3n * E18, requestedAtMs: 200 },
      { id: 'x/in', kind: 'receipt', chain: 'c1', atMs: 1000, amount: 7n * E18 },
    ]);
    expect(usdt!.flows).toEqual([
      { id: 's/in', kind: 'receipt', chain: 'c2', atMs: 200, amount: 3n * E18 },
      { id: 'u/in', kind: 'receipt', chain: 'c2', atMs: 500, amount: 2n * E18 },
      { id: 'u', kind: 'payment', chain: 'c1', atMs: 600, amount: 2n * E18, requestedAtMs: 500 },
      { id: 'x', kind: 'payment', chain: 'c2', atMs: 1100, amount: 7n * E18, requestedAtMs: 1000 },
    ]);
  });

  it('takes each asset\'s holdings from the strategy entries keyed "ASSET|chain", its balances from the collateral and its own imbalance', () => {
    const [usdc, usdt] = readMultiAssetScenarios(doc());
    // tolerance × the chain's share of the asset's total (Hyperlane's band: target ± tolerance × target)
    expect(usdc!.holdings).toEqual([
      { chain: 'c1', weight: 0.7, toleranceBps: 700 },
      { chain: 'c2', weight: 0.3, toleranceBps: 300 },
    ]);
    expect(usdt!.holdings).toEqual([
      { chain: 'c1', weight: 0.5, toleranceBps: 1000 },
      { chain: 'c2', weight: 0.5, toleranceBps: 1000 },
    ]);
    expect(usdc!.initial).toEqual({ c1: 50n * E18, c2: 50n * E18 });
    expect(usdt!.initial).toEqual({ c1: 60n * E18, c2: 50n * E18 });
    expect(usdt).toMatchObject({ chains: ['c1', 'c2'], pollMs: 1000, minTransfer: '0.1', maxTransfer: '110' });
    expect(usdt!.routes['c1|c2']).toEqual({ delayMs: 700, jitterMs: 0, failureRate: 0, fees: { bps: 0, flatUsd: '0' } });
  });

  it('maps minAmount entries to bands per asset', () => {
    const d = doc();
    const band = (min: string, target: string) => ({ minAmount: { min, target } });
    const chains = { 'USDC|c1': band('5', '20'), 'USDC|c2': band('6', '21'), 'USDT|c1': band('7', '22'), 'USDT|c2': band('8', '23') };
    const [usdc, usdt] = readMultiAssetScenarios({ ...d, defaultStrategyConfig: { type: 'minAmount', chains } });
    expect(usdc!.holdings).toEqual([
      { chain: 'c1', min: '5', target: '20', max: '100' },
      { chain: 'c2', min: '6', target: '21', max: '100' },
    ]);
    expect(usdt!.holdings).toEqual([
      { chain: 'c1', min: '7', target: '22', max: '110' },
      { chain: 'c2', min: '8', target: '23', max: '110' },
    ]);
  });

  it('reads a one-chain multi-asset file (same-chain swaps only)', () => {
    const d = doc();
    const one = {
      ...d,
      chains: ['c1'],
      transfers: [
        { id: 's', timestamp: 0, origin: 'c1', destination: 'c1', amount: units(1n), sourceAsset: 'USDC', destinationAsset: 'USDT' },
      ],
      defaultBridgeConfig: {},
    };
    const [usdc, usdt] = readMultiAssetScenarios(one);
    expect(usdc!.flows).toEqual([{ id: 's/in', kind: 'receipt', chain: 'c1', atMs: 0, amount: E18 }]);
    expect(usdt!.flows).toEqual([{ id: 's', kind: 'payment', chain: 'c1', atMs: 0, amount: E18, requestedAtMs: 0 }]);
  });

  it('refuses unknown or missing assets and assets of different decimals, in one line', () => {
    const d = doc();
    const bad = (t: object) => ({ ...d, transfers: [{ ...d.transfers[0]!, ...t }] });
    expect(() => readMultiAssetScenarios(bad({ destinationAsset: 'DAI' }))).toThrow('duo: transfer x names unknown asset DAI');
    expect(() => readMultiAssetScenarios(bad({ sourceAsset: undefined }))).toThrow('duo: transfer x lacks sourceAsset or destinationAsset');
    expect(() => readMultiAssetScenarios(bad({ origin: 'c9' }))).toThrow('duo: transfer x names unknown chain c9');
    expect(() => readMultiAssetScenarios({ ...d, assets: undefined })).toThrow('duo: transfers name assets but the file lists no assets');
    const mixed = [
      { symbol: 'USDC', decimals: 6 },
      { symbol: 'USDT', decimals: 18 },
    ];
    expect(() => readMultiAssetScenarios({ ...d, assets: mixed })).toThrow('duo: assets of different decimals (USDC 6, USDT 18)');
  });

  it('reads a single-asset file as one scenario, as before', () => {
    const { assets: _a, walletInventory: _w, ...rest } = doc();
    const single = {
      ...rest,
      transfers: rest.transfers.filter((t) => t.origin !== t.destination).map(({ sourceAsset: _s, destinationAsset: _d, ...t }) => t),
      defaultStrategyConfig: { type: 'emaFlow', chains: {} },
    };
    const set = readScenarioSet(single);
    expect(set).toMatchObject({ name: 'duo', multiAsset: false });
    expect(set.scenarios).toHaveLength(1);
    expect(set.scenarios[0]!.token.symbol).toBe('HYP');
    expect(set.scenarios[0]!.flows).toHaveLength(4);
  });
});

/** A hand-made log of one asset on chains a and b. */
function partLog(symbol: string, over: Partial<SimLog>): SimLog {
  return {
    scenario: `duo/${symbol}`,
    seed: 4,
    chains: ['a', 'b'],
    token: { symbol, decimals: 18, priceUsd: '1' },
    pollMs: 1000,
    blockMs: 250,
    mins: { a: 5n, b: null },
    bands: { a: { min: 5n, target: 10n, max: 20n }, b: null },
    initial: { a: 10n, b: 10n },
    final: { a: 10n, b: 10n },
    payments: [],
    transfers: [],
    samples: [],
    cycles: 0,
    cycleErrors: [],
    durationMs: 0,
    storeTransfers: {},
    ...over,
  };
}

describe('merging the logs of a multi-asset run', () => {
  const usdc = partLog('USDC', {
    final: { a: 4n, b: 16n },
    payments: [{ id: 'p1', chain: 'a', amount: 6n, requestedAtMs: 0, dueMs: 100, completedAtMs: 100 }],
    samples: [
      { atMs: 0, balances: { a: 10n, b: 10n } },
      { atMs: 1000, balances: { a: 4n, b: 16n } },
    ],
    cycles: 2,
    durationMs: 1500,
    storeTransfers: { success: 1 },
    cycleErrors: ['boom'],
  });
  const usdt = partLog('USDT', {
    final: { a: 12n, b: 7n },
    payments: [
      { id: 'p2', chain: 'b', amount: 3n, requestedAtMs: 0, dueMs: 100, completedAtMs: 400 },
      { id: 'p3', chain: 'b', amount: 50n, requestedAtMs: 200, dueMs: 300, completedAtMs: null },
    ],
    transfers: [
      { origin: 'b', destination: 'a', amountIn: 3n, amountOut: 2n, fee: 1n, quotedAtMs: 0, settledAtMs: 700, outcome: 'filled' },
      { origin: 'a', destination: 'b', amountIn: 9n, amountOut: 0n, fee: 0n, quotedAtMs: 800, settledAtMs: 900, outcome: 'refunded' },
    ],
    samples: [
      { atMs: 0, balances: { a: 10n, b: 10n } },
      { atMs: 1200, balances: { a: 12n, b: 7n } },
    ],
    cycles: 3,
    durationMs: 2500,
    storeTransfers: { success: 1, refunded: 1 },
  });
  const merged = mergeAssetLogs('duo', [usdc, usdt]);

  it('keys chains, bands, balances, payments and transfers "ASSET|chain" and sums the counters', () => {
    expect(merged.scenario).toBe('duo');
    expect(merged.assets).toEqual(['USDC', 'USDT']);
    expect(merged.chains).toEqual(['USDC|a', 'USDC|b', 'USDT|a', 'USDT|b']);
    expect(merged.final).toEqual({ 'USDC|a': 4n, 'USDC|b': 16n, 'USDT|a': 12n, 'USDT|b': 7n });
    expect(merged.mins).toEqual({ 'USDC|a': 5n, 'USDC|b': null, 'USDT|a': 5n, 'USDT|b': null });
    expect(merged.bands['USDT|a']).toEqual({ min: 5n, target: 10n, max: 20n });
    expect(merged.payments.map((p) => [p.id, p.chain])).toEqual([
      ['p1', 'USDC|a'],
      ['p2', 'USDT|b'],
      ['p3', 'USDT|b'],
    ]);
    expect(merged.transfers.map((t) => `${t.origin}>${t.destination}`)).toEqual(['USDT|b>USDT|a', 'USDT|a>USDT|b']);
    expect(merged).toMatchObject({ cycles: 5, durationMs: 2500, storeTransfers: { success: 2, refunded: 1 }, cycleErrors: ['USDC: boom'] });
  });

  it("samples at every part's times, carrying each part's latest balances forward", () => {
    expect(merged.samples).toEqual([
      { atMs: 0, balances: { 'USDC|a': 10n, 'USDC|b': 10n, 'USDT|a': 10n, 'USDT|b': 10n } },
      { atMs: 1000, balances: { 'USDC|a': 4n, 'USDC|b': 16n, 'USDT|a': 10n, 'USDT|b': 10n } },
      { atMs: 1200, balances: { 'USDC|a': 4n, 'USDC|b': 16n, 'USDT|a': 12n, 'USDT|b': 7n } },
    ]);
  });

  it('gives KPIs per holding and per asset', () => {
    const k = computeKpis(merged);
    expect(Object.keys(k.perChainMetrics)).toEqual(['USDC|a', 'USDC|b', 'USDT|a', 'USDT|b']);
    expect(k.perChainMetrics['USDC|a']).toMatchObject({ payments: 1, completedPayments: 1, timeBelowMinMs: 1500 });
    expect(k.perChainMetrics['USDT|a']).toMatchObject({ rebalancesIn: 1, rebalanceVolumeIn: '2', timeBelowMinMs: 0 });
    expect(k).toMatchObject({ totalTransfers: 3, completedTransfers: 2, totalRebalances: 1, rebalanceVolume: '3', paymentVolume: '59' });
    expect(k.perAssetMetrics).toEqual({
      USDC: { payments: 1, completedPayments: 1, completionRate: 1, rebalances: 0, rebalanceVolume: '0' },
      USDT: { payments: 2, completedPayments: 1, completionRate: 0.5, rebalances: 1, rebalanceVolume: '3' },
    });
  });

  it('leaves perAssetMetrics out of a single-asset run', () => {
    expect(computeKpis(usdc)).not.toHaveProperty('perAssetMetrics');
  });

  it('refuses logs whose tokens differ in decimals, and no logs at all', () => {
    const six = partLog('USDT', { token: { symbol: 'USDT', decimals: 6, priceUsd: '1' } });
    expect(() => mergeAssetLogs('duo', [usdc, six])).toThrow('duo: assets of different decimals (USDC 18, USDT 6)');
    expect(() => mergeAssetLogs('duo', [])).toThrow('duo: no asset to merge');
  });
});
