/**
 * A real PostgreSQL server for tests, on loopback, in a fresh temporary directory.
 *
 * Usage (one server per test file, one database per test):
 *
 * ```ts
 * let pg: PostgresServer;
 * beforeAll(async () => { pg = await startPostgres(); });
 * afterAll(async () => { await pg?.stop(); });
 * it('...', async () => { const url = await createDatabase(pg.url, 'lease_a'); ... });
 * ```
 *
 * - Binaries: `BALLAST_PG_BIN` if set, else the newest `/usr/lib/postgresql/<major>/bin` (Debian's
 *   `postgresql` package, installed by scripts/ensure-system-deps.sh; Debian keeps them off PATH), else PATH.
 * - The cluster is a copy (`cp -a`) of one made by `initdb` (trust authentication, user `postgres`, no fsync) and
 *   kept in `node_modules/.cache/ballast-postgres/<version>-<uid>/data`: `initdb` runs once per machine and
 *   PostgreSQL version (about 3 s) instead of once per server; the copy takes a few hundred milliseconds. Then
 *   `postgres -D <dir>/data -p <port> -k <dir> -h 127.0.0.1` on a free loopback port, with fsync and
 *   synchronous commit off (test data only).
 * - PostgreSQL refuses to run as root: when the tests run as root, the directory is chowned to Debian's
 *   `postgres` user and both processes run as that user.
 * - Ready means a `SELECT 1` over TCP succeeded. `stop()` ends the server by PID (SIGINT, fast shutdown; SIGKILL
 *   after 10 s) and removes the directory. `halt()`/`resume()` stop and start the same server on the same
 *   directory and port (a database restart); a server left running when the process exits is killed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../e2e/helpers/freePort.ts';

/** A running test PostgreSQL server. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  readonly url: string;
  /** TCP port on 127.0.0.1. */
  readonly port: number;
  /** Temporary directory holding the cluster (`data/`) and the Unix socket. */
  readonly dir: string;
  /** PID of the postmaster while it runs, else null. */
  pid(): number | null;
  /** Stops the server (fast shutdown, by PID) and keeps the directory; `resume()` starts it again. */
  halt(): Promise<void>;
  /** Starts the server again on the same directory and port, resolving once it accepts connections. */
  resume(): Promise<void>;
  /** Stops the server and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /** Milliseconds to wait for the server to accept connections; default 30 000. */
  readyTimeoutMs?: number;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Directory holding initdb and postgres. Throws naming the package to install when none is found. */
export function postgresBinDir(): string {
  const fromEnv = process.env.BALLAST_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((v) => /^[0-9]+$/.test(v) && existsSync(path.join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return path.join(root, majors[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return path.dirname(which.stdout.trim());
  throw new Error(
    'PostgreSQL server binaries (initdb, postgres) not found in /usr/lib/postgresql/*/bin or on PATH; ' +
      'run scripts/ensure-system-deps.sh (Debian package postgresql) or set BALLAST_PG_BIN',
  );
}

/** uid/gid to run PostgreSQL as: Debian's `postgres` user when we are root, else ourselves (undefined). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const fields = line?.split(':');
  if (!fields || fields.length < 4) {
    throw new Error('running as root but there is no `postgres` user; install Debian package postgresql');
  }
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** Where initialized clusters are kept, one per PostgreSQL version and user (beside the sandbox's compile cache). */
const TEMPLATE_CACHE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/ballast-postgres');

/** Copies a directory tree with its modes and owners (`cp -a`: a cluster's directory must stay 0700, its owner's). */
function copyTree(from: string, to: string): void {
  const cp = spawnSync('cp', ['-a', from, to], { encoding: 'utf8' });
  if (cp.status !== 0) throw new Error(`cp -a ${from} ${to} failed (exit ${cp.status}): ${cp.stderr || String(cp.error)}`);
}

const templates = new Map<string, string>();

/**
 * The data directory of a cluster `initdb` made (trust authentication, user `postgres`, UTF8, C locale), never
 * started: made once per PostgreSQL version and user in {@link TEMPLATE_CACHE} (in a temporary directory, where the
 * server's user may write, then copied in and renamed into place, so concurrent test processes never see half of
 * one), and copied for each server.
 *
 * @throws when `postgres --version` or initdb fails
 */
function clusterTemplate(bin: string, user: { uid: number; gid: number } | undefined): string {
  const version = spawnSync(path.join(bin, 'postgres'), ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) throw new Error(`${path.join(bin, 'postgres')} --version failed: ${version.stderr || String(version.error)}`);
  const key = `${version.stdout.trim().replace(/[^A-Za-z0-9.]+/g, '-')}-${user?.uid ?? process.getuid?.() ?? 'user'}`;
  const known = templates.get(key);
  if (known) return known;
  const home = path.join(TEMPLATE_CACHE, key);
  const data = path.join(home, 'data');
  if (!existsSync(path.join(data, 'PG_VERSION'))) {
    const work = mkdtempSync(path.join(os.tmpdir(), 'ballast-pg-initdb-'));
    try {
      if (user) chownSync(work, user.uid, user.gid);
      const init = spawnSync(
        path.join(bin, 'initdb'),
        ['-D', path.join(work, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'],
        { cwd: work, env: { ...process.env, LC_ALL: 'C', LANG: 'C', HOME: work }, encoding: 'utf8', ...(user ?? {}) },
      );
      if (init.status !== 0) throw new Error(`initdb failed (exit ${init.status}): ${init.stderr || init.stdout || String(init.error)}`);
      mkdirSync(TEMPLATE_CACHE, { recursive: true });
      const staging = mkdtempSync(path.join(TEMPLATE_CACHE, `.${key}-`));
      copyTree(path.join(work, 'data'), path.join(staging, 'data'));
      try {
        renameSync(staging, home);
      } catch {
        rmSync(staging, { recursive: true, force: true }); // another process put one in place first
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  templates.set(key, data);
  return data;
}

/**
 * Starts a fresh PostgreSQL cluster on 127.0.0.1 and a free port.
 * @returns the running server; call `stop()` in afterAll.
 * @throws when the binaries are missing, initdb fails, or the server is not ready in time (with its log tail).
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const user = serverUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-pg-'));
  const dataDir = path.join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  const spawnUser = user ? { uid: user.uid, gid: user.gid } : {};
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C', HOME: dir };

  try {
    copyTree(clusterTemplate(bin, user), dataDir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  let port = 0;
  let url = '';
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  let child: ChildProcess | null = null;
  let log = '';
  let removed = false;

  const launch = async (): Promise<void> => {
    log = '';
    const proc = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-k',
        dir,
        '-h',
        '127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
      ],
      { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'], ...spawnUser },
    );
    child = proc;
    running.add(proc);
    proc.stderr?.on('data', (b: Buffer) => {
      log = (log + b.toString()).slice(-8000);
    });
    proc.on('exit', () => {
      running.delete(proc);
      if (child === proc) child = null;
    });
    const until = Date.now() + readyTimeoutMs;
    for (;;) {
      if (child !== proc) throw new Error(`postgres exited before accepting connections:\n${log}`);
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
      client.on('error', () => undefined); // a refused connection is expected while it starts
      const ok = await client.connect().then(
        () => client.query('SELECT 1').then(() => true),
        () => false,
      );
      await client.end().catch(() => undefined);
      if (ok) return;
      if (Date.now() > until) throw new Error(`postgres not ready on port ${port} after ${readyTimeoutMs} ms:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const halt = async (): Promise<void> => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGINT'); // fast shutdown: ends sessions, checkpoints, exits
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    try {
      await launch();
      break;
    } catch (err) {
      await halt();
      // Another process took the free port in between: pick another one.
      if (attempt < 3 && /could not bind|already in use/i.test(log)) continue;
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  return {
    url,
    port,
    dir,
    pid: () => child?.pid ?? null,
    halt,
    resume: async () => {
      if (removed) throw new Error('postgres test server was stopped and its directory removed; start a new one');
      if (child) return;
      await launch();
    },
    stop: async () => {
      await halt();
      if (!removed) rmSync(dir, { recursive: true, force: true });
      removed = true;
    },
  };
}

/**
 * Creates database `name` on the server of `url` (for test isolation) and returns its URL.
 * @param name lowercase letters, digits and `_`, starting with a letter.
 * @throws when the name is not of that form or CREATE DATABASE fails (e.g. it exists).
 */
export async function createDatabase(url: string, name: string): Promise<string> {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`database name ${JSON.stringify(name)}: use lowercase letters, digits and _, starting with a letter`);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  } finally {
    await client.end();
  }
  const out = new URL(url);
  out.pathname = `/${name}`;
  return out.toString();
}
