/**
 * Who may act when the store is PostgreSQL and several replicas share it: the holder of the leader lease
 * (src/ha/elector.ts, docs/ha.md). The guard runs the elector, hands the store the term's fencing token for every
 * write-ahead (`PgStoreDb.setFencing`), and runs cycles only while this process leads, with a signal that aborts
 * when the term ends. It is the PostgreSQL counterpart of the SQLite run lock (src/app/runLock.ts): a one-shot
 * run (`run --once`, `withdraw`) takes the same lease as the daemons, so a cron job and a daemon never act at once.
 *
 * Fencing is tied to the term a run started in, not to "leads now": a replica that lost the lease while blocked
 * (in signing, a long RPC call, a pause) and won it back in a later term is leader again, but the work started in
 * the earlier term must neither write ahead nor broadcast what it signed then. Each {@link LeaderGuard.run} keeps its
 * term's epoch in its async context; the write-ahead's fencing token and {@link LeaderGuard.leadsRunTerm} use it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { HaConfig } from '../config/haSchema.ts';
import { initLeaderMetrics, type LeaderMetrics } from '../metrics/leaderMetrics.ts';
import { LeaderElector, type LeadershipLoss } from '../ha/elector.ts';
import { readLease, type FencingToken } from '../store/pg/lease.ts';
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
  /** The epoch of the term the enclosing {@link run} started in (its async context); absent outside a run. */
  private readonly runTerm = new AsyncLocalStorage<bigint>();

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
    opts.store.setFencing(() => this.fencingToken());
  }

  /**
   * The token a write-ahead presents to the store's fencing check (`assertLeaseHeld`): null when this replica has
   * no current term (refused with `STORE_NOT_LEADER`); inside {@link run}, our owner with the epoch of the term the
   * run STARTED in, so a run whose term ended is refused by the database (`STORE_LEASE_LOST`) even when this
   * replica leads again in a later term (epochs only grow: the row never carries the old epoch again); outside a
   * run, the current term's token.
   */
  fencingToken(): FencingToken | null {
    const current = this.elector.fencingToken();
    if (!current) return null;
    const started = this.runTerm.getStore();
    return started === undefined ? current : { ...current, epoch: started };
  }

  /**
   * Whether the work calling it may still act as leader (the pre-broadcast check, `ctx.leading`): inside
   * {@link run}, true only while this replica leads (local deadline ahead) in the same term the run started in;
   * outside a run, {@link isLeader}. Reads the clock.
   */
  leadsRunTerm(): boolean {
    const epoch = this.elector.epoch();
    if (epoch === null) return false;
    const started = this.runTerm.getStore();
    return started === undefined || started === epoch;
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
   * write-ahead inside it (its async context) is fenced by the epoch of the term it started in, whatever the signal
   * says, and {@link leadsRunTerm} inside it answers for that term: once the term ended, nothing `fn` signed is
   * written ahead or broadcast, even after this replica won the lease back.
   *
   * @throws RunLockBusyError (`RUN_LOCK_BUSY`, exit 4) naming the holder when another replica leads
   */
  async run<T>(outer: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    await this.start();
    const term = this.elector.term();
    if (!term) throw await this.busy();
    const signal = outer ? AbortSignal.any([outer, term.signal]) : term.signal;
    return this.runTerm.run(term.epoch, () => fn(signal));
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
  /** See {@link LeaderGuard.leadsRunTerm}: the pre-broadcast check of work started by {@link run}. */
  leadsRunTerm(): boolean;
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
export function createLeadership(o: {
  url: string;
  ha: HaConfig;
  store: PgStoreDb;
  metrics: LeaderMetrics;
  logger: Logger;
  /** Called with the new term's epoch each time this replica becomes leader (the `leader_changed` notification). */
  onGainedTerm?: (epoch: bigint) => void;
}): Leadership {
  const instance = haInstance(o.ha);
  initLeaderMetrics(o.metrics, instance);
  const gained: Array<() => void> = [];
  const guard = new LeaderGuard({
    url: o.url,
    ha: o.ha,
    store: o.store,
    logger: o.logger,
    onChange: (leader, detail) => {
      o.metrics.leader.set({ instance }, leader ? 1 : 0);
      o.metrics.leaderTransitionsTotal.inc({ instance, change: leader ? 'gained' : 'lost' });
      if (leader) o.onGainedTerm?.(detail.epoch);
      if (leader) for (const cb of gained) cb();
    },
  });
  return {
    instance,
    start: () => guard.start(),
    isLeader: () => guard.isLeader(),
    leadsRunTerm: () => guard.leadsRunTerm(),
    run: (outer, fn) => guard.run(outer, fn),
    onGained: (cb) => void gained.push(cb),
    stop: async () => {
      await guard.stop();
      o.metrics.leader.set({ instance }, 0);
    },
  };
}
