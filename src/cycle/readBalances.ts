/**
 * Reads the live balance of every target: one batched multicall per chain (DESIGN.md "balances"), every balance
 * of a chain at one block (the node's head when the read starts), recorded on each reading.
 * A chain that cannot be read yields `amount: null` for all its targets, so the planner leaves it alone.
 */
import { getAddress, type Address } from 'viem';
import type { BalanceReading, TargetBand } from '../planner/types.ts';
import { readEvmBalances } from '../chains/evm/readBalances.ts';
import type { ChainRuntime, CycleContext } from './context.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';

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
      const wrongChain = chain ? await chainIdMismatch(chain) : `chain ${chainName} not configured`;
      const head = chain && wrongChain === null ? await headBlock(chain) : (wrongChain ?? `chain ${chainName} not configured`);
      const results =
        chain && typeof head === 'bigint'
          ? await readEvmBalances(
              chain.publicClient,
              list.map((t) => ({ address: t.address as Address, currency: getAddress(t.currency) })),
              head,
            )
          : list.map(() => ({ amount: null, error: head as string })); // not a block: the reason it could not be read
      list.forEach((t, i) => {
        const r = results[i]!;
        readings.set(t, {
          chain: t.chain,
          currency: t.currency,
          address: t.address,
          amount: r.amount,
          ...(r.amount !== null && typeof head === 'bigint' ? { blockNumber: head } : {}),
          ...(r.error ? { error: r.error } : {}),
        });
        if (r.amount === null) ctx.metrics.chainReadErrorsTotal.inc({ chain: chainName });
      });
    }),
  );
  return targets.map((t) => readings.get(t)!);
}

/**
 * Checks that the node behind `chains.<name>.rpcUrl` serves the configured chain (`eth_chainId`): balances
 * read from another chain would plan transfers on wrong numbers.
 *
 * @returns null when it does, else the error naming the YAML path and the fix (the node's own error when it
 *   cannot answer)
 */
async function chainIdMismatch(chain: ChainRuntime): Promise<string | null> {
  let served: number;
  try {
    served = await chain.publicClient.getChainId();
  } catch (error) {
    return `chains.${chain.name}.rpcUrl did not answer eth_chainId: ${shortErrorMessage(error)}`;
  }
  return served === chain.chainId
    ? null
    : `chains.${chain.name}.rpcUrl serves chain id ${served}, but chains.${chain.name}.chainId is ${chain.chainId}; point rpcUrl at chain ${chain.chainId}`;
}

/**
 * The chain's head block, at which every balance of the chain is then read.
 *
 * @returns the block number, or the error text naming the YAML path when the node cannot say
 */
async function headBlock(chain: ChainRuntime): Promise<bigint | string> {
  try {
    return await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  } catch (error) {
    return `chains.${chain.name}.rpcUrl did not answer eth_blockNumber: ${shortErrorMessage(error)}`;
  }
}
