/**
 * TCP keepalives of a PostgreSQL session, set on the server through the startup `options` (docs/ha.md
 * "Partitions"): a session whose peer vanished is ended by the server, and with it every lock it held.
 */

/** TCP keepalive settings of a PostgreSQL session (server GUCs `tcp_keepalives_*` and `tcp_user_timeout`). */
export interface PgKeepAlive {
  /** Seconds without traffic before the first probe (≥ 1). */
  idleSec: number;
  /** Seconds between probes (≥ 1). */
  intervalSec: number;
  /** Probes unanswered before the connection is dropped (≥ 1). */
  count: number;
  /** Milliseconds sent data may stay unacknowledged before the connection is dropped (≥ 1). */
  userTimeoutMs: number;
}

/**
 * The startup `options` that set {@link PgKeepAlive} on the server (`-c name=value`; each one a user-settable
 * GUC, ignored on a Unix socket).
 */
export function keepAliveOptions(k: PgKeepAlive): string {
  const whole = (name: string, v: number): number => {
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`keepAlive.${name}: expected a whole number ≥ 1, got ${v}`);
    return v;
  };
  return [
    `-c tcp_keepalives_idle=${whole('idleSec', k.idleSec)}`,
    `-c tcp_keepalives_interval=${whole('intervalSec', k.intervalSec)}`,
    `-c tcp_keepalives_count=${whole('count', k.count)}`,
    `-c tcp_user_timeout=${whole('userTimeoutMs', k.userTimeoutMs)}`,
  ].join(' ');
}
