/**
 * `ballast run --once` as an operator runs it, in a child process against the sandbox: piped (not a terminal),
 * each transfer's stages are plain lines in whole units with the symbol, named by the transfer's id in the store
 * from its deposit on (the id `history` shows); with --json stdout is only the JSON report. `ballast history` (through the CLI's main() in this process) then shows the same transfer in whole units,
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
    const progress = run.stdout.split('\n').filter((l) => l.includes('USDC alpha → beta 20000 USDC: '));
    // Named by its id in the store once written ahead of signing (the id history shows), never by its plan row.
    const id = /^#(\d+) /.exec(progress[3] ?? '')?.[1];
    expect(id, run.stdout).toBeDefined();
    expect(progress.map((l) => l.replace(/ \(at least [0-9.]+ USDC\)/, '').replace(/, \d+ s after the deposit$/, ''))).toEqual([
      'USDC alpha → beta 20000 USDC: planned',
      'USDC alpha → beta 20000 USDC: quoted',
      'USDC alpha → beta 20000 USDC: verified',
      `#${id} USDC alpha → beta 20000 USDC: deposited`,
      `#${id} USDC alpha → beta 20000 USDC: filled`,
    ]);
    expect(progress[1]).toMatch(/: quoted \(at least 19[0-9]{3}(\.[0-9]+)? USDC\)$/);
    expect(progress[4]).toMatch(/, \d+ s after the deposit$/);
    expect(run.stdout).not.toMatch(/\u001b/); // no terminal control sequences on a pipe

    const history = await runCliInProcess(['history', '--config', configFile], { env });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(new RegExp(`│ ${id} +│`));
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
