/**
 * The one place where Ballast is wired: config → database, metrics, Relay client, chain adapters, wallets
 * (DESIGN.md "Wiring happens in one place"). Everything else receives what it needs from here.
 */
import type { Logger } from 'pino';
import type Database from 'better-sqlite3';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { openDatabase } from '../store/database.ts';
import { createMetrics, type BallastMetrics } from '../metrics/metrics.ts';
import { createRelayClient, type RelayClient } from '../relay/client.ts';
import { createChainsCache } from '../relay/chainsCache.ts';
import type { CycleContext, WalletRuntime } from '../cycle/context.ts';
import { runCycle, type CycleReport } from '../cycle/runCycle.ts';
import { createChainAdapters } from './chainAdapters.ts';
import { countRpcErrorsAll } from '../chains/rpcErrorCounting.ts';
import { UsdPriceBook } from '../cycle/metricsPrices.ts';
import { withRunLock } from './runLock.ts';
import { StatusFeed } from '../webhooks/statusFeed.ts';
import { createWebhookReceiver, type WebhookReceiver } from '../webhooks/receiver.ts';

/** Options for {@link createBallast}; tests inject clocks and a faster poll interval. */
export interface CreateBallastOptions {
  logger: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
  /** Receipt polling interval for chain clients, ms (default 1000). */
  chainPollingIntervalMs?: number;
  metrics?: BallastMetrics;
  /** Receives each planned transfer's stages (`ballast run --once` shows them live). */
  progress?: CycleContext['progress'];
}

/** A wired Ballast instance. */
export interface Ballast {
  ctx: CycleContext;
  db: Database.Database;
  metrics: BallastMetrics;
  relay: RelayClient;
  /** Statuses pushed by webhooks, awaited by the trackers of this instance (src/webhooks/statusFeed.ts). */
  statusFeed: StatusFeed;
  /** The webhook receiver when `webhooks.enabled` (the daemon serves it), else null. */
  webhooks: WebhookReceiver | null;
  /** Runs one cycle under the single-run lock; `plan` mode takes no lock and signs nothing. */
  runCycle(mode: 'once' | 'daemon' | 'plan'): Promise<CycleReport>;
  close(): void;
}

/**
 * Wires Ballast from a loaded config.
 *
 * @throws store errors when the database cannot be opened or migrated
 */
export function createBallast(config: LoadedConfig, opts: CreateBallastOptions): Ballast {
  const logger = opts.logger;
  const db = openDatabase(config.store);
  const metrics = opts.metrics ?? createMetrics();
  const relay = createRelayClient({
    baseUrl: config.relay.baseUrl,
    apiKey: config.relay.apiKey,
    referrer: config.relay.referrer,
    timeoutMs: config.relay.timeoutMs,
    logger: logger.child({ component: 'relay' }),
    onResponse: (e) => {
      metrics.relayHttpRequestsTotal.inc({ endpoint: e.endpoint, status: String(e.status) });
      metrics.relayRequestDurationSeconds.observe({ endpoint: e.endpoint }, e.durationMs / 1000);
      if (e.endpoint === 'POST /quote/v2') metrics.quoteDurationSeconds.observe(e.durationMs / 1000);
    },
  });
  for (const chain of Object.keys(config.chains)) metrics.rpcErrorsTotal.inc({ chain }, 0);
  const chains = countRpcErrorsAll(createChainAdapters(config, { chainPollingIntervalMs: opts.chainPollingIntervalMs }), (chain) =>
    metrics.rpcErrorsTotal.inc({ chain }),
  );
  const statusFeed = new StatusFeed();
  const now = opts.now ?? Date.now;
  const webhooks =
    config.webhooks?.enabled && config.relay.apiKey
      ? createWebhookReceiver({
          path: config.webhooks.path,
          secret: config.relay.apiKey,
          toleranceSec: config.webhooks.toleranceSec,
          maxBodyBytes: config.webhooks.maxBodyBytes,
          db,
          metrics,
          logger,
          feed: statusFeed,
          now,
        })
      : null;
  const wallets = new Map<string, WalletRuntime>();
  for (const [name, w] of Object.entries(config.wallets)) wallets.set(name, { name, vm: w.vm, address: w.address });
  const ctx: CycleContext = {
    config,
    db,
    relay,
    chainsCache: createChainsCache({ fetch: async () => (await relay.getChains()).chains, ttlMs: config.relay.chainsCacheSec * 1000, now }),
    chains,
    wallets,
    metrics,
    prices: new UsdPriceBook(config.prices ?? {}),
    logger,
    now,
    statusFeed,
    sleep: opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    signal: opts.signal,
    ...(opts.progress ? { progress: opts.progress } : {}),
  };
  return {
    ctx,
    db,
    metrics,
    relay,
    statusFeed,
    webhooks,
    runCycle: (mode) =>
      mode === 'plan' ? runCycle(ctx, { mode }) : withRunLock(ctx, (signal) => runCycle({ ...ctx, signal }, { mode })),
    close: () => db.close(),
  };
}
