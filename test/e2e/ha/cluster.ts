/**
 * Replicas of `ballast daemon` (real child processes of bin/ballast.mjs) sharing one PostgreSQL store on the sandbox,
 * for the failover suite: each replica gets its own config file (its metrics port and `ha.instance`), the same
 * lease and store, a schedule of one cycle per second and a short lease (ttl 3 s, renew 1 s, margin 600 ms).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { stringify } from 'yaml';
import { sandboxEnv } from '../../../packages/ballast/src/cli/sandboxEnv.ts';
import type { Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { readLease } from '../../../packages/ballast/src/store/pg/lease.ts';
import { cliArgv, ROOT } from '../helpers/cli.ts';
import { demoConfigFor } from '../helpers/demoConfig.ts';
import { freePort } from '../helpers/freePort.ts';

/** The lease timing of every replica, ms. */
export const LEASE = { ttlMs: 3000, renewEveryMs: 1000, marginMs: 600 } as const;
/** Longest time from the leader's last renew to a follower leading (ttl + renew interval), ms. */
export const TAKEOVER_BOUND_MS = LEASE.ttlMs + LEASE.renewEveryMs;

/** One replica process. */
export interface Replica {
  name: string;
  child: ChildProcess;
  pid: number;
  metricsUrl: string;
  /** Everything it wrote to stderr (its JSON log lines) so far. */
  log(): string;
  /** Resolves with the exit code (or null after a signal) when it exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
  /** Whether the process still runs. */
  alive(): boolean;
}

/** Options of {@link startReplica}. */
export interface ReplicaOptions {
  sandbox: Sandbox;
  dir: string;
  /** Replica name, also its `ha.instance`. */
  name: string;
  /** The store URL this replica uses (the database itself, or through a proxy). */
  storeUrl: string;
  /** Extra environment, e.g. `BALLAST_PAUSE_AT` or `BALLAST_CRASH_AT`. */
  env?: Record<string, string>;
}

const taken = new Set<number>();
/** Every replica process still running, whether its start completed or not. */
const spawned = new Set<ChildProcess>();

/** Kills (SIGCONT, then SIGKILL) every replica still running, including ones whose start failed. */
export async function killAllReplicas(): Promise<void> {
  await Promise.all(
    [...spawned].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          child.kill('SIGCONT');
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** A free loopback port not handed to another replica of this process (replicas may start at the same time). */
async function replicaPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
}

/** Starts one replica and resolves once its metrics server answers. */
export async function startReplica(o: ReplicaOptions): Promise<Replica> {
  const port = await replicaPort();
  const configFile = path.join(o.dir, `${o.name}.yaml`);
  const doc = demoConfigFor(o.sandbox);
  writeFileSync(
    configFile,
    stringify({
      ...doc,
      store: o.storeUrl,
      schedule: '* * * * * *',
      metrics: { listen: `127.0.0.1:${port}` },
      tracking: { pollMs: 200, timeoutSec: 120 },
      ha: { lease: 'ballast', instance: o.name, ...LEASE },
    }),
  );
  const env = { ...process.env, ...sandboxEnv(o.sandbox, o.storeUrl), BALLAST_CRASH_AT: '', BALLAST_PAUSE_AT: '', ...o.env };
  // The CLI as installed (the build when current, which starts in about half the CPU time of the sources through tsx).
  const child = spawn(process.execPath, cliArgv(['daemon', '--log-level', 'info', '--config', configFile]), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let running = true;
  spawned.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>((resolve) =>
    child.on('close', (code, signal) => {
      running = false;
      spawned.delete(child);
      resolve({ code, signal, atMs: Date.now() });
    }),
  );
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (!running) throw new Error(`replica ${o.name} exited at start:\n${stderr.slice(-3000)}`);
    // A replica told to pause itself may stop before answering: its server is up but will not reply, so each
    // probe has a deadline and a stopped replica counts as started.
    if (isStopped(child.pid!)) break;
    if (
      await fetch(metricsUrl, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > until) throw new Error(`replica ${o.name} did not serve /metrics within 30 s:\n${stderr.slice(-3000)}`);
    await sleep(200);
  }
  return { name: o.name, child, pid: child.pid!, metricsUrl, log: () => stderr, exited, alive: () => running };
}

/** Stops replicas: SIGCONT (a paused one), then SIGTERM, then SIGKILL after 20 s. */
export async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  await Promise.all(
    replicas.map(async (r) => {
      if (!r.alive()) return;
      r.child.kill('SIGCONT');
      r.child.kill('SIGTERM');
      const timer = setTimeout(() => r.child.kill('SIGKILL'), 20_000);
      await r.exited;
      clearTimeout(timer);
    }),
  );
}

/** The replica holding a live lease, by name, or null (read from the database, as an operator would). */
export async function leaseHolder(dbUrl: string): Promise<{ name: string; epoch: bigint } | null> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const row = await readLease(client, 'ballast');
    if (!row || row.expiresAt.getTime() <= (await dbNow(client))) return null;
    return { name: row.owner.split(':')[0]!, epoch: row.epoch };
  } finally {
    await client.end();
  }
}

async function dbNow(client: pg.Client): Promise<number> {
  const r = await client.query<{ now: Date }>('SELECT clock_timestamp() AS now');
  return r.rows[0]!.now.getTime();
}

/** The value of `ballast_leader{instance="<name>"}` on a replica's /metrics, or null when it cannot be read. */
export async function leaderGauge(r: Replica): Promise<number | null> {
  const text = await fetch(r.metricsUrl).then(
    (res) => res.text(),
    () => null,
  );
  if (text === null) return null;
  const m = new RegExp(`^ballast_leader\\{instance="${r.name}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

/** Polls `fn` every 100 ms until it returns non-null; rejects after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** Whether a process is stopped (SIGSTOP): state `T` in /proc/<pid>/stat. */
export function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^\d+ \(.*\) T /.test(stat);
  } catch {
    return false;
  }
}

/** Sleeps `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
