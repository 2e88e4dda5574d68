/**
 * Reads the live balance of every target: one batched multicall per chain (DESIGN.md "balances").
 * A chain that cannot be read yields `amount: null` for all its targets, so the planner leaves it alone.
 */
import { getAddress, type Address } from 'viem';
import type { BalanceReading, TargetBand } from '../planner/types.ts';
import { readEvmBalances } from '../chains/evm/readBalances.ts';
import type { CycleContext } from './context.ts';

/**
 * Reads balances for `targets`, grouped by chain, chains in parallel.
 *
 * @returns one reading per target, in the targets' order; base units as bigint or null with the error
 */
export async function readTargetBalances(ctx: CycleContext, targets: TargetBand[]): Promise<BalanceReading[]> {
  const byChain = new Map<string, TargetBand[]>();
  for (const t of targets) byChain.set(t.chain, [...(byChain.get(t.chain) ?? []), t]);
  const readings = new Map<TargetBand, BalanceReading>();
  await Promise.all(
    [...byChain].map(async ([chainName, list]) => {
      const chain = ctx.chains.get(chainName);
      const results = chain
        ? await readEvmBalances(
            chain.publicClient,
            list.map((t) => ({ address: t.address as Address, currency: getAddress(t.currency) })),
          )
        : list.map(() => ({ amount: null, error: `chain ${chainName} not configured` }));
      list.forEach((t, i) => {
        const r = results[i]!;
        readings.set(t, {
          chain: t.chain,
          currency: t.currency,
          address: t.address,
          amount: r.amount,
          ...(r.error ? { error: r.error } : {}),
        });
        if (r.amount === null) ctx.metrics.chainReadErrorsTotal.inc({ chain: chainName });
      });
    }),
  );
  return targets.map((t) => readings.get(t)!);
}
