/**
 * Route alternatives (pure): for each planned transfer, the other donors of the same asset that could send the
 * same value to the same recipient from surplus no other transfer of this plan takes. The cycle quotes them next
 * to the planner's own pick and keeps the cheapest that passes the fee policy and verification
 * (src/cycle/routeChoice.ts); what a donor could still give is its `spare`.
 */
import { formatUnits } from 'viem';
import { targetKey } from './effective.ts';
import type { MatchSide } from './match.ts';
import type { PlannedTransfer, RouteAlternative, TargetBand } from './types.ts';

/** Parameters of {@link attachAlternatives}; `...N` amounts at `scale` decimals. */
export interface AlternativesParameters {
  asset: string;
  scale: number;
  /** The asset's surpluses as the planner found them (what each donor could give this cycle). */
  surpluses: readonly MatchSide[];
  /** Every transfer of the asset this cycle, in plan order. */
  transfers: readonly PlannedTransfer[];
  /** Transfers that take part of a sweep: their donor was chosen for its leftover, so they get no alternatives. */
  sweeping: ReadonlySet<PlannedTransfer>;
  /**
   * Whether `from` may send `amountN` (common scale) to `to` (per-route rules); absent: every route may.
   */
  routeAllows?: (from: TargetBand, to: TargetBand, amountN: bigint) => boolean;
  /** At most this many alternatives per transfer, largest spare first (ties by chain name). */
  maxAlternatives: number;
}

/** What {@link attachAlternatives} returns. */
export interface AlternativesResult {
  /** The transfers with `alternatives` set where there are any (same order, same objects otherwise). */
  transfers: PlannedTransfer[];
  /** Per donor holding ({@link targetKey}): surplus no transfer takes, in that donor's base units. */
  spare: Map<string, bigint>;
}

/**
 * Lists each transfer's alternative donors.
 *
 * A donor is an alternative for a transfer when it is another holding than the transfer's donor and recipient, its
 * spare (surplus less everything this plan takes from it) covers the transfer's value, that value is a whole base
 * unit on the donor, and the route is allowed. The alternative sends the same value (converted to its decimals),
 * so the recipient gets what the plan meant whichever donor pays. Spares are not reserved here: the cycle takes an
 * alternative only if its spare still covers it, and then gives the replaced donor's amount back to its spare.
 *
 * @returns transfers with alternatives, and the spare of every donor
 */
export function attachAlternatives(p: AlternativesParameters): AlternativesResult {
  const toScale = (t: TargetBand, n: bigint) => n * 10n ** BigInt(p.scale - t.decimals);
  const taken = new Map<string, bigint>();
  for (const t of p.transfers) taken.set(targetKey(t.from), (taken.get(targetKey(t.from)) ?? 0n) + toScale(t.from, t.amountIn));
  const spareN = new Map<string, { band: TargetBand; n: bigint }>();
  for (const s of p.surpluses) {
    const key = s.key ?? targetKey(s.band);
    const left = s.amountN - (taken.get(key) ?? 0n);
    spareN.set(key, { band: s.band, n: left > 0n ? left : 0n });
  }
  const spare = new Map<string, bigint>();
  for (const [key, { band, n }] of spareN) spare.set(key, n / 10n ** BigInt(p.scale - band.decimals));
  if (p.maxAlternatives < 1) return { transfers: [...p.transfers], spare };

  const donors = [...spareN.entries()]
    .filter(([, d]) => d.n > 0n)
    .sort(([, a], [, b]) => (a.n !== b.n ? (a.n > b.n ? -1 : 1) : a.band.chain < b.band.chain ? -1 : a.band.chain > b.band.chain ? 1 : 0));
  const transfers = p.transfers.map((t): PlannedTransfer => {
    if (p.sweeping.has(t)) return t;
    const movedN = toScale(t.from, t.amountIn);
    const fromKey = targetKey(t.from);
    const toKey = targetKey(t.to);
    const alternatives: RouteAlternative[] = [];
    for (const [key, d] of donors) {
      if (alternatives.length >= p.maxAlternatives) break;
      if (key === fromKey || key === toKey || d.n < movedN) continue;
      const unit = 10n ** BigInt(p.scale - d.band.decimals);
      if (movedN % unit !== 0n) continue;
      if (p.routeAllows && !p.routeAllows(d.band, t.to, movedN)) continue;
      alternatives.push({
        from: d.band,
        amountIn: movedN / unit,
        why: `${d.band.chain} (${d.band.wallet}) has ${formatUnits(d.n, p.scale)} ${p.asset} of surplus no other transfer takes`,
      });
    }
    return alternatives.length > 0 ? { ...t, alternatives } : t;
  });
  return { transfers, spare };
}
