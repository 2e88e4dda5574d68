/**
 * `ballast run --once` as an operator runs it, in a child process against the sandbox: piped (not a terminal),
 * each transfer's stages are plain lines in whole units with the symbol; with --json stdout is only the JSON
 * report. `ballast history` (through the CLI's main() in this process) then shows the same transfer in whole units,
 * and in base units with --raw.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-progress-');
let sandbox: Sandbox | null = null;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = null;
});
afterAll(() => tmp.cleanup());

/** A config file and store for the CLI (the in-process instance only writes them and is closed at once). */
async function cliSetup() {
  sandbox = await startSandbox({});
  const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir);
  await ballast.close();
  return { configFile, env: sandboxEnv(sandbox, store) };
}

describe('run --once progress', () => {
  it('prints one plain line per stage when piped, and history shows the transfer in whole units', async () => {
    const { configFile, env } = await cliSetup();
    const run = await runCli(['run', '--once', '--config', configFile], { env });
    expect(run.code, run.stderr).toBe(0);
    const progress = run.stdout.split('\n').filter((l) => /^#\d+ USDC alpha → beta /.test(l));
    const head = /^#(\d+) USDC alpha → beta 20000 USDC: /.exec(progress[0] ?? '');
    expect(head, run.stdout).not.toBeNull();
    const prefix = `#${head![1]} USDC alpha → beta 20000 USDC: `;
    expect(progress.map((l) => l.slice(prefix.length).replace(/ \(at least [0-9.]+ USDC\)$/, ''))).toEqual([
      'planned',
      'quoted',
      'verified',
      'deposited',
      'filled',
    ]);
    expect(progress[1]).toMatch(/: quoted \(at least 19[0-9]{3}(\.[0-9]+)? USDC\)$/);
    expect(run.stdout).not.toMatch(/\u001b/); // no terminal control sequences on a pipe

    const history = await runCliInProcess(['history', '--config', configFile], { env });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain('20000 USDC');
    expect(history.stdout).not.toContain('20000000000');
    const raw = await runCliInProcess(['history', '--raw', '--config', configFile], { env });
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdout).toContain('20000000000');
    expect(raw.stdout).not.toContain('20000 USDC');
  }, 120_000);

  it('keeps stdout pure JSON with --json', async () => {
    const { configFile, env } = await cliSetup();
    const run = await runCli(['run', '--once', '--json', '--config', configFile], { env });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { attempts: { outcome: string }[] };
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
  }, 120_000);
});
