/**
 * Builds one chain adapter per configured chain (src/chains/adapter.ts), handing each the signers of the
 * wallets of its VM family. Part of the wiring (src/app/createBallast.ts); nothing else constructs adapters.
 */
import type { LocalAccount } from 'viem';
import type { LoadedConfig } from '../config/loadConfig.ts';
import type { ChainAdapter } from '../chains/adapter.ts';
import { createEvmAdapter } from '../chains/evm/adapter.ts';
import { createEvmPublicClient } from '../chains/evm/client.ts';

/** Options for {@link createChainAdapters}. */
export interface ChainAdapterOptions {
  /** Receipt polling interval for EVM clients, ms (default 1000). */
  chainPollingIntervalMs?: number;
}

/**
 * One adapter per `chains.<name>`, keyed by name.
 *
 * @throws Error for a chain whose VM family has no adapter (config loading refuses those first)
 */
export function createChainAdapters(config: LoadedConfig, opts: ChainAdapterOptions = {}): Map<string, ChainAdapter> {
  const evmAccounts = new Map<string, LocalAccount>();
  for (const [name, w] of Object.entries(config.wallets)) if (w.vm === 'evm') evmAccounts.set(name, w.account);
  const adapters = new Map<string, ChainAdapter>();
  for (const [name, c] of Object.entries(config.chains)) {
    if (c.vm !== 'evm') throw new Error(`chains.${name}: vm ${c.vm} has no chain adapter`);
    const client = createEvmPublicClient({ name, chainId: c.chainId, rpcUrl: c.rpcUrl, pollingIntervalMs: opts.chainPollingIntervalMs });
    adapters.set(name, createEvmAdapter({ name, chainId: c.chainId, client, accounts: evmAccounts, confirmations: c.confirmations }));
  }
  return adapters;
}
