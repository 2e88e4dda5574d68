/**
 * One Multicall3 batch of view calls that each return a uint256 (balances, allowances), read as bigints.
 */
import type { ContractFunctionParameters, PublicClient } from 'viem';
import { shortErrorMessage } from '../../core/errorMessage.ts';

/** One call's result: `amount` in base units, or null with `error` when that call failed. */
export interface AmountResult {
  amount: bigint | null;
  error?: string;
}

/**
 * Runs `contracts` in one multicall (viem `multicall`, `allowFailure: true`); results keep call order. A failed
 * call yields `{amount: null, error}`; a failed batch yields that for every call. Never throws.
 *
 * @param client the chain's client (its chain definition names Multicall3)
 * @param contracts view calls returning a single uint256
 * @param blockNumber read the state at this block (default: the node's latest)
 */
export async function multicallAmounts(
  client: PublicClient,
  contracts: readonly ContractFunctionParameters[],
  blockNumber?: bigint,
): Promise<AmountResult[]> {
  try {
    // batchSize 0: one eth_call for the whole batch (viem splits above 1,024 bytes of calldata by default, so
    // 50 tokens would take two round trips).
    const results = await client.multicall({
      contracts,
      allowFailure: true,
      batchSize: 0,
      ...(blockNumber !== undefined ? { blockNumber } : {}),
    });
    return results.map((r) =>
      r.status === 'success' && typeof r.result === 'bigint'
        ? { amount: r.result }
        : { amount: null, error: r.error ? shortErrorMessage(r.error) : 'call returned no value' },
    );
  } catch (error) {
    const message = shortErrorMessage(error);
    return contracts.map(() => ({ amount: null, error: message }));
  }
}
