import { describe, expect, it } from 'vitest';
import { readBallastScenario } from '../../../packages/ballast/src/sim/ballastScenario.ts';
import { readHyperlaneScenario, weightedToleranceBps } from '../../../packages/ballast/src/sim/hyperlane.ts';
import { readScenario } from '../../../packages/ballast/src/sim/readScenario.ts';
import { routeOf } from '../../../packages/ballast/src/sim/scenario.ts';
import { simConfigYaml } from '../../../packages/ballast/src/sim/config.ts';
import { simChains, simToken } from '../../../packages/ballast/src/sim/identity.ts';
import { simNeedsPolicy } from '../../../packages/ballast/src/sim/paymentNeeds.ts';
import { invoiceDoc } from './payRefill.ts';

const E18 = 10n ** 18n;

/** A small Hyperlane scenario: two transfers between two chains, a weighted strategy. */
function hyperlane(
  strategy: unknown = {
    type: 'weighted',
    chains: {
      c1: { weighted: { weight: '0.6', tolerance: '0.05' }, bridgeLockTime: 500 },
      c2: { weighted: { weight: '0.4', tolerance: '0.1' }, bridgeLockTime: 500 },
    },
  },
) {
  return {
    name: 'tiny',
    description: 'two transfers',
    duration: 5000,
    chains: ['c1', 'c2'],
    transfers: [
      {
        id: 't1',
        timestamp: 1000,
        origin: 'c1',
        destination: 'c2',
        amount: (3n * E18).toString(),
        user: '0x1111111111111111111111111111111111111111',
      },
      {
        id: 't0',
        timestamp: 0,
        origin: 'c2',
        destination: 'c1',
        amount: E18.toString(),
        user: '0x2222222222222222222222222222222222222222',
      },
    ],
    defaultInitialCollateral: (100n * E18).toString(),
    initialImbalance: { c1: (50n * E18).toString() },
    defaultTiming: { userTransferDeliveryDelay: 100, rebalancerPollingFrequency: 1000, userTransferInterval: 100 },
    defaultBridgeConfig: { c1: { c2: { deliveryDelay: 3000, failureRate: 0, deliveryJitter: 0, tokenFeeBps: 7 } } },
    defaultStrategyConfig: strategy,
  };
}

describe("Hyperlane's scenario format", () => {
  it('turns each transfer into a receipt on the origin and a payment out of the destination after the delivery delay', () => {
    const s = readHyperlaneScenario(hyperlane());
    expect(s.flows).toEqual([
      { id: 't0/in', kind: 'receipt', chain: 'c2', atMs: 0, amount: E18 },
      { id: 't0', kind: 'payment', chain: 'c1', atMs: 100, amount: E18, requestedAtMs: 0 },
      { id: 't1/in', kind: 'receipt', chain: 'c1', atMs: 1000, amount: 3n * E18 },
      { id: 't1', kind: 'payment', chain: 'c2', atMs: 1100, amount: 3n * E18, requestedAtMs: 1000 },
    ]);
    expect(s.initial).toEqual({ c1: 150n * E18, c2: 100n * E18 });
    expect(s).toMatchObject({ pollMs: 1000, retryMs: 200, drainMs: 60_000, token: { decimals: 18 }, maxTransfer: '250' });
  });

  it('reads routes, falling back to 500 ms ± 100 ms for a route it does not list', () => {
    const s = readHyperlaneScenario(hyperlane());
    expect(routeOf(s, 'c1', 'c2')).toEqual({ delayMs: 3000, jitterMs: 0, failureRate: 0, fees: { bps: 7, flatUsd: '0' } });
    expect(routeOf(s, 'c2', 'c1')).toMatchObject({ delayMs: 500, jitterMs: 100, failureRate: 0 });
  });

  it("maps weighted to weights with Hyperlane's band, minAmount to bands, flow strategies to holdings refilled just in time", () => {
    // Hyperlane's band is target ± tolerance × target; Ballast's toleranceBps is of the total: c1 holds 0.6 of it with
    // tolerance 0.05 → ± 3 % of the total, c2 0.4 with 0.1 → ± 4 %.
    expect(readHyperlaneScenario(hyperlane()).holdings).toEqual([
      { chain: 'c1', weight: 0.6, toleranceBps: 300 },
      { chain: 'c2', weight: 0.4, toleranceBps: 400 },
    ]);
    expect(weightedToleranceBps(0.15, 1 / 3)).toBe(500);
    expect(weightedToleranceBps(0.05, 1 / 3)).toBe(167);
    expect(weightedToleranceBps(3, 1)).toBe(10_000);
    const minAmount = {
      type: 'minAmount',
      chains: { c1: { minAmount: { min: '20', target: '40' } }, c2: { minAmount: { min: '10', target: '30' } } },
    };
    expect(readHyperlaneScenario(hyperlane(minAmount)).holdings).toEqual([
      { chain: 'c1', min: '20', target: '40', max: '250' },
      { chain: 'c2', min: '10', target: '30', max: '250' },
    ]);
    expect(readHyperlaneScenario(hyperlane(minAmount)).strategy).toBeUndefined();
    // emaFlow: no floor, target = max = the starting collateral (c1 150, c2 100), refilled just in time (0 % of the
    // band: what the payments waiting on it lack); no flow projection. Every flow type maps the same way.
    const ema = {
      type: 'emaFlow',
      chains: { c1: { emaFlow: { alpha: '0.5', minSamplesForSignal: 4 } }, c2: { emaFlow: { alpha: '0.5' } } },
    };
    const flow = readHyperlaneScenario(hyperlane(ema));
    expect(flow.holdings).toEqual([
      { chain: 'c1', min: '0', target: '150', max: '150' },
      { chain: 'c2', min: '0', target: '100', max: '100' },
    ]);
    expect(flow.strategy).toBeUndefined();
    expect(flow.refillTo).toBe('0%');
    const velocity = { type: 'velocityFlow', chains: { c1: {}, c2: {} } };
    expect(readHyperlaneScenario(hyperlane(velocity))).toMatchObject({ refillTo: '0%', holdings: [{ min: '0' }, { min: '0' }] });
    expect(readHyperlaneScenario(hyperlane(minAmount)).refillTo).toBeUndefined();
    const other = { type: 'collateralDeficit', chains: { c1: {}, c2: {} } };
    // equal weights with 5 % of the target: 2.5 % of the total each
    expect(readHyperlaneScenario(hyperlane(other)).holdings).toEqual([
      { chain: 'c1', weight: 1, toleranceBps: 250 },
      { chain: 'c2', weight: 1, toleranceBps: 250 },
    ]);
  });

  it('leaves multi-asset files to the per-asset reader, in one line', () => {
    expect(() => readHyperlaneScenario({ ...hyperlane(), assets: [{ symbol: 'USDC', decimals: 18 }] })).toThrow(
      'tiny: a multi-asset Hyperlane scenario (assets, sourceAsset/destinationAsset) reads into one scenario per asset',
    );
  });

  it('refuses a single-asset file with one chain', () => {
    expect(() => readHyperlaneScenario({ ...hyperlane(), chains: ['c1'] })).toThrow(
      'tiny: a single-asset scenario names at least two chains',
    );
  });

  it('refuses a transfer naming an unknown chain', () => {
    const doc = hyperlane();
    doc.transfers[0]!.destination = 'c9';
    expect(() => readHyperlaneScenario(doc)).toThrow('tiny: transfer t1 names unknown chain c9');
  });
});

describe("Ballast's scenario format", () => {
  const doc = {
    name: 'mine',
    token: { symbol: 'USDC', decimals: 6 },
    chains: {
      base: { initial: '1000', holding: { min: '500', target: '1000', max: '2000' } },
      arbitrum: { initial: '250.5', holding: { weight: 2, toleranceBps: 300 } },
    },
    traffic: [
      { at: 2000, chain: 'arbitrum', receipt: '10' },
      { at: 1000, chain: 'base', payment: '1.25', id: 'rent' },
    ],
    routes: { default: { delayMs: 800, jitterMs: 50, feeBps: 4, feeUsd: '0.02' }, 'base->arbitrum': { delayMs: 2000, failureRate: 0.5 } },
  };

  it('reads whole-unit amounts into base units and sorts the traffic', () => {
    const s = readBallastScenario(doc);
    expect(s.initial).toEqual({ base: 1_000_000_000n, arbitrum: 250_500_000n });
    expect(s.flows).toEqual([
      { id: 'rent', kind: 'payment', chain: 'base', atMs: 1000, amount: 1_250_000n },
      { id: 'receipt-0', kind: 'receipt', chain: 'arbitrum', atMs: 2000, amount: 10_000_000n },
    ]);
    expect(s.holdings).toEqual([
      { chain: 'base', min: '500', target: '1000', max: '2000' },
      { chain: 'arbitrum', weight: 2, toleranceBps: 300 },
    ]);
    expect(s).toMatchObject({ pollMs: 1000, retryMs: 200, drainMs: 60_000, minTransfer: '1', maxTransfer: '1251' });
  });

  it('reads the default route and per-route overrides', () => {
    const s = readBallastScenario(doc);
    expect(routeOf(s, 'arbitrum', 'base')).toEqual({
      delayMs: 800,
      jitterMs: 50,
      failureRate: 0,
      fees: { bps: 4, flatUsd: '0.02' },
      refuseQuotes: false,
    });
    expect(routeOf(s, 'base', 'arbitrum')).toEqual({
      delayMs: 2000,
      jitterMs: 0,
      failureRate: 0.5,
      fees: { bps: 0, flatUsd: '0' },
      refuseQuotes: false,
    });
  });

  it('reads an optional flow strategy with the config defaults, and refuses a bad one naming the field', () => {
    expect(readBallastScenario(doc).strategy).toBeUndefined();
    const s = readBallastScenario({ ...doc, strategy: { kind: 'flow', halfLifeSec: 60, horizonSec: 120 } });
    expect(s.strategy).toEqual({ kind: 'flow', halfLifeSec: 60, horizonSec: 120, deadbandPerHour: '0', minSamples: 3 });
    expect(() => readBallastScenario({ ...doc, strategy: { kind: 'flow', halfLifeSec: 0, horizonSec: 120 } })).toThrow(/halfLifeSec/);
  });

  it('refuses traffic on an unknown chain and unknown fields', () => {
    expect(() => readBallastScenario({ ...doc, traffic: [{ at: 0, chain: 'optimism', payment: '1' }] })).toThrow(
      'mine: traffic #0 names unknown chain optimism',
    );
    expect(() => readBallastScenario({ ...doc, extra: true })).toThrow();
  });

  it("reads announcements (per payment, else the scenario's) and the refill point, and refuses a bad point", () => {
    const traffic = [
      { at: 5000, chain: 'base', payment: '1', id: 'a' },
      { at: 9000, chain: 'base', payment: '1', id: 'b', announcedAheadMs: 1000 },
      { at: 9500, chain: 'arbitrum', receipt: '1' },
    ];
    const s = readBallastScenario({ ...doc, traffic, announcedAheadMs: 8000, refillTo: '37.5%' });
    expect(s.flows.map((f) => [f.id, f.announcedAtMs])).toEqual([
      ['a', 0],
      ['b', 8000],
      ['receipt-2', undefined],
    ]);
    expect(s.refillTo).toBe('37.5%');
    expect(readBallastScenario(doc).flows.every((f) => f.announcedAtMs === undefined)).toBe(true);
    expect(readBallastScenario(doc).refillTo).toBeUndefined();
    expect(readBallastScenario({ ...doc, refillTo: 'target' }).refillTo).toBe('target');
    for (const bad of ['40', '101%', '12.345%', 'min']) expect(() => readBallastScenario({ ...doc, refillTo: bad })).toThrow(/refillTo/);
  });

  it('holds a need from when it is recorded until the run closes it: horizon the longest announcement, grace the run and a cycle', () => {
    const s = readBallastScenario({ ...invoiceDoc({ announcedAheadMs: 10_500 }), drainMs: 30_000 });
    expect(simNeedsPolicy(s)).toEqual({ needsHorizonSec: 11, needsGraceSec: 51 });
    expect(simNeedsPolicy(readBallastScenario(invoiceDoc()))).toEqual({ needsHorizonSec: 1, needsGraceSec: 81 });
    // an announcement longer than the payment's time is recorded at the start
    expect(readBallastScenario(invoiceDoc({ announcedAheadMs: 60_000 })).flows[0]!.announcedAtMs).toBe(0);
    const yaml = simConfigYaml({ ...s, refillTo: '40%' }, simChains(s.chains), simToken(1, 'USDC', 6));
    expect(yaml).toContain('  needsHorizonSec: 11\n  needsGraceSec: 51');
    expect(yaml).toContain('  refillTo: { USDC: "40%" }');
  });

  it('is told apart from a Hyperlane file by readScenario', () => {
    expect(readScenario(doc).name).toBe('mine');
    expect(readScenario(hyperlane()).flows).toHaveLength(4);
  });
});
