/**
 * Reads Hyperlane's rebalancer-sim scenario format as is (hyperlane-xyz/hyperlane-monorepo,
 * typescript/rebalancer-sim, `ScenarioFile`; docs/simulate.md "Hyperlane scenarios"): a user transfer origin →
 * destination is a receipt on the origin at its timestamp and a payment out of the destination
 * `userTransferDeliveryDelay` ms later, counted from the timestamp; every chain starts with
 * `defaultInitialCollateral` (+ `initialImbalance`); routes deliver after `deliveryDelay ± deliveryJitter`.
 * `defaultStrategyConfig` maps to Ballast holdings: `weighted` → weights with the same weights and the band
 * Hyperlane's tolerance gives (target ± tolerance × target, {@link weightedToleranceBps}), `minAmount` → bands with its
 * min and target, a flow strategy (`emaFlow`, `velocityFlow`, `thresholdFlow`, `accelerationFlow`) → holdings
 * refilled just in time ({@link flowHoldingOf}, {@link FLOW_REFILL_TO}), any other → equal weights with a tolerance
 * of 5 % of the target. Multi-asset files (`assets`, `sourceAsset`/`destinationAsset`) are read into one
 * scenario per asset by src/sim/multiAsset.ts with the parts exported here. Pure.
 */
import { formatUnits } from 'viem';
import { z } from 'zod';
import type { RouteSpec } from './solver.ts';
import type { Flow, Holding, SimScenario } from './scenario.ts';

const Uint = z.string().regex(/^[0-9]+$/, 'expected a base-unit integer string');
const Decimal = z.string().regex(/^[0-9]+(\.[0-9]+)?$/, 'expected a decimal string');

const BridgeSchema = z.looseObject({
  deliveryDelay: z.number().nonnegative(),
  deliveryJitter: z.number().nonnegative().default(0),
  failureRate: z.number().min(0).max(1).default(0),
  tokenFeeBps: z.number().int().min(0).max(10_000).optional(),
});

const StrategyChainSchema = z.looseObject({
  weighted: z.object({ weight: Decimal, tolerance: Decimal }).optional(),
  minAmount: z.looseObject({ min: Decimal, target: Decimal }).optional(),
  emaFlow: z.looseObject({ alpha: Decimal.optional(), minSamplesForSignal: z.number().int().nonnegative().optional() }).optional(),
});

/** Hyperlane's `ScenarioFile` (the fields the simulation reads). */
export const HyperlaneScenarioSchema = z.looseObject({
  name: z.string().min(1),
  chains: z.array(z.string().min(1)).min(1),
  transfers: z.array(
    z.looseObject({
      id: z.string(),
      timestamp: z.number().nonnegative(),
      origin: z.string(),
      destination: z.string(),
      amount: Uint,
      sourceAsset: z.string().optional(),
      destinationAsset: z.string().optional(),
    }),
  ),
  defaultInitialCollateral: Uint,
  initialImbalance: z.record(z.string(), Uint).optional(),
  defaultTiming: z.looseObject({ userTransferDeliveryDelay: z.number().nonnegative(), rebalancerPollingFrequency: z.number().positive() }),
  defaultBridgeConfig: z.record(z.string(), z.record(z.string(), BridgeSchema)).default({}),
  defaultStrategyConfig: z.looseObject({ type: z.string(), chains: z.record(z.string(), StrategyChainSchema) }),
  assets: z.array(z.looseObject({ symbol: z.string().min(1), decimals: z.number().int().min(0).max(36) })).optional(),
  walletInventory: z.record(z.string(), Uint).optional(),
});
export type HyperlaneScenario = z.infer<typeof HyperlaneScenarioSchema>;

/** Hyperlane tokens have 18 decimals. */
export const HYPERLANE_DECIMALS = 18;
const DECIMALS = HYPERLANE_DECIMALS;
/** A route missing from `defaultBridgeConfig` (Hyperlane's fallback: 500 ms ± 100 ms, no failures). */
const FALLBACK_ROUTE: RouteSpec = { delayMs: 500, jitterMs: 100, failureRate: 0, fees: { bps: 0, flatUsd: '0' } };

/** Whether a parsed JSON document looks like a Hyperlane scenario (has `transfers` and `defaultInitialCollateral`). */
export function isHyperlaneScenario(doc: unknown): boolean {
  return typeof doc === 'object' && doc !== null && 'transfers' in doc && 'defaultInitialCollateral' in doc;
}

/** Whether a scenario is multi-asset: it lists `assets`, or a transfer names a `sourceAsset` or `destinationAsset`. */
export function isMultiAsset(h: Pick<HyperlaneScenario, 'assets' | 'transfers'>): boolean {
  return h.assets !== undefined || h.transfers.some((t) => t.sourceAsset !== undefined || t.destinationAsset !== undefined);
}

/**
 * Reads a single-asset Hyperlane scenario.
 *
 * @throws Error one line: a multi-asset file (read those with `readScenarioSet`, src/sim/readScenario.ts), fewer
 *   than two chains, a transfer naming an unknown chain; ZodError for a malformed file
 */
export function readHyperlaneScenario(doc: unknown): SimScenario {
  const h = HyperlaneScenarioSchema.parse(doc);
  if (isMultiAsset(h)) {
    throw new Error(`${h.name}: a multi-asset Hyperlane scenario (assets, sourceAsset/destinationAsset) reads into one scenario per asset`);
  }
  if (h.chains.length < 2) throw new Error(`${h.name}: a single-asset scenario names at least two chains`);
  const known = new Set(h.chains);
  const initial: Record<string, bigint> = {};
  for (const c of h.chains) initial[c] = BigInt(h.defaultInitialCollateral) + BigInt(h.initialImbalance?.[c] ?? '0');
  const delay = h.defaultTiming.userTransferDeliveryDelay;
  const flows: Flow[] = [];
  for (const t of h.transfers) {
    for (const c of [t.origin, t.destination]) if (!known.has(c)) throw new Error(`${h.name}: transfer ${t.id} names unknown chain ${c}`);
    const amount = BigInt(t.amount);
    flows.push({ id: `${t.id}/in`, kind: 'receipt', chain: t.origin, atMs: t.timestamp, amount });
    flows.push({ id: t.id, kind: 'payment', chain: t.destination, atMs: t.timestamp + delay, amount, requestedAtMs: t.timestamp });
  }
  flows.sort((a, b) => a.atMs - b.atMs);
  const total = Object.values(initial).reduce((a, b) => a + b, 0n);
  return {
    name: h.name,
    chains: [...h.chains],
    token: { symbol: 'HYP', decimals: DECIMALS, priceUsd: '1' },
    initial,
    flows,
    ...hyperlaneCommon(h, total, DECIMALS),
    holdings: holdingsOf(h, total),
  };
}

/**
 * What every scenario read from a Hyperlane file shares, whatever its asset: routes from `defaultBridgeConfig`
 * (else 500 ms ± 100 ms), `pollMs` = `rebalancerPollingFrequency`, retries every 200 ms, a 60 s drain, no outages,
 * the policy: `minTransfer` 0.1, `maxTransfer` `total` (base units of `decimals`) in whole units, for a flow
 * strategy the refill point {@link FLOW_REFILL_TO}, and blocks mined as transactions arrive (`blockMs` 0): the
 * simulator runs every chain on one anvil node, which mines each transaction at once, and counts a payment's wait
 * to the block that holds it, so a block cadence of our own would add up to a block to every wait.
 */
export function hyperlaneCommon(
  h: HyperlaneScenario,
  total: bigint,
  decimals: number,
): Omit<SimScenario, 'name' | 'chains' | 'token' | 'initial' | 'flows' | 'holdings'> {
  const routes: Record<string, RouteSpec> = {};
  for (const [o, byDest] of Object.entries(h.defaultBridgeConfig)) {
    for (const [d, b] of Object.entries(byDest)) {
      routes[`${o}|${d}`] = {
        delayMs: b.deliveryDelay,
        jitterMs: b.deliveryJitter,
        failureRate: b.failureRate,
        fees: { bps: b.tokenFeeBps ?? 0, flatUsd: '0' },
      };
    }
  }
  return {
    routes,
    defaultRoute: FALLBACK_ROUTE,
    pollMs: h.defaultTiming.rebalancerPollingFrequency,
    retryMs: 200,
    drainMs: 60_000,
    ...(isFlowStrategy(h) ? { refillTo: FLOW_REFILL_TO } : {}),
    minTransfer: '0.1',
    maxTransfer: formatUnits(total, decimals),
    outages: [],
    blockMs: 0,
  };
}

/** The tolerance of the weights a strategy type Ballast has no mapping for is given (Hyperlane's meaning: 5 % of the target). */
const FALLBACK_TOLERANCE = 0.05;

/**
 * Ballast holdings of a strategy (see the module comment). A weight keeps Hyperlane's band: Hyperlane's weighted
 * strategy holds a chain within `tolerance` × its target (target = total × weight ÷ Σ weights), where Ballast's
 * `toleranceBps` is a share of the total, so the tolerance becomes {@link weightedToleranceBps}.
 */
export function holdingsOf(h: HyperlaneScenario, total: bigint): Holding[] {
  const strategy = h.defaultStrategyConfig;
  const weighted = strategy.type === 'weighted' ? h.chains.map((c) => strategy.chains[c]?.weighted) : [];
  const weights = weighted.every((w) => w !== undefined) ? weighted.map((w) => Number(w.weight)) : [];
  const sum = weights.reduce((a, b) => a + b, 0);
  return h.chains.map((chain, i): Holding => {
    const c = strategy.chains[chain];
    if (strategy.type === 'weighted' && c?.weighted && sum > 0) {
      const weight = weights[i]!; // one weight per chain when every chain has one (sum > 0)
      return { chain, weight, toleranceBps: weightedToleranceBps(Number(c.weighted.tolerance), weight / sum) };
    }
    if (strategy.type === 'minAmount' && c?.minAmount) {
      return { chain, min: c.minAmount.min, target: c.minAmount.target, max: formatUnits(total, DECIMALS) };
    }
    if (isFlowStrategy(h)) return flowHoldingOf(chain, initialOf(h, chain));
    return { chain, weight: 1, toleranceBps: weightedToleranceBps(FALLBACK_TOLERANCE, 1 / h.chains.length) };
  });
}

/**
 * Ballast's `toleranceBps` (a share of the asset's total) for Hyperlane's weighted `tolerance` (a share of the chain's
 * target, `"0.15"` = 15 %; its runner turns it into a whole percent): tolerance × share × 10 000, rounded to whole bps
 * (at most 10 000), where share = the chain's weight ÷ Σ weights. 0.15 at a third of the total → 500 bps.
 */
export function weightedToleranceBps(tolerance: number, share: number): number {
  return Math.min(10_000, Math.max(0, Math.round(tolerance * share * 10_000)));
}

/** Hyperlane's flow-reactive strategy types, mapped to holdings refilled just in time ({@link flowHoldingOf}). */
const FLOW_TYPES = new Set(['emaFlow', 'velocityFlow', 'thresholdFlow', 'accelerationFlow']);
/**
 * The refill point of a flow-mapped holding: its band's min (0), so a refill brings exactly what the payments
 * waiting on it (held as needs) lack. docs/simulate.md "Hyperlane scenarios" gives the measurements that chose it.
 */
export const FLOW_REFILL_TO = '0%';

/** Whether the scenario's strategy is one of Hyperlane's flow-reactive ones. */
export function isFlowStrategy(h: HyperlaneScenario): boolean {
  return FLOW_TYPES.has(h.defaultStrategyConfig.type);
}

/** A chain's starting collateral, base units. */
function initialOf(h: HyperlaneScenario, chain: string): bigint {
  return BigInt(h.defaultInitialCollateral) + BigInt(h.initialImbalance?.[chain] ?? '0');
}

/**
 * The Ballast band of a chain under a flow strategy: no floor (`min` 0), `target` = `max` = its starting collateral.
 * Whatever a holding gains above its start can be given to one in need; nothing is moved until a payment waits on a
 * holding (a need), and then only what it lacks ({@link FLOW_REFILL_TO}): Hyperlane's flow strategies keep no floor
 * either.
 */
export function flowHoldingOf(chain: string, initial: bigint): Holding {
  const whole = (n: bigint) => formatUnits(n, DECIMALS);
  return { chain, min: '0', target: whole(initial), max: whole(initial) };
}
