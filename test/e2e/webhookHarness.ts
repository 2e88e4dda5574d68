/**
 * Harness of the webhook end-to-end tests: the daemon (in process) on a running sandbox, wired from
 * config/demo.yaml with an API key, webhooks enabled and the given tracking, a fresh SQLite file.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { createBallast } from '../../packages/ballast/src/app/createBallast.ts';
import { runDaemon, type DaemonHandle } from '../../packages/ballast/src/app/daemon.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { loadConfig } from '../../packages/ballast/src/config/loadConfig.ts';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { memoryLogger } from './helpers/sandboxBallast.ts';
export { freePort } from './helpers/freePort.ts';

/** The API key shared by the sandbox (webhook secret) and Ballast (`relay.apiKey`). */
export const WEBHOOK_API_KEY = 'sandbox-webhook-key-5c1e9a';

let runs = 0;

/** Polls `fn` every 100 ms until it returns non-null; throws naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => T | null, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Reads the store file with a connection of its own (the daemon keeps writing through its own). */
export function readStore<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/**
 * Starts the daemon on `sandbox` with webhooks enabled; a cycle runs at once (the schedule never fires).
 *
 * @param sections `webhooks` and `metrics` sections and `tracking` of the config
 */
export async function daemonOnSandbox(
  sandbox: Sandbox,
  dir: string,
  sections: { webhooks: Record<string, unknown>; metrics: { listen: string }; tracking: Record<string, unknown> },
): Promise<{ daemon: DaemonHandle; store: string; logLines: string[] }> {
  const base = demoConfigFor(sandbox);
  const doc = {
    ...base,
    relay: { ...(base.relay as object), apiKey: '${RELAY_API_KEY}' },
    schedule: '0 0 1 1 *',
    ...sections,
  };
  const n = ++runs;
  const configFile = path.join(dir, `webhooks-${n}.yaml`);
  const store = path.join(dir, `webhooks-${n}.db`);
  writeFileSync(configFile, stringify(doc));
  const config = loadConfig(configFile, { ...sandboxEnv(sandbox, store), RELAY_API_KEY: WEBHOOK_API_KEY });
  const { logger, lines } = memoryLogger();
  const abort = new AbortController();
  const ballast = createBallast(config, { logger, chainPollingIntervalMs: 50, signal: abort.signal });
  const daemon = await runDaemon({ config, ballast, logger, abort, runAtStart: true });
  return { daemon, store, logLines: lines };
}
