/**
 * The scenario `ballast simulate` runs, whatever file it was read from (docs/simulate.md): chains, the token,
 * treasury balances at the start, the traffic (payments out of and receipts into the treasury's holdings over
 * time), how each route delivers and what it costs, the rebalancer's polling, and the Ballast holdings (bands or
 * weights) used unless a config file is given. Amounts are bigint base units of the token; times ms from the start.
 */
import type { RouteSpec } from './solver.ts';

/** One payment (out of a holding) or receipt (into it). */
export interface Flow {
  id: string;
  kind: 'payment' | 'receipt';
  chain: string;
  /** When it is due, ms after the start. */
  atMs: number;
  amount: bigint;
  /** For a payment: when it was requested, ms after the start (latency is counted from here; default `atMs`). */
  requestedAtMs?: number;
  /**
   * For a payment known in advance: when it is announced, ms after the start (at most `atMs`). The run records it
   * then as a need on its holding (docs/needs.md), due at `atMs`, so the cycle prepares for it; absent: it is known
   * when due.
   */
  announcedAtMs?: number;
}

/** A refill point as `policy.refillTo` takes it: `target`, or a share of the band such as `"40%"`. */
export type SimRefillPoint = string;

/** `policy.refillTo` values: `target`, or a share of the band from `0%` (min) to `100%` (max), at most 2 decimals. */
export const REFILL_POINT_RE = /^(target|(100|[1-9]?[0-9])(\.[0-9]{1,2})?%)$/;

/** A Ballast holding of the scenario's token: a band (whole-unit decimal strings) or a weight. */
export type Holding = { chain: string; min: string; target: string; max: string } | { chain: string; weight: number; toleranceBps: number };

/** A flow-aware strategy as written in a Ballast config (`policy.strategy.<asset>`, seconds and whole units). */
export interface SimFlowStrategy {
  kind: 'flow';
  halfLifeSec: number;
  horizonSec: number;
  /** Whole units of the token per hour, decimal string. */
  deadbandPerHour: string;
  minSamples: number;
}

/**
 * What a scenario's author expects Ballast to achieve with the scenario's own holdings (a Ballast scenario's
 * `expect` block, docs/simulate.md "Ballast scenarios"); every field optional, each a bound on a KPI of the run
 * (src/sim/kpis.ts). The run does not read them.
 */
export interface SimExpectations {
  /** `completionRate` at least this (0–1). */
  minCompletionRate?: number;
  /** `totalRebalances` at most / at least this. */
  maxRebalances?: number;
  minRebalances?: number;
  /** Time below `min` summed over the banded holdings (`perChainMetrics[*].timeBelowMinMs`) at most this, ms. */
  maxTimeBelowMinMs?: number;
  /** `feesPaidUsd` at most this, USD decimal string. */
  maxFeesUsd?: string;
}

/** A scenario, normalised. */
export interface SimScenario {
  name: string;
  chains: string[];
  token: { symbol: string; decimals: number; priceUsd: string };
  /** Treasury balance per chain at the start, base units. */
  initial: Record<string, bigint>;
  /** Sorted by `atMs`. */
  flows: Flow[];
  /** Delivery and fees per route (`"origin|destination"`), else `defaultRoute`. */
  routes: Record<string, RouteSpec>;
  defaultRoute: RouteSpec;
  /** Ms between Ballast cycles. */
  pollMs: number;
  /** Ms between attempts of a payment blocked by a short holding. */
  retryMs: number;
  /** A payment still undelivered this long after the last flow is failed, ms. */
  drainMs: number;
  holdings: Holding[];
  /**
   * The asset's `policy.strategy` in the generated config (`kind: flow`, docs/design.md "Flow-aware strategy");
   * absent: bands or weights alone.
   */
  strategy?: SimFlowStrategy;
  /** Smallest and largest transfer Ballast makes, whole units (decimal strings). */
  minTransfer: string;
  maxTransfer: string;
  /** Relay API outages, ms after the start. */
  outages: { fromMs: number; toMs: number }[];
  /** The author's expectations of a run with these holdings (Ballast scenarios' `expect`); not used by the run. */
  expectations?: SimExpectations;
  /** The asset's `policy.refillTo` in the generated config ({@link REFILL_POINT_RE}); absent: the product's default. */
  refillTo?: SimRefillPoint;
  /**
   * Virtual ms between blocks on every chain; 0: a block as soon as a transaction is pending (anvil's automine, the
   * node Hyperlane's simulator runs on); absent: `SIM_BLOCK_MS` (src/sim/world.ts).
   */
  blockMs?: number;
}

/** The route spec of `origin → destination`. */
export function routeOf(s: SimScenario, origin: string, destination: string): RouteSpec {
  return s.routes[`${origin}|${destination}`] ?? s.defaultRoute;
}
