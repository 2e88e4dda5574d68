/**
 * Reads many ERC-20 allowances (EIP-20 `allowance(owner, spender)`) of one chain in one Multicall3 batch.
 */
import { erc20Abi, getAddress, type Address, type PublicClient } from 'viem';
import { multicallAmounts, type AmountResult } from './multicallAmounts.ts';

/** One allowance to read. */
export interface AllowanceQuery {
  token: Address;
  owner: Address;
  spender: Address;
}

/** `amount` in token base units, or null with `error` when that call failed. */
export type AllowanceResult = AmountResult;

/**
 * Reads every query in one multicall (the chain's Multicall3, like balance reads); results keep query order.
 * A failed call yields `{amount: null, error}`; a failed batch yields that for every query. Never throws.
 */
export async function readEvmAllowances(client: PublicClient, queries: AllowanceQuery[]): Promise<AllowanceResult[]> {
  if (queries.length === 0) return [];
  const contracts = queries.map(
    (q) => ({ address: getAddress(q.token), abi: erc20Abi, functionName: 'allowance', args: [q.owner, q.spender] }) as const,
  );
  return multicallAmounts(client, contracts);
}
