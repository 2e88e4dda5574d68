/**
 * Reads the live balance of every target: one batched read per chain through its adapter (docs/design.md "balances"),
 * every balance of a chain at one block (the node's head when the read starts), recorded on each reading.
 * A chain that cannot be read yields `amount: null` for all its targets, so the planner leaves it alone.
 */
import type { BalanceReading, TargetBand } from '../planner/types.ts';
import type { BalancesRead } from '../chains/adapter.ts';
import type { CycleContext } from './context.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';

/** What reading target balances uses: the chain adapters, metrics and the logger. */
export type ReadBalancesDeps = Pick<CycleContext, 'chains' | 'metrics' | 'logger'>;

/**
 * Reads balances for `targets`, grouped by chain, chains in parallel.
 *
 * @returns one reading per target, in the targets' order; base units as bigint or null with the error
 */
export async function readTargetBalances(ctx: ReadBalancesDeps, targets: TargetBand[]): Promise<BalanceReading[]> {
  const byChain = new Map<string, TargetBand[]>();
  for (const t of targets) {
    const list = byChain.get(t.chain);
    if (list) list.push(t);
    else byChain.set(t.chain, [t]);
  }
  const readings = new Map<TargetBand, BalanceReading>();
  await Promise.all(
    [...byChain].map(async ([chainName, list]) => {
      const chain = ctx.chains.get(chainName);
      let read: BalancesRead;
      try {
        read = chain
          ? await chain.readBalances(list.map((t) => ({ address: t.address, currency: t.currency })))
          : { ok: false, error: `chain ${chainName} not configured` };
      } catch (error) {
        read = { ok: false, error: `chains.${chainName}: balance read failed: ${shortErrorMessage(error)}` }; // adapters should not throw; never trust it
      }
      list.forEach((t, i) => {
        const r = read.ok ? read.amounts[i]! : { amount: null, error: read.error };
        readings.set(t, {
          chain: t.chain,
          currency: t.currency,
          address: t.address,
          amount: r.amount,
          ...(r.amount !== null && read.ok ? { blockNumber: read.atBlock } : {}),
          ...(r.amount === null ? { error: r.error } : {}),
        });
        if (r.amount === null) ctx.metrics.chainReadErrorsTotal.inc({ chain: chainName });
      });
    }),
  );
  return targets.map((t) => readings.get(t)!);
}
