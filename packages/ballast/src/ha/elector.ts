/**
 * LeaderElector: keeps one replica of a group the leader through the PostgreSQL lease (docs/ha.md).
 *
 * Every `renewEveryMs` (default ttl / 3) it sends one acquire/renew statement (src/store/pg/lease.ts): the
 * leader renews its epoch, a follower takes the lease once it is free or expired. The monotonic time is read
 * BEFORE each statement is sent; a successful answer makes this replica leader until
 * `sentAt + ttl − margin` (leaseTiming.ts). A timer fires at that deadline, and {@link LeaderElector.isLeader}
 * compares the clock itself, so a leader that cannot renew (database down, connection cut, process paused)
 * stops being leader before the lease can expire, without waiting for any answer.
 *
 * Each term has an AbortSignal, aborted when the term ends; work done as leader passes it along and writes
 * its write-ahead rows through `withFencedTransaction` with {@link LeaderElector.fencingToken}.
 * `stop()` ends the term and releases the lease, so a clean shutdown hands over at the next follower attempt.
 *
 * The elector holds its own connection pool (one connection, reconnected after any error), so renewals never
 * queue behind other queries. The server cancels a lease statement after ¾ of the renew interval (statement and
 * lock timeouts), before the client gives up on it, so at most one lease statement per replica is ever on the
 * server; a lease the database shows ours at an epoch this replica does not act in (an answer that came too
 * late) is released at once rather than left to expire.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Logger } from 'pino';
import { LeaseOptionsError } from './errors.ts';
import { FOLLOWER, isLeaderAt, renewEpoch, stepElector, type ElectorEvent, type ElectorState, type LossReason } from './leaseState.ts';
import { leaseSessionLimits, resolveLeaseTiming, type LeaseTiming, type LeaseTimingInput } from './leaseTiming.ts';
import { ensureLeaseTable, releaseLease, tryAcquireLease, type FencingToken } from '../store/pg/lease.ts';
import { loadPg } from '../store/pg/pgModule.ts';
import { keepAliveOptions } from '../store/pg/keepAlive.ts';

/** Default lease name. */
export const DEFAULT_LEASE_NAME = 'ballast';

/** A term of leadership. */
export interface LeaderTerm {
  /** Epoch of the term (the fencing token's epoch). */
  epoch: bigint;
  /** Aborted when the term ends. */
  signal: AbortSignal;
}

/** Why and when a term ended. */
export interface LeadershipLoss {
  epoch: bigint;
  reason: LossReason;
  /** Monotonic ms when the loss was applied. */
  atMs: number;
  /** The local deadline of the term that ended (monotonic ms). */
  deadlineMs: number;
}

/** Options of {@link LeaderElector}. Times in ms. */
export interface LeaderElectorOptions extends LeaseTimingInput {
  /** PostgreSQL URL (`postgres://…`) of the shared store. */
  connectionString: string;
  /** Lease name shared by the replicas of one treasury; default `ballast`. */
  name?: string;
  /** Owner id; default `<hostname>:<pid>:<random>`, unique per process incarnation. */
  owner?: string;
  /** Create `leader_lease` when missing at start (until the migrations create it); default false. */
  ensureTable?: boolean;
  /** Monotonic clock in ms; default `performance.now`. */
  nowMs?: () => number;
  /** Logger (child `{component: 'leader'}` is made from it). */
  log?: Logger;
  /** Called when this replica becomes leader. */
  onGained?: (term: LeaderTerm) => void;
  /** Called when a term ends (deadline passed, taken over, epoch changed, stopped). */
  onLost?: (loss: LeadershipLoss) => void;
}

function defaultOwner(): string {
  return `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** Elects one leader among replicas sharing a PostgreSQL database. Call {@link start}, then {@link stop}. */
export class LeaderElector {
  /** Resolved timing. */
  readonly timing: LeaseTiming;
  /** Lease name. */
  readonly name: string;
  /** Our owner id. */
  readonly owner: string;
  private readonly pool: pg.Pool;
  private readonly now: () => number;
  private readonly log: Logger | undefined;
  private readonly opts: LeaderElectorOptions;
  private state: ElectorState = FOLLOWER;
  private controller: AbortController | null = null;
  private lastHeldEpoch: bigint | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private deadlineTimer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private running = false;

  /** @throws LeaseOptionsError (`STORE_LEASE_INVALID`) naming a bad option */
  constructor(opts: LeaderElectorOptions) {
    this.timing = resolveLeaseTiming(opts);
    if (!/^postgres(ql)?:\/\//.test(opts.connectionString ?? '')) {
      throw new LeaseOptionsError('connectionString', 'must be a postgres:// or postgresql:// URL');
    }
    this.name = opts.name ?? DEFAULT_LEASE_NAME;
    this.owner = opts.owner ?? defaultOwner();
    this.now = opts.nowMs ?? (() => performance.now());
    this.log = opts.log?.child({ component: 'leader', lease: this.name, owner: this.owner });
    this.opts = opts;
    const limits = leaseSessionLimits(this.timing);
    this.pool = new (loadPg().Pool)({
      connectionString: opts.connectionString,
      max: 1,
      connectionTimeoutMillis: this.timing.renewEveryMs,
      // The client gives up after the renew interval; the server cancels the statement before that (its own
      // statement and lock timeouts), so an abandoned lease statement never runs late.
      query_timeout: this.timing.renewEveryMs,
      statement_timeout: limits.leaseStatementMs,
      lock_timeout: limits.leaseStatementMs,
      options: keepAliveOptions(limits.keepAlive),
      keepAlive: true,
      keepAliveInitialDelayMillis: limits.keepAlive.idleSec * 1000,
      idleTimeoutMillis: 0,
      application_name: `ballast-lease ${this.owner}`.slice(0, 63),
    });
    // A terminated idle connection is reported here and dropped by the pool; the next renew reconnects.
    this.pool.on('error', (err) => this.log?.warn({ err }, 'lease connection lost; reconnecting at the next renew'));
  }

  /**
   * Starts electing: the first attempt runs now, then every `renewEveryMs`.
   * @throws the driver's error when `ensureTable` is set and the table cannot be created
   */
  async start(): Promise<void> {
    if (this.running) return;
    if (this.opts.ensureTable) await ensureLeaseTable(this.pool);
    this.running = true;
    this.inFlight = this.attempt();
    await this.inFlight;
  }

  /** True while this replica is leader and its local deadline is ahead (reads the clock). */
  isLeader(): boolean {
    return isLeaderAt(this.state, this.now());
  }

  /** The current term, or null when not leader (reads the clock). */
  term(): LeaderTerm | null {
    if (!this.isLeader() || this.state.role !== 'leader' || !this.controller) return null;
    return { epoch: this.state.epoch, signal: this.controller.signal };
  }

  /** Epoch of the current term, or null when not leader. */
  epoch(): bigint | null {
    return this.term()?.epoch ?? null;
  }

  /** The signal of the current term; an already aborted signal when not leader. */
  signal(): AbortSignal {
    return this.term()?.signal ?? AbortSignal.abort(new Error('not the leader'));
  }

  /** Fencing token for `withFencedTransaction` / `assertLeaseHeld`, or null when not leader. */
  fencingToken(): FencingToken | null {
    const t = this.term();
    return t ? { name: this.name, owner: this.owner, epoch: t.epoch } : null;
  }

  /**
   * Stops electing: ends the term (signal aborted, `onLost` with reason `stopped`), releases the lease when
   * the database still shows it ours (`expires_at = now()`), and closes the pool. A release that fails is
   * logged; the lease then expires by itself.
   */
  async stop(): Promise<void> {
    if (!this.running) {
      await this.pool.end().catch(() => undefined);
      return;
    }
    this.running = false;
    if (this.renewTimer) clearTimeout(this.renewTimer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    await this.inFlight?.catch(() => undefined);
    this.apply({ kind: 'stopped', nowMs: this.now() });
    const epoch = this.lastHeldEpoch;
    if (epoch !== null) {
      try {
        await releaseLease(this.pool, { name: this.name, owner: this.owner }, epoch);
      } catch (err) {
        this.log?.warn({ err }, 'lease release failed; it expires by itself');
      }
    }
    await this.pool.end().catch((err: unknown) => this.log?.warn({ err }, 'lease pool close failed'));
  }

  private async attempt(): Promise<void> {
    const sentAtMs = this.now();
    try {
      const status = await tryAcquireLease(this.pool, { name: this.name, owner: this.owner }, this.timing.ttlMs, renewEpoch(this.state));
      if (status.held && status.epoch !== null) this.lastHeldEpoch = status.epoch; // stop() releases it
      if (!this.running) return;
      if (status.held && status.epoch !== null) {
        this.apply({ kind: 'held', epoch: status.epoch, sentAtMs, nowMs: this.now() });
      } else {
        this.apply({ kind: 'notHeld', owner: status.owner, nowMs: this.now() });
      }
      if (status.owner === this.owner && status.epoch !== null && this.epochLed() !== status.epoch) await this.handBack(status.epoch);
    } catch (err) {
      if (!this.running) return;
      this.log?.warn({ err }, 'lease renew failed');
      this.apply({ kind: 'renewFailed', nowMs: this.now() });
    }
    if (!this.running) return;
    const delay = Math.max(0, sentAtMs + this.timing.renewEveryMs - this.now());
    this.renewTimer = setTimeout(() => {
      this.inFlight = this.attempt();
    }, delay);
  }

  /** The epoch of the term this replica acts in, or null (the state, not the clock: a term at its deadline counts until applied). */
  private epochLed(): bigint | null {
    return this.state.role === 'leader' ? this.state.epoch : null;
  }

  /**
   * Releases a lease the database shows ours that this replica does not act under: granted by an answer that
   * came after its own deadline, or by a statement the elector had given up on. Until it expired nobody would
   * lead; released, a follower (or this replica, at a new epoch) takes it at the next attempt.
   */
  private async handBack(epoch: bigint): Promise<void> {
    try {
      if (await releaseLease(this.pool, { name: this.name, owner: this.owner }, epoch)) {
        this.log?.warn(
          { epoch: epoch.toString() },
          'the lease was ours at an epoch this replica does not act in (a late answer); released',
        );
      }
    } catch (err) {
      this.log?.warn({ err }, 'lease release failed; it expires by itself');
    }
  }

  private apply(event: ElectorEvent): void {
    const before = this.state;
    const step = stepElector(this.state, event, this.timing);
    this.state = step.state;
    for (const change of step.changes) {
      if (change.kind === 'lost') {
        this.controller?.abort(new Error(`leadership lost (${change.reason})`));
        this.controller = null;
        const deadlineMs = before.role === 'leader' ? before.deadlineMs : event.nowMs;
        this.log?.warn({ epoch: change.epoch.toString(), reason: change.reason }, 'leadership lost');
        this.opts.onLost?.({ epoch: change.epoch, reason: change.reason, atMs: event.nowMs, deadlineMs });
      } else {
        this.controller = new AbortController();
        this.log?.info({ epoch: change.epoch.toString() }, 'leadership gained');
        this.opts.onGained?.({ epoch: change.epoch, signal: this.controller.signal });
      }
    }
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
    if (this.state.role === 'leader' && this.running) {
      const wait = Math.max(0, this.state.deadlineMs - this.now());
      this.deadlineTimer = setTimeout(() => this.apply({ kind: 'clock', nowMs: this.now() }), wait);
    }
  }
}
