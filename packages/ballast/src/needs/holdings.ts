/**
 * The holdings a need may come from, with their tokens' decimals (to convert a need's whole-unit amount to base
 * units and back). Decimals are learnt as the cycle learns them (src/cycle/resolveTargets.ts): the config entry's
 * `decimals`, else GET /chains, else the token contract, checked against the contract. A holding whose decimals
 * come from the config needs no network.
 */
import type { LoadedConfig } from '../config/loadConfig.ts';
import type { CycleContext } from '../cycle/context.ts';
import { resolveTargets } from '../cycle/resolveTargets.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { NeedHolding } from './resolveNeed.ts';

/** Every configured holding, with the decimals its config entry states (null when it states none). */
export function configNeedHoldings(config: Pick<LoadedConfig, 'assets'>): NeedHolding[] {
  return Object.values(config.assets).flatMap((entries) =>
    entries.map((e) => ({ asset: e.asset, chain: e.chain, wallet: e.wallet, decimals: e.decimals ?? null })),
  );
}

/** What {@link needHoldingsSource} reads decimals with: the wired app's config, chain adapters, Relay client and logger. */
export type NeedHoldingsDeps = Pick<CycleContext, 'config' | 'chains' | 'wallets' | 'logger' | 'relay' | 'chainsCache'>;

/**
 * A source of the configured holdings with their decimals, for the needs API and `ballast needs add`. Holdings
 * whose config entry states decimals are answered at once; the others are resolved like the cycle does (GET
 * /chains through the cache, the token contracts through the chain adapters). Once every holding's decimals are
 * known the answer is kept for the life of the process (a token's decimals do not change); until then each call
 * tries again, and a holding still unknown carries the reason.
 */
export function needHoldingsSource(deps: NeedHoldingsDeps): () => Promise<NeedHolding[]> {
  let known: NeedHolding[] | null = null;
  return async () => {
    if (known) return known;
    const holdings = configNeedHoldings(deps.config);
    if (holdings.every((h) => h.decimals !== null)) return (known = holdings);
    let chainsDoc = null;
    try {
      chainsDoc = deps.chainsCache ? await deps.chainsCache.get() : (await deps.relay.getChains()).chains;
    } catch (error) {
      deps.logger.warn({ component: 'needs', err: shortErrorMessage(error) }, 'GET /chains failed; token decimals are read on chain only');
    }
    const { targets, unresolved } = await resolveTargets(deps, chainsDoc);
    const resolved = holdings.map((h): NeedHolding => {
      const target = targets.find((t) => t.asset === h.asset && t.chain === h.chain && t.wallet === h.wallet);
      if (target) return { ...h, decimals: target.decimals };
      const why = unresolved.find((u) => u.asset === h.asset && u.chain === h.chain);
      return { ...h, decimals: null, decimalsError: why?.error ?? 'not resolved' };
    });
    if (resolved.every((h) => h.decimals !== null)) known = resolved;
    return resolved;
  };
}
