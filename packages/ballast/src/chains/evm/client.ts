/**
 * viem clients for configured EVM chains. Multicall3 is assumed at its canonical address (deployed on most EVM
 * chains; the local sandbox installs it there too).
 */
import { createPublicClient, defineChain, http, type PublicClient } from 'viem';

/** Canonical Multicall3 address (same on every chain that has it). */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

/**
 * Creates a public client for one chain.
 *
 * @param opts.name config chain name (used in viem errors)
 * @param opts.chainId numeric chain id
 * @param opts.rpcUrl HTTP RPC URL; never logged (it may carry an API key)
 * @param opts.pollingIntervalMs receipt polling interval; default 1000
 */
export function createEvmPublicClient(opts: { name: string; chainId: number; rpcUrl: string; pollingIntervalMs?: number }): PublicClient {
  const chain = defineChain({
    id: opts.chainId,
    name: opts.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
  return createPublicClient({
    chain,
    transport: http(opts.rpcUrl, { timeout: 15_000, retryCount: 2 }),
    pollingInterval: opts.pollingIntervalMs ?? 1_000,
  }) as PublicClient; // the chain-specific client type widened to the generic one; same runtime object
}
