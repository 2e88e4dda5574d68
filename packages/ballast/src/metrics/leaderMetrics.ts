/**
 * Metrics of the leader lease (replicas sharing a PostgreSQL store, docs/ha.md). Registered by `createMetrics`
 * (src/metrics/metrics.ts); they carry samples only when the store is PostgreSQL (a SQLite store has no lease).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** Values of the `change` label of `ballast_leader_transitions_total`. */
export const LEADER_CHANGES = ['gained', 'lost'] as const;

/** The lease metrics; part of `BallastMetrics`. */
export interface LeaderMetrics {
  /** `ballast_leader{instance}`: 1 while this replica leads (plans and signs), 0 while it follows. */
  leader: Gauge<'instance'>;
  /** `ballast_leader_transitions_total{instance, change}`: terms gained and lost by this replica. */
  leaderTransitionsTotal: Counter<'instance' | 'change'>;
}

/** Creates the lease metrics in `registry`. */
export function createLeaderMetrics(registry: Registry): LeaderMetrics {
  const registers = [registry];
  return {
    leader: new Gauge({
      name: 'ballast_leader',
      help: '1 while this replica holds the leader lease (it plans and signs), 0 while it follows; PostgreSQL store only.',
      labelNames: ['instance'],
      registers,
    }),
    leaderTransitionsTotal: new Counter({
      name: 'ballast_leader_transitions_total',
      help: 'Leader terms gained and lost by this replica (change: gained, lost); PostgreSQL store only.',
      labelNames: ['instance', 'change'],
      registers,
    }),
  };
}

/**
 * Sets the lease metrics of `instance` to follower (0) with both transition counters at 0, so the series exist
 * from the start.
 */
export function initLeaderMetrics(m: LeaderMetrics, instance: string): void {
  m.leader.set({ instance }, 0);
  for (const change of LEADER_CHANGES) m.leaderTransitionsTotal.inc({ instance, change }, 0);
}
