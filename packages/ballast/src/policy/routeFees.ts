/**
 * The fee caps that judge one transfer's quote: the global `policy.maxFees`, with the keys of the matching
 * `policy.routes` entry's `maxFees` put over them one by one (docs/relay-contract.md "Fee components": execution, swap,
 * platform, app). Pure.
 */
import { routeRuleFor, type RouteHolding } from '../planner/routes.ts';
import type { RouteRules } from '../planner/types.ts';
import { FEE_COMPONENTS, type FeeComponent } from './feeBreakdown.ts';
import type { FeeCap, FeeCaps } from './feePolicy.ts';

/**
 * Fee caps for a transfer from `planned.from` to `planned.to`. Each key the route's entry gives (`totalBps`,
 * `totalUsd`, `components.<c>.usd`, `components.<c>.bps`) replaces the global one; a key it leaves out keeps the
 * global cap, so a route can loosen or tighten a cap but never drop one. Used for `evaluateFees` and for the
 * `totalBps` of `minimumAcceptableOutput` alike, so a route's caps judge both the API's fee account and the order's
 * guaranteed output.
 *
 * @param policy `maxFees` (USD decimal strings, integer bps) and the route rules (`routes`, `onlyListedRoutes`)
 * @param planned the transfer's holdings (asset, chain and wallet names)
 * @returns the merged caps (the global object itself when no entry with `maxFees` matches)
 * @example
 * feeCapsFor({ maxFees: { totalBps: 30 }, routes: [{ from: '*', to: 'solana', maxFees: { totalBps: 60 } }] }, planned)
 * // → { totalBps: 60 } for a transfer to solana, { totalBps: 30 } for any other
 */
export function feeCapsFor(policy: RouteRules & { maxFees: FeeCaps }, planned: { from: RouteHolding; to: RouteHolding }): FeeCaps {
  const own = routeRuleFor(policy, planned.from, planned.to).maxFees;
  if (!own) return policy.maxFees;
  const global = policy.maxFees;
  const components: Partial<Record<FeeComponent, FeeCap>> = {};
  for (const c of FEE_COMPONENTS) {
    const cap = { ...global.components?.[c], ...defined(own.components?.[c]) };
    if (cap.usd !== undefined || cap.bps !== undefined) components[c] = cap;
  }
  const totalBps = own.totalBps ?? global.totalBps;
  const totalUsd = own.totalUsd ?? global.totalUsd;
  return {
    ...(totalBps !== undefined ? { totalBps } : {}),
    ...(totalUsd !== undefined ? { totalUsd } : {}),
    ...(Object.keys(components).length > 0 ? { components } : {}),
  };
}

/** The cap's keys that are set (an explicit `undefined` must not erase a global key). */
function defined(cap: FeeCap | undefined): FeeCap {
  return { ...(cap?.usd !== undefined ? { usd: cap.usd } : {}), ...(cap?.bps !== undefined ? { bps: cap.bps } : {}) };
}
