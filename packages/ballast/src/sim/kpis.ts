/**
 * The KPIs of a simulation run, computed from its event log (src/sim/run.ts), per scenario and per holding
 * (docs/simulate.md "KPIs"). Hyperlane's names where they match (hyperlane-xyz/hyperlane-monorepo,
 * typescript/rebalancer-sim `SimulationKPIs`): `completionRate` = completed ÷ total payments (1 with none);
 * latencies of completed payments (completion − request, ms) with nearest-rank percentiles
 * `sorted[ceil(p/100·n) − 1]` (0 with none); `totalRebalances` and `rebalanceVolume` over filled transfers. Plus the
 * treasury's: time spent below `min`, fees paid (USD and bps of volume), efficiency (volume moved ÷ payment
 * volume), peak capital in flight. A multi-asset run (holdings keyed `"ASSET|chain"`, src/sim/multiAsset.ts) also
 * reports `perAssetMetrics` (Hyperlane's multi-collateral name). Amounts are base-unit decimal strings, USD decimal
 * strings. Pure.
 */
import { formatUsdMicros, parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { BalanceSample, PaymentRecord, SimLog, TransferRecord } from './run.ts';

/** Payment latency figures, ms. */
export interface LatencyKpis {
  averageLatency: number;
  p50Latency: number;
  p95Latency: number;
  p99Latency: number;
}

/** KPIs of one holding (chain). */
export interface HoldingKpis extends LatencyKpis {
  initialBalance: string;
  finalBalance: string;
  payments: number;
  completedPayments: number;
  completionRate: number;
  /** Completed payments out of this holding (Hyperlane `transfersIn`: deliveries on this chain). */
  transfersIn: number;
  rebalancesIn: number;
  rebalancesOut: number;
  rebalanceVolumeIn: string;
  rebalanceVolumeOut: string;
  /** Time the holding spent below its band's `min`, ms (null: the holding has a weight, no min). */
  timeBelowMinMs: number | null;
}

/** KPIs of one asset of a multi-asset run: its payments and its filled rebalances (volume: inputs, base units). */
export interface AssetKpis {
  payments: number;
  completedPayments: number;
  completionRate: number;
  rebalances: number;
  rebalanceVolume: string;
}

/** KPIs of a run. */
export interface SimKpis extends LatencyKpis {
  scenario: string;
  seed: number;
  totalTransfers: number;
  completedTransfers: number;
  failedTransfers: number;
  completionRate: number;
  totalRebalances: number;
  rebalanceVolume: string;
  /** Transfers Ballast started (quoted and deposited), whatever their outcome. */
  transfersMade: number;
  feesPaid: string;
  feesPaidUsd: string;
  /** Fees ÷ rebalance volume, bps (0 with no volume). */
  feesBps: number;
  paymentVolume: string;
  /** Rebalance volume ÷ payment volume (0 with no payments). */
  efficiency: number;
  /** Largest sum of transfer inputs in flight at once (deposited or quoted, not yet settled), base units. */
  peakCapitalInFlight: string;
  cycles: number;
  simulatedMs: number;
  perChainMetrics: Record<string, HoldingKpis>;
  /** Per asset, for a multi-asset run only (absent otherwise). */
  perAssetMetrics?: Record<string, AssetKpis>;
}

/** Nearest-rank percentile of ascending values: `sorted[ceil(p/100·n) − 1]`, 0 for none. */
export function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Mean and nearest-rank percentiles of the completed payments' latencies. */
export function latencyKpis(payments: readonly PaymentRecord[]): LatencyKpis {
  const lat = payments.filter((p) => p.completedAtMs !== null).map((p) => p.completedAtMs! - p.requestedAtMs); // filtered above
  lat.sort((a, b) => a - b);
  const averageLatency = lat.length === 0 ? 0 : lat.reduce((a, b) => a + b, 0) / lat.length;
  return { averageLatency, p50Latency: nearestRank(lat, 50), p95Latency: nearestRank(lat, 95), p99Latency: nearestRank(lat, 99) };
}

/**
 * Time below `min` from the balance samples: each sample's state holds until the next sample (the last one until
 * `endMs`).
 */
export function timeBelow(samples: readonly BalanceSample[], chain: string, min: bigint, endMs: number): number {
  let total = 0;
  samples.forEach((s, i) => {
    const until = samples[i + 1]?.atMs ?? endMs;
    if ((s.balances[chain] ?? 0n) < min) total += Math.max(0, until - s.atMs);
  });
  return total;
}

/** Largest sum of `amountIn` over transfers open at once (from quote to settlement; unsettled ones to the end). */
export function peakInFlight(transfers: readonly TransferRecord[]): bigint {
  const edges: { at: number; delta: bigint }[] = [];
  for (const t of transfers) {
    if (t.outcome === 'notDeposited') continue;
    edges.push({ at: t.quotedAtMs, delta: t.amountIn });
    if (t.settledAtMs !== null) edges.push({ at: t.settledAtMs, delta: -t.amountIn });
  }
  edges.sort((a, b) => a.at - b.at || (a.delta < b.delta ? -1 : a.delta > b.delta ? 1 : 0));
  let open = 0n;
  let peak = 0n;
  for (const e of edges) {
    open += e.delta;
    if (open > peak) peak = open;
  }
  return peak;
}

const sum = (xs: readonly bigint[]) => xs.reduce((a, b) => a + b, 0n);
/** a ÷ b as a number with 6 decimals (0 when b is 0). */
const ratio = (a: bigint, b: bigint) => (b === 0n ? 0 : Number((a * 1_000_000n) / b) / 1_000_000);

/** Computes the KPIs of a run's log. */
export function computeKpis(log: SimLog): SimKpis {
  const filled = log.transfers.filter((t) => t.outcome === 'filled');
  const completed = log.payments.filter((p) => p.completedAtMs !== null);
  const volume = sum(filled.map((t) => t.amountIn));
  const fees = sum(filled.map((t) => t.fee));
  const paymentVolume = sum(log.payments.map((p) => p.amount));
  const priceMicros = parseUsdMicros(log.token.priceUsd);
  const feesUsdMicros = (fees * priceMicros) / 10n ** BigInt(log.token.decimals);
  const perChainMetrics: Record<string, HoldingKpis> = {};
  for (const chain of log.chains) {
    const mine = log.payments.filter((p) => p.chain === chain);
    const done = mine.filter((p) => p.completedAtMs !== null);
    const inbound = filled.filter((t) => t.destination === chain);
    const outbound = filled.filter((t) => t.origin === chain);
    const min = log.mins[chain] ?? null;
    perChainMetrics[chain] = {
      initialBalance: (log.initial[chain] ?? 0n).toString(),
      finalBalance: (log.final[chain] ?? 0n).toString(),
      payments: mine.length,
      completedPayments: done.length,
      completionRate: mine.length === 0 ? 1 : done.length / mine.length,
      transfersIn: done.length,
      rebalancesIn: inbound.length,
      rebalancesOut: outbound.length,
      rebalanceVolumeIn: sum(inbound.map((t) => t.amountOut)).toString(),
      rebalanceVolumeOut: sum(outbound.map((t) => t.amountIn)).toString(),
      timeBelowMinMs: min === null ? null : timeBelow(log.samples, chain, min, log.durationMs),
      ...latencyKpis(mine),
    };
  }
  return {
    scenario: log.scenario,
    seed: log.seed,
    totalTransfers: log.payments.length,
    completedTransfers: completed.length,
    failedTransfers: log.payments.length - completed.length,
    completionRate: log.payments.length === 0 ? 1 : completed.length / log.payments.length,
    ...latencyKpis(log.payments),
    totalRebalances: filled.length,
    rebalanceVolume: volume.toString(),
    transfersMade: log.transfers.filter((t) => t.outcome !== 'notDeposited').length,
    feesPaid: fees.toString(),
    feesPaidUsd: formatUsdMicros(feesUsdMicros),
    feesBps: volume === 0n ? 0 : Number((fees * 1_000_000n) / volume) / 100,
    paymentVolume: paymentVolume.toString(),
    efficiency: ratio(volume, paymentVolume),
    peakCapitalInFlight: peakInFlight(log.transfers).toString(),
    cycles: log.cycles,
    simulatedMs: log.durationMs,
    perChainMetrics,
    ...(log.assets ? { perAssetMetrics: perAssetMetrics(log, log.assets) } : {}),
  };
}

/** Per-asset KPIs of a merged log: payments and filled transfers whose holdings are keyed `"ASSET|…"`. */
export function perAssetMetrics(log: SimLog, assets: readonly string[]): Record<string, AssetKpis> {
  const out: Record<string, AssetKpis> = {};
  for (const asset of assets) {
    const of = (chain: string) => chain.startsWith(`${asset}|`);
    const mine = log.payments.filter((p) => of(p.chain));
    const done = mine.filter((p) => p.completedAtMs !== null).length;
    const filled = log.transfers.filter((t) => t.outcome === 'filled' && of(t.origin));
    out[asset] = {
      payments: mine.length,
      completedPayments: done,
      completionRate: mine.length === 0 ? 1 : done / mine.length,
      rebalances: filled.length,
      rebalanceVolume: sum(filled.map((t) => t.amountIn)).toString(),
    };
  }
  return out;
}

/** Time below `min` summed over the banded holdings, ms; null when no holding has a band. */
export function timeBelowMinTotal(k: SimKpis): number | null {
  const times = Object.values(k.perChainMetrics)
    .map((h) => h.timeBelowMinMs)
    .filter((t): t is number => t !== null);
  return times.length === 0 ? null : times.reduce((a, b) => a + b, 0);
}
