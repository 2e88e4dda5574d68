/**
 * End-to-end harness: a running sandbox plus a Ballast instance wired from config/demo.yaml with per-test
 * overrides, a fresh SQLite file and fast polling.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import type { Address } from 'viem';
import { createBallast, openBallastApp, type Ballast } from '../../../packages/ballast/src/app/createBallast.ts';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { createLogger } from '../../../packages/ballast/src/log/logger.ts';
import { sandboxEnv } from '../../../packages/ballast/src/cli/sandboxEnv.ts';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../packages/sandbox/src/startSandbox.ts';
import { demoConfigFor, withoutUnknownLimits } from './demoConfig.ts';

/** Overrides merged into config/demo.yaml (top-level keys replaced; `wallets` and `chains` entries added). */
export interface ConfigOverrides {
  relay?: Record<string, unknown>;
  policy?: Record<string, unknown>;
  tracking?: Record<string, unknown>;
  assets?: Record<string, unknown>;
  wallets?: Record<string, unknown>;
  chains?: Record<string, unknown>;
  /** The `notify:` section (docs/notifications.md). */
  notify?: Record<string, unknown>;
}

/** A temp dir for one test file; `cleanup()` removes it. */
export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A fresh sandbox per test: `start()` starts it, `closeAfter()` registers what to close with it (a Ballast).
 * After each test everything registered is closed (in order, each awaited) and the sandbox, with its anvil
 * processes, is stopped. Call at the top level of a test file.
 */
export function sandboxPerTest(): { start(opts?: SandboxOptions): Promise<Sandbox>; closeAfter(close: () => void | Promise<void>): void } {
  let sandbox: Sandbox | null = null;
  const closeAfter = closeAfterEach(async () => {
    await sandbox?.stop();
    sandbox = null;
  });
  return {
    async start(opts) {
      sandbox = await startSandbox(opts);
      return sandbox;
    },
    closeAfter,
  };
}

/**
 * One sandbox, started with `opts` before the first test of the file (or `describe` block) this is called in and
 * stopped after its last; `get()` returns it inside a test. After each test everything `closeAfter()` registered is
 * closed (in order, each awaited) and the sandbox's faults are reset. The tests share the chains' balances, so each
 * asserts only what it changed.
 */
export function sandboxPerFile(opts?: SandboxOptions): { get(): Sandbox; closeAfter(close: () => void | Promise<void>): void } {
  let sandbox: Sandbox | null = null;
  beforeAll(async () => {
    sandbox = await startSandbox(opts);
  });
  afterAll(async () => {
    await sandbox?.stop();
    sandbox = null;
  });
  const closeAfter = closeAfterEach(() => sandbox?.resetFaults());
  return {
    get() {
      if (!sandbox) throw new Error('sandboxPerFile: the sandbox is started before the first test and stopped after the last');
      return sandbox;
    },
    closeAfter,
  };
}

/** Registers an `afterEach` that closes what was registered during the test, in order, then runs `then`. */
function closeAfterEach(then: () => void | Promise<void>): (close: () => void | Promise<void>) => void {
  const closers: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await then();
  });
  return (close) => void closers.push(close);
}

/** Collects log lines in memory (tests assert on them and keep stdout clean). */
export function memoryLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { logger: createLogger({ level: 'debug', destination: stream }), lines };
}

let counter = 0;

/** Writes config/demo.yaml for `sandbox` with `overrides` into `dir`; returns its path and a fresh SQLite path. */
function writeSandboxConfig(sandbox: Sandbox, dir: string, overrides: ConfigOverrides): { configFile: string; store: string } {
  const base = demoConfigFor(sandbox);
  const doc = withoutUnknownLimits({
    ...base,
    tracking: { pollMs: 200, timeoutSec: 20 },
    ...overrides,
    policy: { ...(base.policy as object), ...overrides.policy },
    relay: { ...(base.relay as object), ...overrides.relay },
    wallets: { ...(base.wallets as object), ...overrides.wallets },
    chains: { ...(base.chains as object), ...overrides.chains },
  });
  const n = ++counter;
  const configFile = path.join(dir, `ballast-${n}.yaml`);
  writeFileSync(configFile, stringify(doc));
  return { configFile, store: path.join(dir, `ballast-${n}.db`) };
}

/**
 * Writes a config for `sandbox` into `dir` and wires Ballast from it.
 *
 * @param wiring.now a clock to wire instead of `Date.now` (e.g. one a test moves ahead)
 * @param wiring.store a SQLite store to use (e.g. one an earlier instance wrote) instead of a fresh one
 * @returns the Ballast instance, the config path and the store path
 */
export function ballastOnSandbox(
  sandbox: Sandbox,
  dir: string,
  overrides: ConfigOverrides = {},
  envOverrides: Record<string, string> = {},
  wiring: { now?: () => number; store?: string } = {},
) {
  const written = writeSandboxConfig(sandbox, dir, overrides);
  const { configFile } = written;
  const store = wiring.store ?? written.store;
  const config = loadConfig(configFile, { ...sandboxEnv(sandbox, store), ...envOverrides });
  const { logger, lines } = memoryLogger();
  const ballast: Ballast = createBallast(config, { logger, chainPollingIntervalMs: 50, ...(wiring.now ? { now: wiring.now } : {}) });
  return { ballast, config, configFile, store, logLines: lines };
}

/**
 * As {@link ballastOnSandbox}, on the store `store` (a SQLite path or a PostgreSQL URL: then the instance takes
 * the leader lease for each signing cycle, like a one-replica deployment).
 */
export async function openBallastOnSandbox(sandbox: Sandbox, dir: string, store: string, overrides: ConfigOverrides = {}) {
  const { configFile } = writeSandboxConfig(sandbox, dir, overrides);
  const config = loadConfig(configFile, sandboxEnv(sandbox, store));
  const { logger, lines } = memoryLogger();
  const ballast = await openBallastApp(config, { logger, chainPollingIntervalMs: 50 });
  return { ballast, config, configFile, logLines: lines };
}

/** The treasury's USDC balance on a sandbox chain, base units. */
export async function usdcBalance(sandbox: Sandbox, slug: string): Promise<bigint> {
  const chain = sandbox.chains.find((c) => c.def.slug === slug)!;
  return chain.publicClient.readContract({
    address: chain.usdc,
    abi: [
      {
        type: 'function',
        name: 'balanceOf',
        stateMutability: 'view',
        inputs: [{ name: 'a', type: 'address' }],
        outputs: [{ type: 'uint256' }],
      },
    ] as const,
    functionName: 'balanceOf',
    args: [sandbox.accounts.treasury.address as Address],
  });
}

/** The treasury's transaction count on a sandbox chain (unchanged ⇔ nothing was signed and sent). */
export async function treasuryNonce(sandbox: Sandbox, slug: string): Promise<number> {
  const chain = sandbox.chains.find((c) => c.def.slug === slug)!;
  return chain.publicClient.getTransactionCount({ address: sandbox.accounts.treasury.address });
}

/** A holding of the treasury wallet in an `assets` config override: chain, currency (e.g. `${SANDBOX_USDC}`) and band (whole units). */
export function treasuryBand(chain: string, currency: string, min: string, target: string, max: string) {
  return { chain, currency, wallet: 'treasury', min, target, max };
}
