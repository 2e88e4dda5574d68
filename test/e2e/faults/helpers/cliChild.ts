/**
 * Runs `ballast run --once` as a real child process (bin/ballast.mjs through `cliArgv`, like test/e2e/helpers/cli.ts) and
 * reports how it ended, signal included, so a crash case can prove its run died by SIGKILL. Every child is
 * remembered until it exits; {@link stopChildren} kills the ones still running (by pid).
 *
 * {@link runOnceInProcess} runs the same command through the CLI's `main()` in the test's own process instead: for
 * recovery runs, which nothing kills, without the start of a node process (about two seconds of CPU each).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cliArgv, ROOT, runCliInProcess } from '../../helpers/cli.ts';

/** How a child run ended. */
export interface ChildExit {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it (e.g. `SIGKILL`), or null after a normal exit. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** When the process was seen to exit, unix ms. */
  exitedAtMs: number;
}

const running = new Set<ChildProcess>();

/**
 * Runs `ballast run --once --config <configFile>` with `env` added to this process's environment.
 *
 * @param env e.g. `sandboxEnv(sandbox, store)` plus `BALLAST_CRASH_AT`
 * @param timeoutMs the child is killed (SIGKILL) and the promise rejects after this long
 * @returns how it ended; never rejects for a non-zero exit or a signal
 * @example
 * const exit = await runOnce(configFile, { ...sandboxEnv(sandbox, store), BALLAST_CRASH_AT: 'tx:written#2' });
 * expect(exit.signal).toBe('SIGKILL');
 */
export function runOnce(configFile: string, env: Record<string, string>, timeoutMs = 90_000): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      cliArgv(['run', '--once', '--config', configFile]),
      // BALLAST_CRASH_AT is cleared unless the caller sets it, so a value in the test runner's own environment
      // never leaks into a recovery run.
      { cwd: ROOT, env: { ...process.env, BALLAST_CRASH_AT: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ballast run --once did not exit within ${timeoutMs} ms\nstderr: ${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, signal, stdout, stderr, exitedAtMs: Date.now() });
    });
  });
}

/**
 * Runs `ballast run --once --config <configFile>` in this process (`runCliInProcess`: the CLI's `main()`, what
 * bin/ballast.mjs calls) with `env` added to the environment, and reports it as {@link runOnce} does (never a
 * signal). What it reads (config, store, chains, API) is what a fresh process reads: the store is opened anew and
 * the crash points stay unarmed (`BALLAST_CRASH_AT` and `BALLAST_PAUSE_AT` are cleared unless `env` sets them;
 * setting them here would stop the test runner itself, so use {@link runOnce} for a run meant to die).
 *
 * @param env e.g. `sandboxEnv(sandbox, store)`
 * @returns exit code and output; never rejects for a non-zero exit
 * @throws Error when `env` arms a crash or pause point
 */
export async function runOnceInProcess(configFile: string, env: Record<string, string>): Promise<ChildExit> {
  if (env.BALLAST_CRASH_AT || env.BALLAST_PAUSE_AT)
    throw new Error('runOnceInProcess: a run that must die or stop needs runOnce (a child)');
  const r = await runCliInProcess(['run', '--once', '--config', configFile], {
    env: { BALLAST_CRASH_AT: '', BALLAST_PAUSE_AT: '', ...env },
  });
  return { code: r.code, signal: null, stdout: r.stdout, stderr: r.stderr, exitedAtMs: Date.now() };
}

/** Kills (SIGKILL, by pid) every child started by {@link runOnce} that has not exited yet. */
export function stopChildren(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  running.clear();
}
