/**
 * The wired runtime one cycle works with. Built once by `createBallast` (src/app/createBallast.ts); the cycle
 * modules receive it and never construct clients themselves: chains are reached through their adapters
 * (src/chains/adapter.ts), which alone hold chain clients and signers.
 */
import type { Logger } from 'pino';
import type { ChainAdapter, AdapterVm } from '../chains/adapter.ts';
import type { LoadedConfig } from '../config/loadConfig.ts';
import type { BallastMetrics } from '../metrics/metrics.ts';
import type { RelayClient } from '../relay/client.ts';
import type { ChainsCache } from '../relay/chainsCache.ts';
import type { TokenPriceCache } from '../relay/tokenPriceCache.ts';
import type { StoreDb } from '../store/db.ts';
import type { StatusFeed } from '../webhooks/statusFeed.ts';
import type { BackgroundTracking } from './backgroundTracking.ts';
import type { UsdPriceBook } from './metricsPrices.ts';
import type { ProgressSink } from './progressEvent.ts';

/** A configured hot wallet as the cycle sees it: its name, VM family and address. Its signer lives in the adapters. */
export interface WalletRuntime {
  name: string;
  vm: AdapterVm;
  address: string;
}

/** Everything a cycle needs. Times in ms; `now`/`sleep` injectable for tests. */
export interface CycleContext {
  config: LoadedConfig;
  db: StoreDb;
  relay: RelayClient;
  /** GET /chains kept in memory (`relay.chainsCacheSec`); without it each cycle fetches the list. */
  chainsCache?: ChainsCache;
  /**
   * GET /currencies/token/price kept in memory: the origin's native currency price for quotes that carry none
   * (src/cycle/originPrice.ts); without it such a quote's origin cost stays unknown (fail closed under a total cap).
   */
  nativePrices?: TokenPriceCache;
  /** One adapter per configured chain, by config name. */
  chains: ReadonlyMap<string, ChainAdapter>;
  wallets: ReadonlyMap<string, WalletRuntime>;
  metrics: BallastMetrics;
  logger: Logger;
  now: () => number;
  /** Statuses pushed by webhooks; trackers await it instead of sleeping a whole poll interval. */
  statusFeed?: StatusFeed;
  /** USD prices of assets for `ballast_balance_usd` (src/cycle/metricsPrices.ts); absent: read from the store each cycle. */
  prices?: UsdPriceBook;
  sleep: (ms: number) => Promise<void>;
  /** Aborted on SIGTERM/SIGINT: no new transfer starts; tracking stops and leaves transfers in flight. */
  signal?: AbortSignal;
  /**
   * With a PostgreSQL store shared by replicas: whether this process still leads in the term the run started in
   * (reads the clock; `LeaderGuard.leadsRunTerm`, src/app/leaderGuard.ts): false once that term ended, even when
   * the process has won the lease back in a later term. Checked right before each signature is broadcast, because
   * a process that was paused may wake up after its term ended and before the timer that aborts `signal` has run.
   * Absent for SQLite (the run lock).
   */
  leading?: () => boolean;
  /** Receives each planned transfer's stages (src/cycle/progressEvent.ts), e.g. for a live terminal view. */
  progress?: ProgressSink;
  /**
   * The daemon's fills tracked past the end of their cycle (src/cycle/backgroundTracking.ts): with it, a cycle
   * ends once each of its transfers is deposited or over, and its trackers go on here. Absent (`run --once`,
   * `ballast simulate`): the cycle waits for its own fills.
   */
  background?: BackgroundTracking;
  /**
   * False: a cycle does not track its fills at all; each transfer ends the cycle `deposited` and the next cycles'
   * in-flight refresh reads its status (`ballast simulate`: one virtual clock, so the cycle period stays the poll
   * interval while transfers are in flight). Absent: tracked.
   */
  trackFills?: false;
}
