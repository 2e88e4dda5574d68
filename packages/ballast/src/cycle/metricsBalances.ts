/**
 * Balance gauges of a cycle, set right after the balance read: per (chain, asset, wallet) the balance in base
 * and whole units, the band (min, target, max), the distance from the target, the deficit below min, the
 * surplus above max and the below-min flag; and, at the end of the cycle (when this cycle's quotes may have
 * brought a price), the USD value. A target whose read failed keeps its last values (the read error is counted
 * in `ballast_chain_read_errors_total` and `ballast_rpc_errors_total`).
 */
import type { BalanceReading, TargetBand } from '../planner/types.ts';
import { baseUnitsToGauge, type BallastMetrics } from '../metrics/metrics.ts';
import { TARGET_BOUNDS } from '../metrics/operatorMetrics.ts';
import { unitsToGauge, usdValueToGauge, type UsdPrice } from '../metrics/units.ts';

/** How far a balance is from its band, base units (see the gauges of the same names). */
export interface BandPosition {
  /** balance − target (negative: short). */
  distance: bigint;
  /** target − balance when balance < min, else 0. */
  deficit: bigint;
  /** balance − target when balance > max, else 0. */
  surplus: bigint;
  belowMin: boolean;
}

/** Where `balance` sits in `band` (all base units). Pure. */
export function bandPosition(balance: bigint, band: Pick<TargetBand, 'min' | 'target' | 'max'>): BandPosition {
  const belowMin = balance < band.min;
  return {
    distance: balance - band.target,
    deficit: belowMin ? band.target - balance : 0n,
    surplus: balance > band.max ? balance - band.target : 0n,
    belowMin,
  };
}

/**
 * Sets the balance and band gauges of every target.
 *
 * @param balances one reading per target, in the targets' order
 */
export function setBalanceGauges(metrics: BallastMetrics, targets: readonly TargetBand[], balances: readonly BalanceReading[]): void {
  targets.forEach((t, i) => {
    const labels = { chain: t.chain, asset: t.asset, wallet: t.wallet };
    for (const bound of TARGET_BOUNDS) {
      metrics.targetBaseUnits.set({ ...labels, bound }, baseUnitsToGauge(t[bound]));
      metrics.targetUnits.set({ ...labels, bound }, unitsToGauge(t[bound], t.decimals));
    }
    const amount = balances[i]?.amount ?? null;
    if (amount === null) return;
    // Gauges are float64: exact up to 2^53 base units, approximate above (fine for dashboards, never for money).
    metrics.balanceBaseUnits.set(labels, baseUnitsToGauge(amount));
    metrics.balanceUnits.set(labels, unitsToGauge(amount, t.decimals));
    const p = bandPosition(amount, t);
    metrics.distanceFromTargetUnits.set(labels, unitsToGauge(p.distance, t.decimals));
    metrics.deficitUnits.set(labels, unitsToGauge(p.deficit, t.decimals));
    metrics.surplusUnits.set(labels, unitsToGauge(p.surplus, t.decimals));
    metrics.balanceBelowMin.set(labels, p.belowMin ? 1 : 0);
  });
}

/**
 * Sets `ballast_balance_usd` of every target read this cycle whose asset has a price; removes it for an asset
 * without one (absent rather than wrong).
 *
 * @param priceOf the asset's USD price or null
 */
export function setBalanceUsdGauges(
  metrics: BallastMetrics,
  targets: readonly TargetBand[],
  balances: readonly BalanceReading[],
  priceOf: (asset: string) => UsdPrice | null,
): void {
  targets.forEach((t, i) => {
    const labels = { chain: t.chain, asset: t.asset, wallet: t.wallet };
    const price = priceOf(t.asset);
    if (price === null) {
      metrics.balanceUsd.remove(labels);
      return;
    }
    const amount = balances[i]?.amount ?? null;
    if (amount !== null) metrics.balanceUsd.set(labels, usdValueToGauge(amount, t.decimals, price));
  });
}
