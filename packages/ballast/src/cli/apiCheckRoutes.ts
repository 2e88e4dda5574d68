/**
 * The routes `ballast api-check` quotes and how it verifies them: every ordered pair of an asset's holdings the
 * route rules allow (`policy.routes`, `policy.onlyListedRoutes`), for the smallest transfer the policy would send
 * (the route's `minTransfer`, else `policy.transferLimits.<asset>.minTransfer`, else `policy.minTransfer`), and
 * the real verifier (src/verify/verifyQuote.ts) with the same expectations, origin facts, deposit limits and
 * deadline lead as a cycle (src/cycle/checkQuote.ts), except the guaranteed-output floor the operator's fee caps
 * set: whether the policy takes a quote is judged apart (./apiCheckPolicy.ts), so a cap that refuses the probe
 * route does not make a working endpoint look broken. Reads chains (origin facts); signs nothing.
 */
import type { ChainAdapter } from '../chains/adapter.ts';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import { buildQuoteRequest, expectationsFor } from '../cycle/expectations.ts';
import { decimalsFromChains } from '../cycle/resolveTargets.ts';
import { routeRuleFor } from '../planner/routes.ts';
import type { PlannedTransfer, TargetBand } from '../planner/types.ts';
import type { ApiCheckRoute, ApiCheckVerify } from '../relay/apiCheck/apiCheck.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import { verifyQuote } from '../verify/verifyQuote.ts';
import { policyRefusal } from './apiCheckPolicy.ts';
import { originPriceFor } from '../cycle/originPrice.ts';
import type { TokenPriceCache } from '../relay/tokenPriceCache.ts';

/** A route as api-check plans it: the planned transfer (for expectations) keyed by its label. */
export type PlannedRoutes = Map<string, PlannedTransfer>;

/**
 * Lists the routes to quote.
 *
 * @param chains GET /chains when it parsed (decimals not in the config come from it), else null
 * @returns the routes (unquotable ones say why) and the planned transfers behind the quotable ones
 */
export function apiCheckRoutes(
  config: LoadedConfig,
  adapters: ReadonlyMap<string, ChainAdapter>,
  chains: ChainsResponse | null,
): { routes: ApiCheckRoute[]; planned: PlannedRoutes } {
  const routes: ApiCheckRoute[] = [];
  const planned: PlannedRoutes = new Map();
  const policy = config.policy;
  for (const [asset, entries] of Object.entries(config.assets)) {
    for (const from of entries) {
      for (const to of entries) {
        if (from === to || (from.chain === to.chain && from.wallet === to.wallet)) continue;
        const label = `${asset} ${from.chain}:${from.wallet}→${to.chain}:${to.wallet}`;
        const rule = routeRuleFor(policy, { asset, chain: from.chain, wallet: from.wallet }, { asset, chain: to.chain, wallet: to.wallet });
        if (!rule.allowed) continue; // a route the policy forbids is never quoted by a cycle either
        const band = (e: typeof from): TargetBand | string => {
          const adapter = adapters.get(e.chain);
          const decimals =
            e.decimals ?? (chains && adapter ? decimalsFromChains(chains, e.chainId, e.currency, (c) => adapter.currencyKey(c)) : null);
          if (decimals === null)
            return `the decimals of ${asset} on ${e.chain} are unknown (set assets.${asset}[].decimals, or GET /chains must list it)`;
          return {
            asset,
            chain: e.chain,
            chainId: e.chainId,
            currency: e.currency,
            wallet: e.wallet,
            address: e.address,
            decimals,
            min: 0n,
            target: 0n,
            max: 0n,
          };
        };
        const fromBand = band(from);
        const toBand = band(to);
        if (typeof fromBand === 'string' || typeof toBand === 'string') {
          routes.push({ label, unquotable: typeof fromBand === 'string' ? fromBand : (toBand as string) });
          continue;
        }
        const minWhole = rule.minTransfer ?? policy.transferLimits?.[asset]?.minTransfer ?? policy.minTransfer;
        let amountIn: bigint;
        try {
          amountIn = wholeToBaseUnits(minWhole, fromBand.decimals);
        } catch (error) {
          routes.push({ label, unquotable: `minTransfer ${minWhole}: ${shortErrorMessage(error)}` });
          continue;
        }
        const transfer: PlannedTransfer = {
          asset,
          from: fromBand,
          to: toBand,
          amountIn,
          reason: 'api-check: smallest transfer of the route',
        };
        planned.set(label, transfer);
        routes.push({
          label,
          request: buildQuoteRequest(transfer, {
            ...(config.relay.referrer !== undefined ? { referrer: config.relay.referrer } : {}),
            ...(policy.slippageBps !== undefined ? { slippageBps: policy.slippageBps } : {}),
          }),
        });
      }
    }
  }
  return { routes, planned };
}

/**
 * The verifier for api-check: origin facts from the origin chain, the policy's deadline horizon, the chain's deposit
 * limits and deadline lead, as a cycle verifies, with a guaranteed output above zero instead of the fee caps' floor;
 * a quote that verifies is then judged by the operator's policy (fee caps and floor, {@link policyRefusal}), its
 * origin cost priced as a cycle prices it (with `nativePrices` when the quote carries no price of the native currency).
 *
 * @param nativePrices GET /currencies/token/price through a cache (src/cycle/originPrice.ts); absent: such a quote's
 *   origin cost stays unknown
 * @returns a function that never throws: a failed origin read is reported as a refusal; `policy` says why the
 *   policy would skip a quote that verified
 */
export function apiCheckVerifier(
  config: LoadedConfig,
  adapters: ReadonlyMap<string, ChainAdapter>,
  planned: PlannedRoutes,
  chains: ChainsResponse,
  now: () => number,
  nativePrices?: TokenPriceCache,
): ApiCheckVerify {
  const ourWallets = Object.values(config.wallets).map((w) => w.address);
  return async (label, quote) => {
    const transfer = planned.get(label);
    const adapter = transfer ? adapters.get(transfer.from.chain) : undefined;
    if (!transfer || !adapter) return { ok: false, detail: `no planned transfer or chain adapter for ${label}` };
    try {
      const origin = await adapter.originFacts(quote, transfer.from.address, []);
      const items = quote.steps.reduce((n, step) => n + step.items.length, 0);
      const verdict = await verifyQuote({
        quote,
        chains,
        origin,
        limits: adapter.depositLimits,
        // A floor of 1 base unit: the endpoint must guarantee something; how much is the policy's question.
        expect: expectationsFor(transfer, 1n, { ourWallets, maxDeadlineSec: config.policy.maxDeadlineSec }),
        nowSec: Math.floor(now() / 1000) + adapter.minDeadlineLeadSec(transfer.amountIn, items),
      });
      if (verdict.ok) {
        const nativePrice = await originPriceFor({ chains: adapters, ...(nativePrices ? { nativePrices } : {}) }, transfer, quote, chains);
        const policy = policyRefusal(config, adapters, transfer, quote, nativePrice);
        return { ok: true, detail: `verified (${verdict.rules.length} rules)`, ...(policy !== undefined ? { policy } : {}) };
      }
      const failed = verdict.rules.filter((r) => !r.ok);
      return { ok: false, detail: `refused by ${failed.map((r) => r.rule).join(', ')}: ${failed[0]!.detail}` };
    } catch (error) {
      return { ok: false, detail: `not verified: ${shortErrorMessage(error)}` };
    }
  };
}
