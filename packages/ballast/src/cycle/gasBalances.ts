/**
 * Signer gas balances: the native balance of every wallet on every chain it holds an asset on (the wallets that
 * sign there), read once per cycle next to the target balances. EVM: `eth_getBalance`; Solana: lamports;
 * Bitcoin: the wallet's BTC (its own gas), without the miner-fee reserve subtracted.
 *
 * Sets `ballast_gas_balance_units{chain, wallet}` and, where `chains.<name>.minGasBalance` is set,
 * `ballast_gas_balance_min_units` and `ballast_gas_balance_low` (1 below the minimum, with a warn log line naming
 * the wallet, chain, balance and minimum). A failed read never breaks the cycle: it is logged, counted in
 * `ballast_rpc_errors_total` (by the adapter wrapper, src/chains/rpcErrorCounting.ts) and the last values stay.
 */
import { formatUnits, parseUnits } from 'viem';
import type { ChainAdapter } from '../chains/adapter.ts';
import { nativeBalanceReaderOf } from '../chains/capabilities.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { unitsToGauge } from '../metrics/units.ts';
import type { CycleContext } from './context.ts';

/** One signer gas balance read. `amount` in the chain's native base units, null when the read failed. */
export interface GasReading {
  chain: string;
  wallet: string;
  amount: bigint | null;
  /** `chains.<name>.minGasBalance` in base units, when set. */
  min?: bigint;
  low: boolean;
  error?: string;
}

/** The (chain, wallet) pairs that sign: every asset entry's chain and wallet, once each, in config order. */
export function signerPairs(
  assets: Readonly<Record<string, readonly { chain: string; wallet: string }[]>>,
): { chain: string; wallet: string }[] {
  const seen = new Set<string>();
  const out: { chain: string; wallet: string }[] = [];
  for (const entries of Object.values(assets)) {
    for (const { chain, wallet } of entries) {
      const key = `${chain}\u0000${wallet}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ chain, wallet });
    }
  }
  return out;
}

/**
 * Reads and publishes every signer's gas balance, chains in parallel.
 *
 * @returns one reading per signer pair; never throws
 */
export async function readGasBalances(
  ctx: Pick<CycleContext, 'config' | 'chains' | 'wallets' | 'metrics' | 'logger'>,
): Promise<GasReading[]> {
  const log = ctx.logger.child({ component: 'gas' });
  return Promise.all(
    signerPairs(ctx.config.assets).map(async ({ chain, wallet }): Promise<GasReading> => {
      const adapter = ctx.chains.get(chain);
      const address = ctx.wallets.get(wallet)?.address;
      if (!adapter || address === undefined) return { chain, wallet, amount: null, low: false, error: 'chain or wallet not configured' };
      const minText = ctx.config.chains[chain]?.minGasBalance;
      const min = minText === undefined ? undefined : parseUnits(minText, adapter.nativeDecimals);
      const labels = { chain, wallet };
      let amount: bigint;
      try {
        amount = await nativeBalance(adapter, address);
      } catch (error) {
        const message = shortErrorMessage(error);
        log.warn({ chain, wallet, err: message }, 'signer gas balance read failed; the cycle goes on');
        return { chain, wallet, amount: null, low: false, error: message, ...(min !== undefined ? { min } : {}) };
      }
      ctx.metrics.gasBalanceUnits.set(labels, unitsToGauge(amount, adapter.nativeDecimals));
      if (min === undefined) return { chain, wallet, amount, low: false };
      const low = amount < min;
      ctx.metrics.gasBalanceMinUnits.set(labels, unitsToGauge(min, adapter.nativeDecimals));
      ctx.metrics.gasBalanceLow.set(labels, low ? 1 : 0);
      if (low) {
        log.warn(
          { chain, wallet, balance: formatUnits(amount, adapter.nativeDecimals), minimum: minText },
          `signer wallet ${wallet} holds ${formatUnits(amount, adapter.nativeDecimals)} native token on chain ${chain}, below chains.${chain}.minGasBalance ${minText}; top it up`,
        );
      }
      return { chain, wallet, amount, min, low };
    }),
  );
}

/** The whole native balance through the adapter's own read, else through `readBalances` of the native currency. */
async function nativeBalance(adapter: ChainAdapter, address: string): Promise<bigint> {
  const reader = nativeBalanceReaderOf(adapter);
  if (reader) return reader.readNativeBalance(address);
  const read = await adapter.readBalances([{ address, currency: adapter.nativeCurrency }]);
  if (!read.ok) throw new Error(read.error);
  const first = read.amounts[0];
  if (!first || first.amount === null) throw new Error(first?.error ?? 'no balance returned');
  return first.amount;
}
