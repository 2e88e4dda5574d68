/**
 * Who may act when the store is PostgreSQL and several replicas share it: the holder of the leader lease
 * (src/ha/elector.ts, docs/ha.md). The guard runs the elector, hands the store the term's fencing token for every
 * write-ahead (`PgStoreDb.setFencing`), and runs cycles only while this process leads, with a signal that aborts
 * when the term ends. It is the PostgreSQL counterpart of the SQLite run lock (src/app/runLock.ts): a one-shot
 * run (`run --once`, `withdraw`) takes the same lease as the daemons, so a cron job and a daemon never act at once.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { HaConfig } from '../config/haSchema.ts';
import { initLeaderMetrics, type LeaderMetrics } from '../metrics/leaderMetrics.ts';
import { LeaderElector, type LeadershipLoss } from '../ha/elector.ts';
import { readLease } from '../store/pg/lease.ts';
import type { PgStoreDb } from '../store/pg/pgDb.ts';
import { RunLockBusyError } from './runLock.ts';

/** Options of {@link LeaderGuard}. */
export interface LeaderGuardOptions {
  /** The store's URL (`postgres://…`); the elector keeps its own one-connection pool to it. */
  url: string;
  ha: HaConfig;
  store: PgStoreDb;
  logger: Logger;
  /** Called on every change of role (true: this process now leads). */
  onChange?: (leader: boolean, detail: { epoch: bigint; reason?: LeadershipLoss['reason'] }) => void;
}

/** The label of this replica: `ha.instance`, else the host name (the pod name in Kubernetes). */
export function haInstance(ha: HaConfig): string {
  return ha.instance ?? hostname();
}

/** Runs work only while this replica holds the leader lease. */
export class LeaderGuard {
  readonly instance: string;
  private readonly elector: LeaderElector;
  private started: Promise<void> | null = null;

  /** @throws LeaseOptionsError (`STORE_LEASE_INVALID`) on bad timing (already refused by the config checks) */
  constructor(private readonly opts: LeaderGuardOptions) {
    this.instance = haInstance(opts.ha);
    this.elector = new LeaderElector({
      connectionString: opts.url,
      name: opts.ha.lease,
      ttlMs: opts.ha.ttlMs,
      ...(opts.ha.renewEveryMs !== undefined ? { renewEveryMs: opts.ha.renewEveryMs } : {}),
      ...(opts.ha.marginMs !== undefined ? { marginMs: opts.ha.marginMs } : {}),
      owner: `${this.instance}:${process.pid}:${randomUUID().slice(0, 8)}`,
      log: opts.logger,
      onGained: (term) => opts.onChange?.(true, { epoch: term.epoch }),
      onLost: (loss) => opts.onChange?.(false, { epoch: loss.epoch, reason: loss.reason }),
    });
    opts.store.setFencing(() => this.elector.fencingToken());
  }

  /** Starts electing (first attempt awaited); later calls return the same promise. */
  start(): Promise<void> {
    this.started ??= this.elector.start();
    return this.started;
  }

  /** True while this replica leads and its local deadline is ahead (reads the clock). */
  isLeader(): boolean {
    return this.elector.isLeader();
  }

  /**
   * Runs `fn` as leader. `fn` receives a signal aborted when the process shuts down (`outer`) or the term ends; every
   * write-ahead inside it is fenced by the term's epoch whatever the signal says.
   *
   * @throws RunLockBusyError (`RUN_LOCK_BUSY`, exit 4) naming the holder when another replica leads
   */
  async run<T>(outer: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    await this.start();
    const term = this.elector.term();
    if (!term) throw await this.busy();
    return fn(outer ? AbortSignal.any([outer, term.signal]) : term.signal);
  }

  /** Stops electing and releases the lease when held, so a follower takes over at its next attempt. */
  async stop(): Promise<void> {
    await this.elector.stop();
  }

  private async busy(): Promise<RunLockBusyError> {
    try {
      const row = await readLease(this.opts.store.pool, this.opts.ha.lease);
      if (!row || row.owner === this.elector.owner) return new RunLockBusyError();
      const parts = row.owner.split(':');
      const pid = Number(parts[parts.length - 2]);
      return new RunLockBusyError({
        owner: row.owner,
        pid: Number.isSafeInteger(pid) ? pid : 0,
        acquiredAtMs: row.acquiredAt.getTime(),
        expiresAtMs: row.expiresAt.getTime(),
      });
    } catch {
      return new RunLockBusyError(); // the lease row cannot be read: say only that this process does not lead
    }
  }
}

/** What the daemon and the CLI see of the lease. */
export interface Leadership {
  /** This replica's label (`ha.instance` or the host name). */
  readonly instance: string;
  start(): Promise<void>;
  isLeader(): boolean;
  /** See {@link LeaderGuard.run}. */
  run<T>(outer: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Registers a callback run each time this replica becomes leader (e.g. to start a cycle at once). */
  onGained(cb: () => void): void;
  stop(): Promise<void>;
}

/**
 * Wires the lease of a PostgreSQL store: the guard, `ballast_leader{instance}` and the transitions counter.
 *
 * @param o.url the store URL; o.ha the `ha:` section; o.store the open store (its write-aheads get fenced)
 */
export function createLeadership(o: { url: string; ha: HaConfig; store: PgStoreDb; metrics: LeaderMetrics; logger: Logger }): Leadership {
  const instance = haInstance(o.ha);
  initLeaderMetrics(o.metrics, instance);
  const gained: Array<() => void> = [];
  const guard = new LeaderGuard({
    url: o.url,
    ha: o.ha,
    store: o.store,
    logger: o.logger,
    onChange: (leader) => {
      o.metrics.leader.set({ instance }, leader ? 1 : 0);
      o.metrics.leaderTransitionsTotal.inc({ instance, change: leader ? 'gained' : 'lost' });
      if (leader) for (const cb of gained) cb();
    },
  });
  return {
    instance,
    start: () => guard.start(),
    isLeader: () => guard.isLeader(),
    run: (outer, fn) => guard.run(outer, fn),
    onGained: (cb) => void gained.push(cb),
    stop: async () => {
      await guard.stop();
      o.metrics.leader.set({ instance }, 0);
    },
  };
}
