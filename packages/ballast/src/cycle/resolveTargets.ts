/**
 * Turns the configured asset entries (whole units) into planner target bands in each chain's base units.
 * Decimals come from the config entry when given, else from GET /chains, else from the token itself; every
 * token's decimals are read on chain (ERC-20 `decimals()`, SPL mint) through the chain's adapter and must agree
 * with the config or GET /chains, or its chain plans nothing.
 * Decimals read once are kept for the life of the process (a token's decimals do not change).
 */
import { DEFAULT_WEIGHT_TOLERANCE_BPS } from '../planner/weights.ts';
import type { ChainsResponse } from '@ballast/protocol/relay/schemas.ts';
import type { ChainAdapter } from '../chains/adapter.ts';
import type { TargetBand } from '../planner/types.ts';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { CycleContext } from './context.ts';

/** What resolving targets uses: the config's assets and chains, the chain adapters, the wallets and the logger. */
export type ResolveTargetsDeps = Pick<CycleContext, 'config' | 'chains' | 'wallets' | 'logger'>;

/** A target that could not be resolved (its chain plans nothing this cycle). */
export interface UnresolvedTarget {
  asset: string;
  chain: string;
  error: string;
}

/**
 * Looks up a currency's decimals in a GET /chains document.
 *
 * @param key the form in which currencies of that chain compare equal (EVM: lower case; Solana, Bitcoin: as is)
 * @returns decimals, or null when the chain or currency is not listed
 */
export function decimalsFromChains(
  chains: ChainsResponse,
  chainId: number,
  currency: string,
  key: (currency: string) => string = (c) => c.toLowerCase(),
): number | null {
  const chain = chains.chains.find((c) => c.id === chainId);
  if (!chain) return null;
  const all = [chain.currency, ...(chain.erc20Currencies ?? []), ...(chain.solverCurrencies ?? [])];
  const hit = all.find((c) => key(c.address) === key(currency));
  return hit ? hit.decimals : null;
}

/**
 * Resolves every configured target.
 *
 * @returns bands in base units (bigint) plus the entries that could not be resolved, with the reason
 */
export async function resolveTargets(
  ctx: ResolveTargetsDeps,
  chainsDoc: ChainsResponse | null,
): Promise<{ targets: TargetBand[]; unresolved: UnresolvedTarget[] }> {
  const targets: TargetBand[] = [];
  const unresolved: UnresolvedTarget[] = [];
  const pending: { asset: string; entry: (typeof ctx.config.assets)[string][number]; index: number }[] = [];
  for (const [asset, entries] of Object.entries(ctx.config.assets)) {
    entries.forEach((entry, index) => pending.push({ asset, entry, index }));
  }
  // Decimals: claimed by the config entry or GET /chains, and read from every token contract (one multicall per
  // chain); a claim the contract contradicts makes that chain plan nothing (amounts would be off by powers of 10).
  const claimed = new Map<string, { decimals: number; source: string }>();
  const tokens = new Map<string, string[]>();
  for (const { asset, entry, index } of pending) {
    const chain = ctx.chains.get(entry.chain);
    if (!chain) continue;
    const currencyKey = chain.currencyKey(entry.currency);
    const key = `${entry.chain}:${currencyKey}`;
    const fromChains = chainsDoc ? decimalsFromChains(chainsDoc, chain.chainId, entry.currency, (c) => chain.currencyKey(c)) : null;
    if (entry.decimals !== undefined) claimed.set(key, { decimals: entry.decimals, source: `assets.${asset}[${index}].decimals` });
    else if (fromChains !== null && !claimed.has(key))
      claimed.set(key, { decimals: fromChains, source: `GET /chains (${entry.currency} on chain ${chain.chainId})` });
    if (currencyKey === chain.currencyKey(chain.nativeCurrency)) {
      if (!claimed.has(key)) claimed.set(key, { decimals: chain.nativeDecimals, source: 'the native currency' });
    } else if (!(tokens.get(entry.chain) ?? []).some((t) => chain.currencyKey(t) === currencyKey)) {
      tokens.set(entry.chain, [...(tokens.get(entry.chain) ?? []), entry.currency]);
    }
  }
  const known = new Map<string, number>();
  const chainErrors = new Map<string, string>();
  for (const [key, c] of claimed) known.set(key, c.decimals);
  for (const [chainName, list] of tokens) {
    const onChain = await contractDecimals(ctx, ctx.chains.get(chainName)!, list); // tokens only of configured chains
    // A node that cannot be asked: the claims stand for now (its balance read, at the same node, decides whether
    // the chain is readable this cycle); they are checked on the first cycle that can read the contracts.
    if (onChain === null) continue;
    const chain = ctx.chains.get(chainName)!;
    list.forEach((token, i) => {
      const key = `${chainName}:${chain.currencyKey(token)}`;
      const actual = onChain[i];
      if (actual === null || actual === undefined) return; // no decimals() on the contract: the claim stands
      const claim = claimed.get(key);
      if (claim && claim.decimals !== actual) {
        chainErrors.set(
          chainName,
          `${claim.source} says ${claim.decimals} decimals but the token contract ${token} on ${chainName} says ${actual}; ` +
            `fix the config (or leave decimals out to use the contract's); chain ${chainName} plans nothing until then`,
        );
      }
      known.set(key, claim?.decimals ?? actual);
    });
  }
  for (const { asset, entry } of pending) {
    const chain = ctx.chains.get(entry.chain);
    const wallet = ctx.wallets.get(entry.wallet);
    const decimals = chain ? known.get(`${entry.chain}:${chain.currencyKey(entry.currency)}`) : undefined;
    if (!chain || !wallet) {
      unresolved.push({ asset, chain: entry.chain, error: `chain or wallet not configured` });
      continue;
    }
    const chainError = chainErrors.get(entry.chain);
    if (chainError !== undefined) {
      unresolved.push({ asset, chain: entry.chain, error: chainError });
      continue;
    }
    if (decimals === undefined) {
      unresolved.push({
        asset,
        chain: entry.chain,
        error: `decimals of ${entry.currency} unknown (not in /chains, not readable on chain); set decimals in the config`,
      });
      continue;
    }
    targets.push({
      asset,
      chain: entry.chain,
      chainId: chain.chainId,
      currency: entry.currency,
      wallet: entry.wallet,
      address: wallet.address,
      decimals,
      min: wholeToBaseUnits(entry.min, decimals),
      target: wholeToBaseUnits(entry.target, decimals),
      max: wholeToBaseUnits(entry.max, decimals),
      ...gasReserveOf(ctx, entry.chain, chain, entry.currency, decimals),
      ...(entry.weight !== undefined ? { weight: entry.weight, toleranceBps: entry.toleranceBps ?? DEFAULT_WEIGHT_TOLERANCE_BPS } : {}),
    });
  }
  return { targets, unresolved };
}

/** Decimals read from tokens, per chain adapter (kept for the life of the process). */
const decimalsCache = new WeakMap<ChainAdapter, Map<string, number | null>>();

/**
 * Decimals of each token on one chain (null for a token that has none), from the cache or one batched read.
 *
 * @returns decimals in order, or null (logged) when the node could not be asked
 */
async function contractDecimals(ctx: ResolveTargetsDeps, chain: ChainAdapter, tokens: string[]): Promise<(number | null)[] | null> {
  const cache = decimalsCache.get(chain) ?? new Map<string, number | null>();
  decimalsCache.set(chain, cache);
  const unread = tokens.filter((t) => !cache.has(chain.currencyKey(t)));
  if (unread.length > 0) {
    try {
      const read = await chain.readDecimals(unread);
      unread.forEach((t, i) => cache.set(chain.currencyKey(t), read[i] ?? null));
    } catch (error) {
      ctx.logger.warn({ chain: chain.name, err: shortErrorMessage(error) }, `chains.${chain.name}: cannot read token decimals`);
      return null;
    }
  }
  return tokens.map((t) => cache.get(chain.currencyKey(t)) ?? null);
}

/**
 * The gas reserve of a native holding (`chains.<name>.gasReserve`, default `minGasBalance`), base units; nothing for
 * a token or a zero reserve.
 */
function gasReserveOf(
  ctx: ResolveTargetsDeps,
  chainName: string,
  chain: ChainAdapter,
  currency: string,
  decimals: number,
): { reserve?: bigint } {
  if (chain.currencyKey(currency) !== chain.currencyKey(chain.nativeCurrency)) return {};
  const cfg = ctx.config.chains[chainName];
  const whole = cfg?.gasReserve ?? cfg?.minGasBalance;
  const reserve = whole === undefined ? 0n : wholeToBaseUnits(whole, decimals);
  return reserve > 0n ? { reserve } : {};
}
