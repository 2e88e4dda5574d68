/**
 * Turns the configured asset entries (whole units) into planner target bands in each chain's base units.
 * Decimals come from the config entry when given, else from GET /chains, else from the token contract.
 */
import { getAddress, isAddressEqual, zeroAddress, type Address } from 'viem';
import type { ChainsResponse } from '../relay/schemas.ts';
import type { TargetBand } from '../planner/types.ts';
import { wholeToBaseUnits } from '../core/units.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { readEvmDecimals } from '../chains/evm/readBalances.ts';
import type { CycleContext } from './context.ts';

/** A target that could not be resolved (its chain plans nothing this cycle). */
export interface UnresolvedTarget {
  asset: string;
  chain: string;
  error: string;
}

/**
 * Looks up a currency's decimals in a GET /chains document.
 *
 * @returns decimals, or null when the chain or currency is not listed
 */
export function decimalsFromChains(chains: ChainsResponse, chainId: number, currency: string): number | null {
  const chain = chains.chains.find((c) => c.id === chainId);
  if (!chain) return null;
  const all = [chain.currency, ...(chain.erc20Currencies ?? []), ...(chain.solverCurrencies ?? [])];
  const hit = all.find((c) => c.address.toLowerCase() === currency.toLowerCase());
  return hit ? hit.decimals : null;
}

/**
 * Resolves every configured target.
 *
 * @returns bands in base units (bigint) plus the entries that could not be resolved, with the reason
 */
export async function resolveTargets(
  ctx: CycleContext,
  chainsDoc: ChainsResponse | null,
): Promise<{ targets: TargetBand[]; unresolved: UnresolvedTarget[] }> {
  const targets: TargetBand[] = [];
  const unresolved: UnresolvedTarget[] = [];
  const pending: { asset: string; entry: (typeof ctx.config.assets)[string][number]; index: number }[] = [];
  for (const [asset, entries] of Object.entries(ctx.config.assets)) {
    entries.forEach((entry, index) => pending.push({ asset, entry, index }));
  }
  // Decimals not in config or /chains: one multicall per chain for the missing ones.
  const missing = new Map<string, Address[]>();
  const known = new Map<string, number>();
  for (const { entry } of pending) {
    const chain = ctx.chains.get(entry.chain);
    if (!chain) continue;
    const key = `${entry.chain}:${entry.currency.toLowerCase()}`;
    const d = entry.decimals ?? (chainsDoc ? decimalsFromChains(chainsDoc, chain.chainId, entry.currency) : null);
    if (d !== null && d !== undefined) known.set(key, d);
    else if (isAddressEqual(getAddress(entry.currency), zeroAddress)) known.set(key, 18);
    else missing.set(entry.chain, [...(missing.get(entry.chain) ?? []), getAddress(entry.currency)]);
  }
  for (const [chainName, tokens] of missing) {
    const chain = ctx.chains.get(chainName)!;
    try {
      const decimals = await readEvmDecimals(chain.publicClient, tokens);
      tokens.forEach((t, i) => {
        const d = decimals[i];
        if (d !== null && d !== undefined) known.set(`${chainName}:${t.toLowerCase()}`, d);
      });
    } catch (error) {
      ctx.logger.warn({ chain: chainName, err: shortErrorMessage(error) }, 'cannot read token decimals');
    }
  }
  for (const { asset, entry } of pending) {
    const chain = ctx.chains.get(entry.chain);
    const wallet = ctx.wallets.get(entry.wallet);
    const decimals = known.get(`${entry.chain}:${entry.currency.toLowerCase()}`);
    if (!chain || !wallet) {
      unresolved.push({ asset, chain: entry.chain, error: `chain or wallet not configured` });
      continue;
    }
    if (decimals === undefined) {
      unresolved.push({ asset, chain: entry.chain, error: `decimals of ${entry.currency} unknown (not in /chains, not readable on chain); set decimals in the config` });
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
    });
  }
  return { targets, unresolved };
}
