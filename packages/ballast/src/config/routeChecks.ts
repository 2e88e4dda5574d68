/**
 * Cross-field checks of `policy.routes` and `policy.onlyListedRoutes` (src/planner/routes.ts resolves them each
 * cycle): every chain, wallet and asset an entry names exists; its bounds leave an amount to move; its fee caps keep
 * the global rules; and it can match at least one route between configured holdings that no earlier entry already
 * takes (first match wins, so a shadowed entry would be silently dead).
 */
import { routeRuleMatches, type RouteHolding } from '../planner/routes.ts';
import { compareDecimals, type ParsedParts } from './checks.ts';
import type { ConfigIssue } from './errors.ts';
import type { PolicyConfig, RouteRuleConfig } from './schema.ts';

/**
 * Runs the checks of `policy.routes`.
 *
 * @param policy the parsed policy section
 * @param parts names and parsed assets of the whole file
 * @param issues receives one issue per problem, with its YAML path and fix
 */
export function checkRoutes(policy: PolicyConfig, parts: ParsedParts, issues: ConfigIssue[]): void {
  const routes = policy.routes ?? [];
  if (policy.onlyListedRoutes && !routes.some((r) => r.allow)) {
    issues.push({
      path: 'policy.onlyListedRoutes',
      message: 'true, but no policy.routes entry allows a route, so nothing could ever move; list the allowed routes or set it to false',
    });
  }
  const known: boolean[] = routes.map((rule, i) => checkNames(rule, `policy.routes[${i}]`, parts, issues));
  routes.forEach((rule, i) => {
    const at = `policy.routes[${i}]`;
    checkBounds(rule, at, policy, parts, issues);
    checkFees(rule, at, policy, issues);
    checkRouteApprovals(rule, at, policy, issues);
  });
  checkReachable(routes, known, parts, issues);
}

/** `policy.routes[i].approvals`: needs `policy.approvals`, and a quorum the approvers can reach. */
function checkRouteApprovals(rule: RouteRuleConfig, at: string, policy: PolicyConfig, issues: ConfigIssue[]): void {
  if (!rule.approvals) return;
  if (!policy.approvals) {
    issues.push({
      path: `${at}.approvals`,
      message: 'sign-off rules for a route need policy.approvals (its approvers and defaults); add that section or remove this key',
    });
    return;
  }
  const count = Object.keys(policy.approvals.approvers).length;
  if (rule.approvals.required !== undefined && rule.approvals.required > count) {
    issues.push({
      path: `${at}.approvals.required`,
      message: `${rule.approvals.required} sign-offs cannot be reached: policy.approvals lists ${count} approver(s); lower it or add approvers`,
    });
  }
}

/** Unknown chains, wallets and assets; returns whether every name the entry uses exists. */
function checkNames(rule: RouteRuleConfig, at: string, parts: ParsedParts, issues: ConfigIssue[]): boolean {
  let ok = true;
  for (const side of ['from', 'to'] as const) {
    if (rule[side] === '*') continue;
    const [chain, wallet] = rule[side].split(':') as [string, string | undefined];
    if (!parts.chainNames.has(chain)) {
      issues.push({ path: `${at}.${side}`, message: `unknown chain "${chain}"; use a name defined under chains:, or "*"` });
      ok = false;
    }
    if (wallet !== undefined && !parts.walletNames.has(wallet)) {
      issues.push({
        path: `${at}.${side}`,
        message: `unknown wallet "${wallet}"; use a name defined under wallets:, or write just the chain`,
      });
      ok = false;
    }
  }
  if (rule.asset !== undefined && !parts.assets.some((a) => a.symbol === rule.asset)) {
    issues.push({
      path: `${at}.asset`,
      message: `unknown asset "${rule.asset}"; use a name defined under assets:, or remove asset to match every asset`,
    });
    ok = false;
  }
  return ok;
}

/** min > max, on the entry itself or together with the asset bounds it keeps; bounds on a refused route. */
function checkBounds(rule: RouteRuleConfig, at: string, policy: PolicyConfig, parts: ParsedParts, issues: ConfigIssue[]): void {
  if (!rule.allow) {
    for (const key of ['minTransfer', 'maxTransfer', 'maxFees'] as const) {
      if (rule[key] !== undefined)
        issues.push({ path: `${at}.${key}`, message: `a route with allow: false moves nothing; remove ${key} or allow: false` });
    }
    return;
  }
  if (rule.maxTransfer !== undefined && compareDecimals(rule.maxTransfer, '0') === 0) {
    issues.push({
      path: `${at}.maxTransfer`,
      message: 'must be above 0; set the largest transfer on this route, or allow: false to refuse it',
    });
    return;
  }
  if (rule.minTransfer !== undefined && rule.maxTransfer !== undefined) {
    if (compareDecimals(rule.minTransfer, rule.maxTransfer) > 0) {
      issues.push({
        path: `${at}.minTransfer`,
        message: `minTransfer ${rule.minTransfer} is above maxTransfer ${rule.maxTransfer}; lower it or raise maxTransfer`,
      });
    }
    return;
  }
  if (rule.minTransfer === undefined && rule.maxTransfer === undefined) return;
  // One bound given: the other is the asset's (policy.transferLimits.<asset>, else policy's).
  const assets = rule.asset !== undefined ? [rule.asset] : [...new Set(parts.assets.map((a) => a.symbol))];
  for (const asset of assets) {
    const own = policy.transferLimits?.[asset];
    const source = own ? `policy.transferLimits.${asset}` : 'policy';
    const limits = own ?? policy;
    if (rule.minTransfer !== undefined && compareDecimals(rule.minTransfer, limits.maxTransfer) > 0) {
      issues.push({
        path: `${at}.minTransfer`,
        message: `minTransfer ${rule.minTransfer} is above ${asset}'s maxTransfer ${limits.maxTransfer} (${source}), so nothing could move; lower it or give the entry its own maxTransfer`,
      });
    }
    if (rule.maxTransfer !== undefined && compareDecimals(limits.minTransfer, rule.maxTransfer) > 0) {
      issues.push({
        path: `${at}.maxTransfer`,
        message: `maxTransfer ${rule.maxTransfer} is below ${asset}'s minTransfer ${limits.minTransfer} (${source}), so nothing could move; raise it or give the entry its own minTransfer`,
      });
    }
  }
}

/** The global rule on the fee caps, applied to the caps this route ends up with (its keys over the global ones). */
function checkFees(rule: RouteRuleConfig, at: string, policy: PolicyConfig, issues: ConfigIssue[]): void {
  const totalBps = rule.maxFees?.totalBps;
  if (totalBps === undefined) return;
  const sum = (policy.slippageBps ?? 0) + totalBps;
  if (sum >= 10_000) {
    issues.push({
      path: `${at}.maxFees.totalBps`,
      message: `slippageBps + totalBps is ${sum} bps on this route, which would accept losing the whole transfer; keep the sum well below 10000`,
    });
  }
}

/**
 * Entries that can never match: none of the routes between configured holdings (same asset, two different holdings)
 * matches them, or every route they match is taken first by an earlier entry. Entries naming unknown things are
 * left out (already reported).
 */
function checkReachable(routes: readonly RouteRuleConfig[], known: readonly boolean[], parts: ParsedParts, issues: ConfigIssue[]): void {
  const holdings: RouteHolding[] = parts.assets.map((a) => ({ asset: a.symbol, chain: a.entry.chain, wallet: a.entry.wallet }));
  const matched = routes.map(() => 0);
  const takenBy = routes.map(() => new Set<number>());
  for (const from of holdings) {
    for (const to of holdings) {
      if (from.asset !== to.asset || (from.chain === to.chain && from.wallet === to.wallet)) continue;
      let first: number | undefined;
      routes.forEach((rule, i) => {
        if (!routeRuleMatches(rule, from, to)) return;
        if (first === undefined) {
          first = i;
          matched[i]! += 1;
        } else takenBy[i]!.add(first);
      });
    }
  }
  routes.forEach((rule, i) => {
    if (!known[i] || matched[i]! > 0) return;
    const at = `policy.routes[${i}]`;
    const what = `from ${rule.from} to ${rule.to}${rule.asset !== undefined ? ` for ${rule.asset}` : ''}`;
    issues.push(
      takenBy[i]!.size > 0
        ? {
            path: at,
            message: `can never match: every route ${what} is matched first by ${[...takenBy[i]!].map((j) => `policy.routes[${j}]`).join(', ')} (the first matching entry wins); move it above or remove it`,
          }
        : {
            path: at,
            message: `can never match: no two holdings under assets: form a route ${what}; fix from, to or asset, or remove the entry`,
          },
    );
  });
}
