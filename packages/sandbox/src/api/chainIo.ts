/**
 * {@link ChainIo} over viem public clients: EIP-1559 fee estimates and native / ERC-20 balances.
 */
import { erc20Abi, type Chain, type PublicClient, type Transport } from 'viem';
import type { ChainIo } from './state.ts';

/**
 * Creates chain reads over one public client per chain id.
 *
 * @throws Error (on use) naming the chain id when no client was given for it
 */
export function createViemChainIo(clients: ReadonlyMap<number, PublicClient<Transport, Chain>>): ChainIo {
  const client = (chainId: number) => {
    const c = clients.get(chainId);
    if (!c) throw new Error(`no RPC client for sandbox chain ${chainId}`);
    return c;
  };
  return {
    async feeData(chainId) {
      const fees = await client(chainId).estimateFeesPerGas();
      return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
    },
    async balanceOf(chainId, currency, owner) {
      const c = client(chainId);
      if (currency.isNative) return c.getBalance({ address: owner });
      return c.readContract({ address: currency.address, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
    },
  };
}
