/**
 * Batched balance reads on one EVM chain: every (address, currency) pair in one multicall (Multicall3
 * `aggregate3`), native balances through Multicall3 `getEthBalance`, ERC-20 through `balanceOf`.
 */
import { multicallAmounts, type AmountResult } from './multicallAmounts.ts';
import { erc20Abi, getAddress, isAddressEqual, zeroAddress, type Address, type PublicClient } from 'viem';

/** Multicall3 functions used for native balances (Multicall3 is deployed at the same address on most chains). */
const multicall3BalanceAbi = [
  {
    type: 'function',
    name: 'getEthBalance',
    stateMutability: 'view',
    inputs: [{ name: 'addr', type: 'address' }],
    outputs: [{ name: 'balance', type: 'uint256' }],
  },
] as const;

/** One balance to read: `currency` is an ERC-20 address or the zero address for the native token. */
export interface EvmBalanceQuery {
  address: Address;
  currency: Address;
}

/** Result of one query: `amount` in base units, or null with `error` when that call failed. */
export type EvmBalanceResult = AmountResult;

/**
 * Reads all balances of one chain in a single multicall round trip.
 *
 * @param client viem public client whose chain defines `contracts.multicall3`
 * @param queries balances to read
 * @param blockNumber read every balance at this one block (default: latest), so they are one consistent snapshot
 * @returns one result per query, in order; if the whole batch fails every result carries the error
 */
export async function readEvmBalances(client: PublicClient, queries: EvmBalanceQuery[], blockNumber?: bigint): Promise<EvmBalanceResult[]> {
  if (queries.length === 0) return [];
  const multicall3 = client.chain?.contracts?.multicall3?.address;
  if (!multicall3) {
    const error = 'chain has no multicall3 contract configured';
    return queries.map(() => ({ amount: null, error }));
  }
  const contracts = queries.map((q) =>
    isAddressEqual(q.currency, zeroAddress)
      ? ({ address: multicall3, abi: multicall3BalanceAbi, functionName: 'getEthBalance', args: [q.address] } as const)
      : ({ address: getAddress(q.currency), abi: erc20Abi, functionName: 'balanceOf', args: [q.address] } as const),
  );
  return multicallAmounts(client, contracts, blockNumber);
}

/**
 * Reads ERC-20 `decimals()` for several tokens in one multicall.
 *
 * @returns decimals per token in order, null where the call failed
 */
export async function readEvmDecimals(client: PublicClient, tokens: Address[]): Promise<(number | null)[]> {
  if (tokens.length === 0) return [];
  const results = await client.multicall({
    contracts: tokens.map((t) => ({ address: t, abi: erc20Abi, functionName: 'decimals' }) as const),
    allowFailure: true,
  });
  return results.map((r) => (r.status === 'success' ? Number(r.result) : null));
}
