/**
 * Reads many ERC-20 allowances (EIP-20 `allowance(owner, spender)`) of one chain in one Multicall3 batch.
 */
import { erc20Abi, getAddress, type PublicClient } from 'viem';
import type { AllowanceQuery, AllowanceResult } from '../capabilities.ts';
import { multicallAmounts } from './multicallAmounts.ts';

/**
 * Reads every query in one multicall (the chain's Multicall3, like balance reads); results keep query order.
 * A failed call yields `{amount: null, error}`; a failed batch yields that for every query. Never throws.
 */
export async function readEvmAllowances(client: PublicClient, queries: readonly AllowanceQuery[]): Promise<AllowanceResult[]> {
  if (queries.length === 0) return [];
  const contracts = queries.map(
    (q) => ({ address: getAddress(q.token), abi: erc20Abi, functionName: 'allowance', args: [q.owner, q.spender] }) as const,
  );
  return multicallAmounts(client, contracts);
}
