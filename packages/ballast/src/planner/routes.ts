/**
 * Per-route rules (`policy.routes`, `policy.onlyListedRoutes`), resolved for one (origin, destination) pair of
 * holdings. Pure. Entries are tried in order and the first one that matches wins, like firewall rules; a route no
 * entry matches is allowed with the asset's own bounds and the global fee caps, unless `onlyListedRoutes` is set.
 */
import { formatUnits } from 'viem';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import type { FeeCaps } from '../policy/feePolicy.ts';
import { PlanInputError } from './errors.ts';
import type { RouteRule, RouteRules, TargetBand } from './types.ts';

/** The parts of a holding a route end is matched against. */
export type RouteHolding = Pick<TargetBand, 'asset' | 'chain' | 'wallet'>;

/** What the rules say about one route. */
export interface RouteResolution {
  /** False: nothing may move on this route (an entry with `allow: false`, or unlisted under `onlyListedRoutes`). */
  allowed: boolean;
  /** Position of the matching entry in `policy.routes`; absent when none matched. */
  index?: number;
  /**
   * Where the decision comes from, for explanations: `"policy.routes[1]"`, or `"policy.onlyListedRoutes (no entry
   * of policy.routes matches)"` when an unlisted route is refused; absent when no rule applies.
   */
  text?: string;
  /** The entry's minimum per transfer, whole units of the asset (overrides the asset's). */
  minTransfer?: string;
  /** The entry's maximum per transfer, whole units of the asset (overrides the asset's). */
  maxTransfer?: string;
  /** The entry's fee caps; each key given overrides the global one (src/policy/routeFees.ts). */
  maxFees?: FeeCaps;
  /** The entry's sign-off threshold and quorum (policy.approvals), over the asset's and the defaults. */
  approvals?: RouteRule['approvals'];
}

/**
 * Whether one end of an entry (`"*"`, `"<chain>"` or `"<chain>:<wallet>"`) names a holding.
 *
 * @param end the entry's `from` or `to`
 * @param holding the holding's chain and wallet names (as under `assets:`)
 */
export function routeEndMatches(end: string, holding: Pick<RouteHolding, 'chain' | 'wallet'>): boolean {
  if (end === '*') return true;
  const [chain, wallet] = end.split(':') as [string, string | undefined];
  return chain === holding.chain && (wallet === undefined || wallet === holding.wallet);
}

/** Whether `rule` matches a transfer of `from.asset` from `from` to `to`. */
export function routeRuleMatches(rule: RouteRule, from: RouteHolding, to: RouteHolding): boolean {
  return (rule.asset === undefined || rule.asset === from.asset) && routeEndMatches(rule.from, from) && routeEndMatches(rule.to, to);
}

/**
 * Resolves the rules for a transfer from `from` to `to` (same asset): the first matching entry of `rules.routes`,
 * or none.
 *
 * @param rules `policy.routes` and `policy.onlyListedRoutes` (a `PlanInput` or the config's policy section)
 * @returns allowed or not, the entry's overrides and where the decision comes from
 * @example
 * routeRuleFor({ routes: [{ from: 'alpha', to: 'beta', allow: false }] }, alphaUsdc, betaUsdc)
 * // → { allowed: false, index: 0, text: 'policy.routes[0]' }
 */
export function routeRuleFor(rules: RouteRules, from: RouteHolding, to: RouteHolding): RouteResolution {
  const routes = rules.routes ?? [];
  const index = routes.findIndex((r) => routeRuleMatches(r, from, to));
  if (index < 0) {
    return rules.onlyListedRoutes
      ? { allowed: false, text: 'policy.onlyListedRoutes (no entry of policy.routes matches)' }
      : { allowed: true };
  }
  const rule = routes[index]!; // found just above
  return {
    allowed: rule.allow !== false,
    index,
    text: `policy.routes[${index}]`,
    ...(rule.minTransfer !== undefined ? { minTransfer: rule.minTransfer } : {}),
    ...(rule.maxTransfer !== undefined ? { maxTransfer: rule.maxTransfer } : {}),
    ...(rule.maxFees !== undefined ? { maxFees: rule.maxFees } : {}),
    ...(rule.approvals !== undefined ? { approvals: rule.approvals } : {}),
  };
}

/** Transfer bounds of one (donor, deficit) pair, base units at the asset's common scale, or why it is refused. */
export type PairBounds =
  | {
      allowed: true;
      minN: bigint;
      maxN: bigint;
      /** Said in the transfer's reason when an entry matched, e.g. "route alpha → beta per policy.routes[0]: min 500, max 20000 USDC". */
      note?: string;
    }
  | { allowed: false; why: string };

/**
 * Builds the per-pair bounds of one asset: each pair gets its entry's `minTransfer` / `maxTransfer` when set,
 * else the asset's, converted to `scale` decimals with `wholeToBaseUnits` (like `transferBoundsAt`).
 *
 * @param defaults the asset's bounds at `scale` (`transferBoundsAt`)
 * @returns undefined when there are no rules (every pair has `defaults`), else the function
 * @throws PlanInputError (from the returned function) when an entry's amount has more fractional digits than
 *   `scale` allows
 */
export function pairBoundsAt(
  rules: RouteRules,
  asset: string,
  scale: number,
  defaults: { minN: bigint; maxN: bigint },
): ((from: TargetBand, to: TargetBand) => PairBounds) | undefined {
  if ((rules.routes ?? []).length === 0 && !rules.onlyListedRoutes) return undefined;
  const fmt = (n: bigint): string => formatUnits(n, scale);
  return (from, to) => {
    const r = routeRuleFor(rules, from, to);
    if (!r.allowed) return { allowed: false, why: `not allowed by ${r.text}` };
    if (r.index === undefined) return { allowed: true, ...defaults };
    const at = (field: 'minTransfer' | 'maxTransfer', fallback: bigint): bigint =>
      r[field] === undefined ? fallback : wholeAt(r[field], scale, `routes[${r.index}].${field}`, asset);
    const minN = at('minTransfer', defaults.minN);
    const maxN = at('maxTransfer', defaults.maxN);
    const fees = r.maxFees ? ', own fee caps' : '';
    return {
      allowed: true,
      minN,
      maxN,
      note: `route ${from.chain} → ${to.chain} per ${r.text}: min ${fmt(minN)}, max ${fmt(maxN)} ${asset}${fees}`,
    };
  };
}

/**
 * The smallest minimum any route of `asset` may have at `scale`: the asset's own, or a lower `minTransfer` of an
 * entry that can apply to the asset. A deficit below it is too small for every route.
 *
 * @throws PlanInputError when an entry's amount has more fractional digits than `scale` allows
 */
export function lowestMinAt(rules: RouteRules, asset: string, scale: number, assetMinN: bigint): bigint {
  let lowest = assetMinN;
  (rules.routes ?? []).forEach((r, i) => {
    if (r.allow === false || r.minTransfer === undefined || (r.asset !== undefined && r.asset !== asset)) return;
    const n = wholeAt(r.minTransfer, scale, `routes[${i}].minTransfer`, asset);
    if (n < lowest) lowest = n;
  });
  return lowest;
}

function wholeAt(value: string, scale: number, field: string, asset: string): bigint {
  try {
    return wholeToBaseUnits(value, scale);
  } catch (cause) {
    throw new PlanInputError(field, `${value} cannot be expressed in ${asset} at ${scale} decimals`, 'use fewer fractional digits', {
      cause,
    });
  }
}
