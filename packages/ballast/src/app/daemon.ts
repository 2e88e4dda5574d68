/**
 * Daemon mode: cycles on the configured node-cron schedule, never two at once (node-cron `noOverlap` plus the
 * SQLite run lock shared with `run --once`, and between cycles a presence record `run --once` honours,
 * src/app/daemonPresence.ts), metrics served on `metrics.listen`, graceful shutdown. With
 * `webhooks.enabled` the webhook receiver is served too: on the metrics server, or on `webhooks.listen`; likewise the
 * needs API (docs/needs.md) with `needs.token`: on the metrics server, or on `needs.listen`.
 *
 * `/healthz` is liveness: 200 while the process runs. `/readyz` is readiness (src/metrics/readiness.ts): 200 while
 * the store is open and a cycle finished within `metrics.readyAfterSchedules` schedule intervals, else 503.
 *
 * With a PostgreSQL store the replicas share a leader lease (src/app/leaderGuard.ts, docs/ha.md): every replica
 * serves its servers and ticks on the schedule, but only the leader runs cycles. A follower's tick is a skipped
 * cycle that counts as finished for readiness (a follower is doing its job), and a replica that becomes leader
 * starts a cycle at once (it reconciles what the previous leader left in flight). A leader whose term ends mid-cycle
 * finds that cycle closed by the replica that took over (`CYCLE_TAKEN_OVER`): logged at warn, and it goes on as a
 * follower.
 */
import cron from 'node-cron';
import type { Logger } from 'pino';
import type { Ballast } from './createBallast.ts';
import { RunLockBusyError } from './runLock.ts';
import { markDaemonPresence } from './daemonPresence.ts';
import { CycleTakenOverError } from '../cycle/cycleTakenOver.ts';
import { StoreConnectionError } from '../store/errors.ts';
import { startMetricsServer } from '../metrics/server.ts';
import { DEFAULT_READY_AFTER_SCHEDULES, readiness, scheduleIntervalMs } from '../metrics/readiness.ts';
import { startWebhookServer, type WebhookServer } from '../webhooks/server.ts';
import { firstHandler, needsApiOf, startNeedsServer, type NeedsServer } from '../needs/server.ts';
import { NEEDS_PATH } from '../needs/api.ts';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { authRefusalLine } from '../relay/authRefusal.ts';
import { startNotificationDispatcher } from '../notify/dispatcher.ts';

/** Options for {@link runDaemon}. */
export interface DaemonOptions {
  config: LoadedConfig;
  ballast: Ballast;
  logger: Logger;
  /** The controller whose signal the Ballast instance was created with; aborted on shutdown. */
  abort: AbortController;
  /** Run a cycle right away instead of waiting for the first scheduled time. */
  runAtStart?: boolean;
}

/** A running daemon. `stop()` finishes or parks the current cycle, closes the metrics server and the DB. */
export interface DaemonHandle {
  metricsUrl: string | null;
  /** Full URL of the webhook endpoint (to set in the Relay dashboard), or null when webhooks are off. */
  webhookUrl: string | null;
  /** Full URL of the needs API (`…/v1/needs`), or null when `needs.token` is not set. */
  needsUrl: string | null;
  stop(reason: string): Promise<void>;
  /** Resolves after stop() completed. */
  stopped: Promise<void>;
  /**
   * Why the daemon stopped by itself, or null: the Relay API refused the API key (401/403) in the first cycle,
   * a configuration error the CLI turns into exit 2 (src/relay/authRefusal.ts). A refusal in a later cycle (a key
   * revoked while running) does not stop it: it is logged at error level every cycle and counted in
   * `ballast_relay_http_requests_total{status="401"|"403"}` and `ballast_cycles_total{outcome="error"}`.
   */
  readonly fatal: string | null;
}

/**
 * Starts the daemon.
 *
 * @throws when the metrics (or webhooks) listen address cannot be bound
 */
export async function runDaemon(opts: DaemonOptions): Promise<DaemonHandle> {
  const { ballast, config, logger } = opts;
  const log = logger.child({ component: 'daemon' });
  let current: Promise<unknown> | null = null;
  let lastCycleOk: boolean | null = null;
  let lastCycleFinishedAtMs: number | null = null;
  let cyclesRun = 0;
  let fatal: string | null = null;
  const now = ballast.ctx.now;
  const startedAtMs = now();
  const maxAgeMs = (config.metrics?.readyAfterSchedules ?? DEFAULT_READY_AFTER_SCHEDULES) * (await cronIntervalMs(config.schedule));
  const receiver = ballast.webhooks;
  const ownListen = receiver ? config.webhooks?.listen : undefined;
  const needsApi = needsApiOf(ballast.ctx);
  const needsListen = needsApi ? config.needs?.listen : undefined;
  const metricsServer = config.metrics?.listen
    ? await startMetricsServer({
        listen: config.metrics.listen,
        metrics: ballast.metrics,
        health: () => ({ ok: true, detail: { status: 'alive', lastCycleOk, cycleRunning: current !== null } }),
        ready: () => readiness({ nowMs: now(), startedAtMs, lastCycleFinishedAtMs, storeOpen: ballast.storeOpen(), maxAgeMs }),
        ...firstHandler([receiver && !ownListen ? receiver.handle : null, needsApi && !needsListen ? needsApi.handle : null]),
      })
    : null;
  let webhookServer: WebhookServer | null = null;
  let needsServer: NeedsServer | null = null;
  try {
    if (receiver && ownListen) webhookServer = await startWebhookServer(ownListen, receiver);
    if (needsApi && needsListen) needsServer = await startNeedsServer(needsListen, needsApi);
  } catch (error) {
    await metricsServer?.close();
    await webhookServer?.close();
    throw error;
  }
  const needsBase = needsApi ? (needsServer ?? metricsServer)?.url : undefined;
  const needsUrl = needsBase ? `${needsBase}${NEEDS_PATH}` : null;
  const webhookBase = receiver ? (webhookServer ?? metricsServer)?.url : undefined;
  const webhookUrl = receiver && webhookBase ? `${webhookBase}${receiver.path}` : null;

  // Notifications are delivered on a timer of their own: a cycle only queues them and never waits for a sink.
  const dispatcher = ballast.notifyDispatch ? startNotificationDispatcher(ballast.notifyDispatch) : null;
  const leadership = ballast.leadership;
  const cycle = async (): Promise<void> => {
    if (current || opts.abort.signal.aborted) return;
    if (leadership && !leadership.isLeader()) {
      lastCycleFinishedAtMs = now(); // a follower's tick: nothing to do, and nothing wrong
      return;
    }
    const run = ballast
      .runCycle('daemon')
      .then((report) => {
        lastCycleOk = report.outcome !== 'error';
        lastCycleFinishedAtMs = now();
        log.info({ cycleId: report.cycleId, outcome: report.outcome, transfers: report.attempts.map((a) => a.outcome) }, 'cycle finished');
        if (report.authRefusal) {
          const line = authRefusalLine(report.authRefusal);
          log.error(
            {
              cycleId: report.cycleId,
              endpoint: report.authRefusal.endpoint,
              httpStatus: report.authRefusal.httpStatus,
              errorCode: report.authRefusal.errorCode,
            },
            line,
          );
          if (cyclesRun === 0) fatal = line; // first cycle: misconfigured from the start, stop (exit 2)
        }
        cyclesRun++;
      })
      .catch((error: unknown) => {
        if (error instanceof RunLockBusyError && leadership)
          lastCycleFinishedAtMs = now(); // the term ended just before
        else if (error instanceof RunLockBusyError) log.warn('run lock held by another run; cycle skipped');
        else if (error instanceof CycleTakenOverError) {
          // The term ended mid-cycle and the leader that took over closed the cycle: it carries the work on.
          lastCycleFinishedAtMs = now();
          log.warn({ cycleId: error.cycleId }, `cycle ${error.cycleId} was closed by the replica that took over (term ended)`);
        } else {
          lastCycleOk = false;
          lastCycleFinishedAtMs = now();
          // A store lost before the cycle could start (or record what it left) did nothing: not a crash.
          const lost = error instanceof StoreConnectionError;
          log.error(
            { err: shortErrorMessage(error) },
            lost ? 'cycle not run: the store connection was lost; the next tick tries again' : 'cycle crashed',
          );
        }
      })
      .finally(() => {
        current = null;
        dispatcher?.kick(); // what the cycle queued goes out now, not at the next tick
        if (fatal !== null) void handle.stop('relay.apiKey refused by the Relay API in the first cycle');
      });
    current = run;
    await run;
  };

  const task = cron.schedule(config.schedule, cycle, { name: 'ballast-cycle', noOverlap: true });
  if (leadership) {
    leadership.onGained(() => void cycle());
    await leadership.start();
  }
  log.info(
    {
      schedule: config.schedule,
      metrics: metricsServer?.url ?? null,
      webhooks: webhookUrl,
      needs: needsUrl,
      monitorOnly: ballast.mode === 'monitor',
      ...(leadership ? { instance: leadership.instance, leader: leadership.isLeader() } : {}),
    },
    'daemon started',
  );
  // Between cycles the run lock is free: this record tells `run --once` that a daemon acts on this SQLite store.
  const presence = ballast.mode === 'execute' ? markDaemonPresence(config.store, { nowMs: now, logger: log }) : null;
  if (opts.runAtStart) void cycle();

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let stopping = false;
  const handle: DaemonHandle = {
    metricsUrl: metricsServer?.url ?? null,
    webhookUrl,
    needsUrl,
    stopped,
    get fatal() {
      return fatal;
    },
    async stop(reason: string) {
      if (stopping) return stopped;
      stopping = true;
      log.info({ reason }, 'shutting down: no new cycle starts; the current one parks after its current step');
      await task.stop();
      opts.abort.abort();
      if (current) await current;
      presence?.clear();
      await dispatcher?.stop();
      await metricsServer?.close();
      await webhookServer?.close();
      await needsServer?.close();
      await ballast.close();
      log.info('stopped');
      resolveStopped();
    },
  };
  return handle;
}

/** The longest gap between the next ten run times of a cron schedule, ms (a never-started task is asked). */
async function cronIntervalMs(schedule: string): Promise<number> {
  const probe = cron.createTask(schedule, () => undefined);
  try {
    return scheduleIntervalMs(probe.getNextRuns(10));
  } finally {
    await probe.destroy();
  }
}
