/**
 * Sweeping (pure): a surplus that no deficit took this cycle may be moved to the asset's home holding
 * (`policy.sweepTo.<asset>`, off by default). It runs after the deficits were served, so it never takes what a
 * deficit needed; each donor sends its leftover (within the transfer bounds) to the home holding, which is never a
 * donor to itself.
 */
import { formatUnits } from 'viem';
import { targetKey } from './effective.ts';
import { matchAsset, type MatchSide } from './match.ts';
import type { PairBounds } from './routes.ts';
import type { PlanDecision, PlannedTransfer, TargetBand } from './types.ts';

/** Where an asset's unused surpluses go: a chain, and the wallet when several hold the asset there. */
export interface SweepHome {
  chain: string;
  wallet?: string;
}

/** Parameters of {@link sweepLeftovers}; `...N` amounts at `scale` decimals. */
export interface SweepParameters {
  asset: string;
  scale: number;
  minN: bigint;
  maxN: bigint;
  home: SweepHome;
  targets: readonly TargetBand[];
  surpluses: readonly MatchSide[];
  /** The transfers the deficits already took this cycle. */
  transfers: readonly PlannedTransfer[];
  /** Per-route bounds or refusal (`policy.routes`); absent: every route has [minN, maxN]. */
  boundsFor?: (from: TargetBand, to: TargetBand) => PairBounds;
}

/**
 * The sweep transfers of one asset, and decisions saying what was swept or why not.
 *
 * @returns transfers donor → home (origin base units) and decisions (`sweep`, plus the matcher's bound and route
 *   decisions: a route `policy.routes` refuses is not swept)
 */
export function sweepLeftovers(p: SweepParameters): { transfers: PlannedTransfer[]; decisions: PlanDecision[] } {
  const home = p.targets.find((t) => t.chain === p.home.chain && (p.home.wallet === undefined || t.wallet === p.home.wallet));
  if (!home) {
    return {
      transfers: [],
      decisions: [
        {
          asset: p.asset,
          kind: 'sweep',
          detail: `${p.asset}: home ${p.home.chain} is not a holding of ${p.asset} this cycle; nothing swept`,
        },
      ],
    };
  }
  const toScale = (t: TargetBand, n: bigint) => n * 10n ** BigInt(p.scale - t.decimals);
  const given = new Map<string, bigint>();
  for (const t of p.transfers) given.set(targetKey(t.from), (given.get(targetKey(t.from)) ?? 0n) + toScale(t.from, t.amountIn));
  const homeKey = targetKey(home);
  const leftovers: MatchSide[] = [];
  for (const s of p.surpluses) {
    const key = s.key ?? targetKey(s.band);
    if (key === homeKey) continue;
    const left = s.amountN - (given.get(key) ?? 0n);
    if (left > 0n) leftovers.push({ ...s, amountN: left, why: `${s.why}; ${formatUnits(left, p.scale)} ${p.asset} unused this cycle` });
  }
  if (leftovers.length === 0) return { transfers: [], decisions: [] };
  const total = leftovers.reduce((n, s) => n + s.amountN, 0n);
  const sink: MatchSide = { band: home, label: home.chain, why: `sweep to home ${home.chain} (policy.sweepTo.${p.asset})`, amountN: total };
  const matched = matchAsset({
    asset: p.asset,
    scale: p.scale,
    minN: p.minN,
    maxN: p.maxN,
    deficits: [sink],
    surpluses: leftovers,
    ...(p.boundsFor ? { boundsFor: p.boundsFor } : {}),
  });
  const swept = matched.transfers.reduce((n, t) => n + toScale(t.from, t.amountIn), 0n);
  const decisions: PlanDecision[] = [
    {
      asset: p.asset,
      chain: home.chain,
      kind: 'sweep',
      detail: `${p.asset}: ${formatUnits(swept, p.scale)} of ${formatUnits(total, p.scale)} unused surplus swept to home ${home.chain}`,
    },
    ...matched.decisions.filter(
      (d) => d.kind === 'below_min_transfer' || d.kind === 'capped_max_transfer' || d.kind === 'route_not_allowed',
    ),
  ];
  return { transfers: matched.transfers, decisions };
}
