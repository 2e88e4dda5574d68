/**
 * The wired runtime one cycle works with. Built once by `createBallast` (src/app/createBallast.ts); the cycle
 * modules receive it and never construct clients themselves.
 */
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import type { Address, LocalAccount, PublicClient } from 'viem';
import type { LoadedConfig } from '../config/loadConfig.ts';
import type { BallastMetrics } from '../metrics/metrics.ts';
import type { RelayClient } from '../relay/client.ts';

/** A configured chain with its RPC client. `name` is the config key (e.g. "base"). */
export interface ChainRuntime {
  name: string;
  chainId: number;
  vm: 'evm';
  publicClient: PublicClient;
  /** `chains.<name>.confirmations`: depth (blocks, the including one counted) at which a mined transaction is final. */
  confirmations: number;
}

/** A configured hot wallet. The account signs; its key never leaves it. */
export interface WalletRuntime {
  name: string;
  vm: 'evm';
  address: Address;
  account: LocalAccount;
}

/** Everything a cycle needs. Times in ms; `now`/`sleep` injectable for tests. */
export interface CycleContext {
  config: LoadedConfig;
  db: Database.Database;
  relay: RelayClient;
  chains: ReadonlyMap<string, ChainRuntime>;
  wallets: ReadonlyMap<string, WalletRuntime>;
  metrics: BallastMetrics;
  logger: Logger;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Aborted on SIGTERM/SIGINT: no new transfer starts; tracking stops and leaves transfers in flight. */
  signal?: AbortSignal;
}
