/**
 * Runs the real CLI in a child process (`node bin/ballast.mjs`) and captures its output and exit code.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The `ballast` entry point children are started with: bin/ballast.mjs, as installed. It runs the compiled
 * build when dist/ is complete and no source under src/ is newer (after `npm ci` or `npm run build`), and the
 * sources through tsx otherwise, so a child always runs the code of this checkout; the build starts in about
 * half the CPU time of the sources through tsx.
 */
export const CLI_ENTRY = path.join(ROOT, 'packages/ballast/bin/ballast.mjs');

/**
 * V8 flags of every CLI child: no optimizing compiler (`--no-opt`) and garbage collection on the main thread
 * (`--single-threaded-gc`). A child lives a few seconds, mostly loading modules, and the background compiler and GC
 * threads only take CPU from the other test workers on a two-core machine. Measured as the CPU of a whole vitest run
 * (workers and children) of crash-approve, crash-deposit and cli-honest-output: 137 -> 105-117 CPU-s over two runs
 * each; of failover, cli-sandbox, cli-api-check, daemon and prometheus-dashboard (daemon and sandbox children):
 * 87 -> 80. The code and its behaviour are the same; a production daemon keeps V8's defaults.
 */
export const CLI_CHILD_V8_FLAGS: readonly string[] = ['--no-opt', '--single-threaded-gc'];

/**
 * The node arguments that run `ballast <args>`: {@link CLI_ENTRY} under the `ballast-dist` export condition, so a
 * current build starts without bin/ballast.mjs's resolve hook (its loader thread costs about a second of CPU per
 * start); on the sources the bin drops the condition again. {@link CLI_CHILD_V8_FLAGS} come first.
 */
export function cliArgv(args: readonly string[]): string[] {
  return [...CLI_CHILD_V8_FLAGS, '--conditions=ballast-dist', CLI_ENTRY, ...args];
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ballast <args>` from the project root; resolves when the process exits. */
export function runCli(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgv(args), {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // On timeout: SIGTERM first, so a command that owns anvil processes (demo, sandbox) stops them; SIGKILL
    // only if it does not exit within 5 s.
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      reject(new Error(`ballast ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs `ballast <args>` in this process: the CLI's `main()` (what bin/ballast.mjs calls) with `env` added to
 * `process.env`, stdout and stderr captured, `process.exitCode` kept as it was. Same exit code and output as
 * {@link runCli} without the start of a node process (about two seconds of CPU each): for cases about what a command
 * does; the real process, its exit and signals are tested with {@link runCli} (at least one case per file that
 * switched). One call at a time (it swaps process-wide state); not for commands that keep running (daemon, sandbox).
 */
export async function runCliInProcess(args: string[], opts: { env?: Record<string, string> } = {}): Promise<CliResult> {
  const { main } = await import('../../../packages/ballast/src/cli/main.ts');
  const saved = { env: process.env, exitCode: process.exitCode, out: process.stdout.write, err: process.stderr.write };
  let stdout = '';
  let stderr = '';
  const capture =
    (append: (s: string) => void) =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      const done = rest.find((r): r is () => void => typeof r === 'function');
      if (done) queueMicrotask(done);
      return true;
    };
  process.env = { ...process.env, ...opts.env };
  process.exitCode = undefined;
  // Assigned, not spied: the CLI's default output and pino's destination call these methods.
  process.stdout.write = capture((s) => (stdout += s)) as typeof process.stdout.write;
  process.stderr.write = capture((s) => (stderr += s)) as typeof process.stderr.write;
  try {
    const code = await main([process.execPath, CLI_ENTRY, ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    process.env = saved.env;
    process.exitCode = saved.exitCode;
  }
}
