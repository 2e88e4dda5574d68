/**
 * Reads an ERC-20 allowance (EIP-20 `allowance(owner, spender)`) through viem.
 */
import { erc20Abi, type Hex, type PublicClient } from 'viem';

/**
 * The allowance `owner` has given `spender` on `token`, in token base units, read at the latest block.
 *
 * @throws viem's errors when the node cannot be reached or the token reverts
 */
export async function readAllowance(client: PublicClient, token: Hex, owner: Hex, spender: Hex): Promise<bigint> {
  return client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] });
}
