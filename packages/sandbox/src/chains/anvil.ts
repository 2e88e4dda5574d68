/**
 * Starts and stops local anvil (Foundry) EVM nodes for the sandbox.
 *
 * The native binary shipped by the npm platform package (`@foundry-rs/anvil-<platform>-<arch>`) is spawned
 * directly, so the returned `pid` is anvil's own. Anvil binds `--port 0` (the kernel picks a free loopback
 * port, so two starts can never race for the same port) and the chosen port is read from its
 * `Listening on <host>:<port>` line; the node is ready once `eth_chainId` answers with the requested id.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** Stable codes of {@link AnvilError}. */
export type AnvilErrorCode = 'ANVIL_BINARY_NOT_FOUND' | 'ANVIL_START_FAILED' | 'ANVIL_START_TIMEOUT';

/** Raised when the anvil binary cannot be found or a node does not come up. `code` is stable. */
export class AnvilError extends BallastError {
  readonly code: AnvilErrorCode;
  constructor(code: AnvilErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Options of {@link startAnvil}. */
export interface StartAnvilOptions {
  /** EIP-155 chain id the node reports (`--chain-id`). */
  chainId: number;
  /** Interval mining period in seconds (`--block-time`); omitted = automine (one block per transaction). */
  blockTimeSec?: number;
  /** How long to wait for the node to listen and answer, in milliseconds (default 10 000). */
  startTimeoutMs?: number;
  /** Path of the anvil executable; default {@link resolveAnvilBinary}. */
  binaryPath?: string;
}

/** A running anvil node. */
export interface AnvilInstance {
  /** JSON-RPC HTTP endpoint, e.g. `http://127.0.0.1:40123`. */
  rpcUrl: string;
  /** TCP port on 127.0.0.1. */
  port: number;
  /** Operating-system process id of the anvil binary itself. */
  pid: number;
  /** Stops the node (SIGTERM, then SIGKILL after 3 s) and resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

const DEFAULT_START_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 3_000;
const START_ATTEMPTS = 3;
const LISTENING_RE = /Listening on ([0-9.]+):([0-9]+)/;

/**
 * Locates the native anvil executable shipped by Foundry's npm platform package
 * `@foundry-rs/anvil-<os>-<arch>/bin/anvil`. The project depends on the Linux x64 build (an optional
 * dependency, the only build the registry serves here); on other platforms install Foundry and pass `binaryPath`.
 *
 * @returns absolute path of the executable
 * @throws AnvilError `ANVIL_BINARY_NOT_FOUND` when the platform is unsupported or the package is not installed
 */
export function resolveAnvilBinary(): string {
  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORM_PACKAGES[key];
  if (pkg === undefined) {
    throw new AnvilError(
      'ANVIL_BINARY_NOT_FOUND',
      `anvil has no npm build for platform ${key}; install Foundry's anvil and pass binaryPath`,
    );
  }
  let pkgJson: string;
  try {
    pkgJson = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  } catch (error) {
    throw new AnvilError('ANVIL_BINARY_NOT_FOUND', `package ${pkg} is not installed; run \`npm ci\``, { cause: error });
  }
  const binary = join(dirname(pkgJson), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) {
    throw new AnvilError('ANVIL_BINARY_NOT_FOUND', `${binary} is missing; reinstall ${pkg} with \`npm ci\``);
  }
  return binary;
}

/** Children still running, killed synchronously if this process exits without stopping them. */
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL');
  });
}

/** Resolves with the port anvil reports, rejects if it exits first or the timeout passes. */
function waitForListening(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderrTail = '';
    let settled = false;
    const cleanup = (): void => {
      settled = true;
      clearTimeout(timer);
      child.stdout?.off('data', onStdout);
      child.stderr?.off('data', onStderr);
      child.off('exit', onExit);
      child.off('error', onError);
      // Keep draining anvil's per-request log lines so the pipe never fills up and blocks it.
      child.stdout?.resume();
      child.stderr?.resume();
    };
    const onStdout = (chunk: Buffer): void => {
      buffered = (buffered + chunk.toString('utf8')).slice(-4096);
      const match = LISTENING_RE.exec(buffered);
      if (match?.[2] !== undefined) {
        cleanup();
        resolve(Number(match[2]));
      }
    };
    const onStderr = (chunk: Buffer): void => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup();
      reject(new AnvilError('ANVIL_START_FAILED', `anvil exited before listening (code ${code}, signal ${signal}): ${stderrTail.trim()}`));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(new AnvilError('ANVIL_START_FAILED', `could not spawn anvil: ${error.message}`, { cause: error }));
    };
    // After a long synchronous stretch of this process, timers run before pending I/O is read: give the output that
    // may already be waiting in the pipe one turn of the loop (setImmediate runs after the I/O poll) before failing.
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return; // the port arrived in that turn
        cleanup();
        reject(new AnvilError('ANVIL_START_TIMEOUT', `anvil did not report a listening port within ${timeoutMs} ms; raise startTimeoutMs`));
      });
    }, timeoutMs);
    child.stdout?.on('data', onStdout);
    child.stderr?.on('data', onStderr);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/**
 * Polls `eth_chainId` until it answers; checks the answer equals the requested id. Asks at least once, even past
 * the deadline (the port may have been read only after a long synchronous stretch of this process).
 */
async function waitForRpc(rpcUrl: string, chainId: number, deadline: number): Promise<void> {
  let lastError: unknown;
  for (;;) {
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      const body = (await res.json()) as { result?: unknown }; // shape checked just below
      if (typeof body.result === 'string') {
        const reported = Number.parseInt(body.result, 16);
        if (reported !== chainId) {
          throw new AnvilError('ANVIL_START_FAILED', `anvil at ${rpcUrl} reports chain id ${reported}, expected ${chainId}`);
        }
        return;
      }
      lastError = new Error(`eth_chainId returned ${JSON.stringify(body)}`);
    } catch (error) {
      if (error instanceof AnvilError) throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new AnvilError('ANVIL_START_TIMEOUT', `anvil at ${rpcUrl} did not answer eth_chainId in time; raise startTimeoutMs`, {
    cause: lastError,
  });
}

/** Sends `signal`, escalates to SIGKILL after the grace period, resolves when the process has exited. */
function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    liveChildren.delete(child);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const escalate = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(escalate);
      liveChildren.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function startOnce(opts: StartAnvilOptions, binary: string, deadline: number): Promise<AnvilInstance> {
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(opts.chainId), '--no-request-size-limit'];
  if (opts.blockTimeSec !== undefined) args.push('--block-time', String(opts.blockTimeSec));
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  installExitHook();
  try {
    const port = await waitForListening(child, Math.max(0, deadline - Date.now()));
    const rpcUrl = `http://127.0.0.1:${port}`;
    await waitForRpc(rpcUrl, opts.chainId, deadline);
    if (child.pid === undefined) throw new AnvilError('ANVIL_START_FAILED', 'anvil started without a pid');
    let stopping: Promise<void> | undefined;
    return {
      rpcUrl,
      port,
      pid: child.pid,
      stop: () => (stopping ??= killAndWait(child)),
    };
  } catch (error) {
    await killAndWait(child);
    throw error;
  }
}

/**
 * Starts one anvil node on 127.0.0.1 with a kernel-chosen free port and waits until it answers `eth_chainId`.
 * Anvil's default dev accounts (the well-known "test test … junk" mnemonic, 10 000 ETH each) are funded.
 * The process is killed when this process exits, even if `stop()` was never called (not on an uncaught
 * signal: callers that trap SIGINT/SIGTERM should call `stop()`).
 *
 * @param opts chain id, optional interval mining period, start timeout
 * @returns the RPC URL, port, anvil's pid and an idempotent `stop()`
 * @throws AnvilError `ANVIL_BINARY_NOT_FOUND`, `ANVIL_START_FAILED` (after 3 attempts) or `ANVIL_START_TIMEOUT`
 * @example
 * const node = await startAnvil({ chainId: 31001 });
 * // ... use node.rpcUrl
 * await node.stop();
 */
export async function startAnvil(opts: StartAnvilOptions): Promise<AnvilInstance> {
  if (!Number.isSafeInteger(opts.chainId) || opts.chainId <= 0) {
    throw new AnvilError('ANVIL_START_FAILED', `chainId must be a positive integer, got ${opts.chainId}`);
  }
  const binary = opts.binaryPath ?? resolveAnvilBinary();
  const deadline = Date.now() + (opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
  let lastError: unknown;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await startOnce(opts, binary, deadline);
    } catch (error) {
      lastError = error;
      if (error instanceof AnvilError && error.code === 'ANVIL_START_TIMEOUT') break;
      if (Date.now() >= deadline) break;
    }
  }
  throw lastError;
}
