/**
 * The one place where Ballast is wired: config → database, metrics, Relay client, chain adapters, wallets
 * (docs/design.md "Wiring happens in one place"). Everything else receives what it needs from here.
 */
import { BackgroundTracking } from '../cycle/backgroundTracking.ts';
import type { Logger } from 'pino';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { isPostgresUrl, redactStoreUrl } from '../config/storeUrl.ts';
import type { StoreDb } from '../store/db.ts';
import { StoreOpenError } from '../store/openError.ts';
import { openPgStore, openSqliteStore } from '../store/openStore.ts';
import { PgStoreDb, type PgStoreDbOptions } from '../store/pg/pgDb.ts';
import type { HaConfig } from '../config/haSchema.ts';
import { leaseSessionLimits, resolveLeaseTiming } from '../ha/leaseTiming.ts';
import { createMetrics, type BallastMetrics } from '../metrics/metrics.ts';
import { createRelayClient, type RelayClient } from '../relay/client.ts';
import { createChainsCache } from '../relay/chainsCache.ts';
import { createNativePriceCache } from '../cycle/originPrice.ts';
import type { CycleContext, WalletRuntime } from '../cycle/context.ts';
import { runCycle, type CycleReport } from '../cycle/runCycle.ts';
import { checkRemoteSigners, observeRemoteSigners } from './remoteSigners.ts';
import { runQueuedTransfers } from '../cycle/queuedTransfers.ts';
import { runManualTransfer, type ManualTransferRequest } from '../cycle/manualTransfer.ts';
import { cycleRun, processMode } from '../cycle/mode.ts';
import { createChainAdapters } from './chainAdapters.ts';
import { createRelayDeprecationWatch } from './relayDeprecationWatch.ts';
import { countRpcErrorsAll } from '../chains/rpcErrorCounting.ts';
import { UsdPriceBook } from '../cycle/metricsPrices.ts';
import { withRunLock } from './runLock.ts';
import { createLeadership, haInstance, type Leadership } from './leaderGuard.ts';
import { StatusFeed } from '../webhooks/statusFeed.ts';
import { createWebhookReceiver, type WebhookReceiver } from '../webhooks/receiver.ts';
import { notify, type NotifyDeps } from '../notify/notify.ts';
import { leaderGainedEvent } from '../notify/eventOf.ts';
import type { DispatchDeps } from '../notify/dispatcher.ts';
import { queueResolutions } from '../notify/incidents.ts';
import { queueDailyDigests } from '../notify/digestQueue.ts';

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
  /** The store, already open (a PostgreSQL one, see {@link openBallastApp}); default: open the SQLite `store:` file. */
  store?: StoreDb;
  /** `daemon --monitor-only`, on top of `config.monitorOnly`: makes the process's mode `monitor` (see {@link Ballast.mode}). */
  monitorOnly?: boolean;
}

/** A wired Ballast instance. */
export interface Ballast {
  ctx: CycleContext;
  db: StoreDb;
  metrics: BallastMetrics;
  relay: RelayClient;
  /** Statuses pushed by webhooks, awaited by the trackers of this instance (src/webhooks/statusFeed.ts). */
  statusFeed: StatusFeed;
  /** The webhook receiver when `webhooks.enabled` (the daemon serves it), else null. */
  webhooks: WebhookReceiver | null;
  /**
   * Runs one cycle under the single-run lock (SQLite) or as the leader (PostgreSQL); `plan` mode takes neither
   * and signs nothing. After a `once` or `daemon` cycle, still under the lock, the manual transfers queued with
   * `ballast transfer --queue` are run (src/cycle/queuedTransfers.ts).
   *
   * @throws RunLockBusyError (`RUN_LOCK_BUSY`) when another run holds the lock, or another replica leads
   */
  runCycle(mode: 'once' | 'daemon' | 'plan'): Promise<CycleReport>;
  /**
   * The process's mode (src/cycle/mode.ts): `monitor` when `monitorOnly: true` is configured or `daemon
   * --monitor-only` was given: `once` and `daemon` cycles plan, quote, verify and judge the limits but sign nothing
   * (recorded as `plan` cycles, counted like daemon cycles, reported in `ballast_monitor_*`); they take no lock or
   * lease, and `exclusive` (withdraw) refuses. Else `execute`.
   */
  mode: 'execute' | 'monitor';
  /**
   * A one-off transfer asked by an operator (src/cycle/manualTransfer.ts), through the same policy, limits,
   * verification and records as a cycle, under the same exclusion; `dryRun` takes none and signs nothing.
   *
   * @throws ManualTransferError (`TRANSFER_INVALID`) for a route or amount that cannot be done; RunLockBusyError;
   *   MonitorOnlyError unless `dryRun`
   */
  transfer(req: ManualTransferRequest): Promise<CycleReport>;
  /** Runs `fn` under the same exclusion as a cycle (e.g. `ballast withdraw`), with the signal it must honour. */
  exclusive<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** The leader lease of a PostgreSQL store (src/app/leaderGuard.ts); null for SQLite. */
  leadership: Leadership | null;
  /**
   * What the notification dispatcher works with (src/notify/dispatcher.ts) when `notify:` is configured, else
   * null: the daemon runs it on a timer, `run --once` flushes it before closing. Each pass first queues the ends of
   * stalls and pauses the sinks were told of (src/notify/incidents.ts) and the daily digests that are due
   * (src/notify/digestQueue.ts).
   */
  notifyDispatch: DispatchDeps | null;
  /** Whether the store is still open (`close` not called yet), for readiness. */
  storeOpen(): boolean;
  /** Releases the lease (PostgreSQL), then closes the store after a transaction still running. */
  close(): Promise<void>;
}

/**
 * Wires Ballast from a loaded config.
 *
 * @throws store errors when the database cannot be opened or migrated; StoreOpenError (`STORE_OPEN_FAILED`)
 *   for a PostgreSQL `store:` not opened by the caller (use {@link openBallastApp})
 */
export function createBallast(config: LoadedConfig, opts: CreateBallastOptions): Ballast {
  const logger = opts.logger;
  if (!opts.store && isPostgresUrl(config.store)) {
    const shown = redactStoreUrl(config.store);
    throw new StoreOpenError(
      'STORE_OPEN_FAILED',
      shown,
      'NOT_OPEN',
      `store: ${shown} is a PostgreSQL store; open it with openBallastApp`,
      undefined,
    );
  }
  const db = opts.store ?? openSqliteStore(config.store);
  let open = true;
  const metrics = opts.metrics ?? createMetrics();
  const now = opts.now ?? Date.now;
  const notifyDeps: NotifyDeps = { db, now, config, logger };
  const relayLogger = logger.child({ component: 'relay' });
  const relay = createRelayClient({
    baseUrl: config.relay.baseUrl,
    apiKey: config.relay.apiKey,
    referrer: config.relay.referrer,
    timeoutMs: config.relay.timeoutMs,
    quotesPerMinute: config.relay.quotesPerMinute,
    quoteApi: config.relay.quoteApi,
    logger: relayLogger,
    onResponse: (e) => {
      metrics.relayHttpRequestsTotal.inc({ endpoint: e.endpoint, status: String(e.status) });
      metrics.relayRequestDurationSeconds.observe({ endpoint: e.endpoint }, e.durationMs / 1000);
      if (e.endpoint === 'POST /quote/v2' || e.endpoint === 'POST /quote/v3') metrics.quoteDurationSeconds.observe(e.durationMs / 1000);
    },
    // Deprecation / Sunset / Link headers of any response: gauges and one warning per endpoint per UTC day.
    onDeprecation: createRelayDeprecationWatch({
      metrics,
      logger: relayLogger,
      ...(opts.now ? { now: opts.now } : {}),
      notify: (event) => void notify(notifyDeps, event),
    }),
  });
  for (const chain of Object.keys(config.chains)) metrics.rpcErrorsTotal.inc({ chain }, 0);
  observeRemoteSigners(config, metrics);
  const chains = countRpcErrorsAll(createChainAdapters(config, { chainPollingIntervalMs: opts.chainPollingIntervalMs }), (chain) =>
    metrics.rpcErrorsTotal.inc({ chain }),
  );
  const statusFeed = new StatusFeed();
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
  const mode = processMode(config.monitorOnly, opts.monitorOnly);
  // A monitor-only process never signs, so it takes no part in the election.
  const leadership =
    db instanceof PgStoreDb && mode === 'execute'
      ? createLeadership({
          url: config.store,
          ha: config.ha,
          store: db,
          metrics,
          logger,
          onGainedTerm: (epoch) => void notify(notifyDeps, leaderGainedEvent(config.ha.lease, haInstance(config.ha), epoch)),
        })
      : null;
  if (db instanceof PgStoreDb && mode === 'monitor') db.setFencing(() => null); // a write-ahead would be refused: it signs nothing
  const wallets = new Map<string, WalletRuntime>();
  for (const [name, w] of Object.entries(config.wallets)) wallets.set(name, { name, vm: w.vm, address: w.address });
  const background = new BackgroundTracking();
  const ctx: CycleContext = {
    config,
    db,
    relay,
    chainsCache: createChainsCache({ fetch: async () => (await relay.getChains()).chains, ttlMs: config.relay.chainsCacheSec * 1000, now }),
    nativePrices: createNativePriceCache(relay, logger.child({ component: 'pipeline' }), now),
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
    ...(leadership ? { leading: () => leadership.leadsRunTerm() } : {}),
  };
  const exclusive = <T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    if (mode === 'monitor') return Promise.reject(new MonitorOnlyError());
    return leadership ? leadership.run(ctx.signal, fn) : withRunLock(ctx, fn);
  };
  return {
    ctx,
    db,
    metrics,
    relay,
    statusFeed,
    webhooks,
    runCycle: (requested) => {
      const run = cycleRun(requested, mode);
      if (run.mode !== 'execute') return runCycle(ctx, run);
      return exclusive(async (signal) => {
        // The daemon's fills go on in the background once deposited (src/cycle/backgroundTracking.ts).
        const report = await runCycle({ ...ctx, signal, ...(requested === 'daemon' ? { background } : {}) }, run);
        // Manual transfers queued while this process held the lock or lease (`ballast transfer --queue`).
        await runQueuedTransfers({ ...ctx, signal });
        return report;
      });
    },
    mode,
    transfer: (req) => (req.dryRun ? runManualTransfer(ctx, req) : exclusive((signal) => runManualTransfer({ ...ctx, signal }, req))),
    exclusive,
    leadership,
    notifyDispatch: config.notify
      ? {
          db,
          config: config.notify,
          metrics,
          logger,
          now,
          scheduled: [() => queueResolutions({ db, now, config, logger }), () => queueDailyDigests({ db, now, config, logger })],
        }
      : null,
    storeOpen: () => open,
    close: async () => {
      open = false;
      await background.settle(); // trackers end at once after the shutdown signal, leaving their transfers in flight
      await leadership?.stop();
      await db.close();
    },
  };
}

/**
 * Opens the store named by `store:` (a PostgreSQL one is migrated and its pool opened) and wires Ballast on it.
 *
 * @throws as {@link createBallast}; StoreOpenError (`STORE_UNAVAILABLE`) when a PostgreSQL server cannot be reached; ConfigError or
 * SignerError (src/app/remoteSigners.ts) when a key service holds another key than the configured address, or cannot be asked
 */
export async function openBallastApp(config: LoadedConfig, opts: Omit<CreateBallastOptions, 'store'>): Promise<Ballast> {
  // Every key service's public key is the configured address before anything runs (docs/keys.md).
  await checkRemoteSigners(config);
  if (!isPostgresUrl(config.store)) return createBallast(config, opts);
  const log = opts.logger.child({ component: 'store' });
  const store = await openPgStore(config.store, {
    ...replicaSessionLimits(config.ha),
    onIdleError: (err) => log.warn({ err: err.message }, 'an idle store connection failed; the next query reconnects'),
  });
  try {
    return createBallast(config, { ...opts, store });
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** An action that signs was asked of a monitor-only process (code `MONITOR_ONLY`, exit 2: the configuration says so). */
export class MonitorOnlyError extends BallastError {
  readonly code = 'MONITOR_ONLY';
  constructor() {
    super('monitorOnly is set (or --monitor-only was given): this process signs nothing; set monitorOnly: false to let it act');
  }
}

/**
 * The server-side limits of a replica's store sessions, from its lease timing (`leaseSessionLimits`,
 * src/ha/leaseTiming.ts; docs/ha.md "Partitions"): what a replica cut off from the database can keep locked ends
 * within the lease's own bounds.
 */
function replicaSessionLimits(ha: HaConfig): PgStoreDbOptions {
  const limits = leaseSessionLimits(
    resolveLeaseTiming({
      ttlMs: ha.ttlMs,
      ...(ha.renewEveryMs !== undefined ? { renewEveryMs: ha.renewEveryMs } : {}),
      ...(ha.marginMs !== undefined ? { marginMs: ha.marginMs } : {}),
    }),
  );
  return {
    idleInTransactionTimeoutMs: limits.sessionMs,
    lockTimeoutMs: limits.sessionMs,
    fencedLimitMs: limits.fencedTxMs,
    keepAlive: limits.keepAlive,
  };
}
