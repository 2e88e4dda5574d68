/**
 * Weighted targets (pure): an asset held as shares of its total across holdings (`weight` in the config, e.g. USDC
 * 40 on base and 60 on arbitrum) gets absolute bands every cycle, computed from what it holds now, so the planner
 * then works as for any band. For each weighted holding:
 *
 *   total   = Σ readings of the asset's holdings + Σ guaranteed outputs of its in-flight transfers whose origin
 *             already settled (that value is on its way, in no balance)
 *   target  = total × weight / Σ weights
 *   band    = target ± total × toleranceBps / 10 000 (min floored at 0)
 *
 * Amounts are summed at the finest decimals among the asset's holdings and converted back per holding (rounded
 * down), so holdings with different decimals add up exactly. When a holding of the asset cannot be read, the total
 * is unknown: every holding of that asset keeps a band equal to its own reading (nothing moves) and a decision says
 * why.
 */
import { formatUnits } from 'viem';
import type { BalanceReading, InFlightTransfer, PlanDecision, TargetBand } from './types.ts';

/** Default half-width of a weighted band, bps of the asset's total (±1 %). */
export const DEFAULT_WEIGHT_TOLERANCE_BPS = 100;

/** Result of {@link applyWeights}: the targets with computed bands, and one decision per weighted asset. */
export interface WeightedBands {
  targets: TargetBand[];
  decisions: PlanDecision[];
}

const keyOf = (chain: string, currency: string, address: string) => `${chain}\u0000${currency.toLowerCase()}\u0000${address.toLowerCase()}`;

/**
 * Replaces the bands of weighted targets (`weight` set) with the ones their asset's current total gives.
 *
 * @param targets every target; banded ones are returned as they are, in the same order
 * @param balances readings in the order of `targets`
 * @param inFlight transfers under way (destination base units in `guaranteedOut`)
 */
export function applyWeights(
  targets: readonly TargetBand[],
  balances: readonly BalanceReading[],
  inFlight: readonly InFlightTransfer[],
): WeightedBands {
  const out = [...targets];
  const decisions: PlanDecision[] = [];
  const assets = [...new Set(targets.filter((t) => t.weight !== undefined).map((t) => t.asset))];
  for (const asset of assets) {
    const idx = targets.map((t, i) => (t.asset === asset && t.weight !== undefined ? i : -1)).filter((i) => i >= 0);
    const unreadable = idx.filter((i) => balances[i]?.amount === null || balances[i]?.amount === undefined);
    if (unreadable.length > 0) {
      for (const i of idx) {
        const r = balances[i]?.amount ?? 0n;
        out[i] = { ...targets[i]!, min: r, target: r, max: r };
      }
      const chains = unreadable.map((i) => targets[i]!.chain).join(', ');
      decisions.push({
        asset,
        kind: 'weights',
        detail: `${asset}: weights not applied this cycle: ${chains} could not be read, so the total is unknown; nothing planned for ${asset}`,
      });
      continue;
    }
    const scale = Math.max(...idx.map((i) => targets[i]!.decimals));
    const up = (n: bigint, d: number) => n * 10n ** BigInt(scale - d);
    const byDest = new Map(idx.map((i) => [keyOf(targets[i]!.chain, targets[i]!.currency, targets[i]!.address), targets[i]!] as const));
    let held = 0n;
    for (const i of idx) held += up(balances[i]!.amount!, targets[i]!.decimals);
    let moving = 0n;
    for (const f of inFlight) {
      const dest =
        f.asset === asset && f.originSettled
          ? byDest.get(keyOf(f.destinationChain, f.destinationCurrency, f.destinationAddress))
          : undefined;
      if (dest) moving += up(f.guaranteedOut, dest.decimals);
    }
    const total = held + moving;
    const weights = idx.reduce((s, i) => s + targets[i]!.weight!, 0);
    const parts: string[] = [];
    for (const i of idx) {
      const t = targets[i]!;
      const down = (n: bigint) => n / 10n ** BigInt(scale - t.decimals);
      // Weights are decimals in the config: scaled by 1e6 so the share is exact enough and stays integer.
      const share = BigInt(Math.round((t.weight! / weights) * 1_000_000));
      const targetN = (total * share) / 1_000_000n;
      const tolN = (total * BigInt(t.toleranceBps ?? DEFAULT_WEIGHT_TOLERANCE_BPS)) / 10_000n;
      const band = { min: down(targetN > tolN ? targetN - tolN : 0n), target: down(targetN), max: down(targetN + tolN) };
      out[i] = { ...t, ...band };
      const fmt = (n: bigint) => formatUnits(n, t.decimals);
      parts.push(`${t.chain} weight ${t.weight} → target ${fmt(band.target)}, band [${fmt(band.min)}, ${fmt(band.max)}]`);
    }
    const fmtTotal = formatUnits(total, scale);
    const inFlightText = moving > 0n ? ` (${formatUnits(moving, scale)} of it in flight)` : '';
    decisions.push({ asset, kind: 'weights', detail: `${asset}: ${fmtTotal} held in total${inFlightText}; ${parts.join('; ')}` });
  }
  return { targets: out, decisions };
}
