/**
 * Output that never contradicts itself, as an operator meets it:
 * - `ballast plan` with the Relay API down says what failed and the fix, with no empty balance table and no "every
 *   target is in band" line, and exits non-zero.
 * - On the sandbox with a surplus no deficit can take (alpha 20 000 USDC above max, beta in band), `plan` and
 *   `run --once` end with the same line naming it and `policy.sweepTo`, never "every target is in band".
 * - `ballast transfer` on a terminal (a pseudo-terminal from util-linux `script`) shows what will move and asks;
 *   "n" leaves everything as it was (exit 1), "y" moves it with live progress naming the transfer by its store id.
 *   Without a terminal nothing is asked and it moves, its plain progress lines naming the same id `history` shows.
 * The sandbox tests share one sandbox: the refused and read-only cases come first, each move is counted.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { ALL_IN_BAND } from '../../packages/ballast/src/cli/cycleSummary.ts';
import { openSqliteStore } from '../../packages/ballast/src/store/openStore.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { cliArgv, ROOT, runCli, runCliInProcess, type CliResult } from './helpers/cli.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { offlineConfig } from './helpers/offlineConfig.ts';
import { ballastOnSandbox, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-honest-');
afterAll(() => tmp.cleanup());

const USDC = 1_000_000n;

describe('ballast plan with the Relay API down', () => {
  it('says what failed and the fix: no table, no "in band" line, a non-zero exit', async () => {
    const { config } = await offlineConfig(tmp.dir, 'api-down');
    const r = await runCli(['plan', '--config', config], { env: { BETA_RPC: 'http://127.0.0.1:9/rpc' } });
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^cycle \d+ \(plan\) failed: GET \/chains failed: .*could not be reached.*Fix: check relay\.baseUrl/);
    expect(lines[1]).toBe(
      'nothing was planned or signed; check the Relay API: `ballast api-check` probes every endpoint Ballast uses at relay.baseUrl',
    );
    expect(r.stdout).not.toMatch(/[┌│└]/);
    expect(r.stdout).not.toContain('in band');
    expect(r.stdout).not.toContain('nothing to move');
  }, 90_000);
});

/** Runs `ballast <args>` with stdin and stdout on a pseudo-terminal (`script`), `answer` typed in; output without ANSI codes. */
function runOnTerminal(args: string[], answer: string, env: Record<string, string>): Promise<CliResult> {
  const command = [process.execPath, ...cliArgv(args)].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ballast ${args.join(' ')} on a terminal timed out\n${stdout}`));
    }, 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(`${answer}\n`);
  });
}

/** The screen of a terminal transcript: `\r` + clear-line rewrites applied, ANSI colours dropped. */
function screen(transcript: string): string[] {
  const lines: string[] = [];
  for (const raw of transcript.replace(/\r\n/g, '\n').split('\n')) {
    const parts = raw.split('\r\u001b[2K');
    lines.push(
      parts
        .at(-1)!
        .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
        .replace(/\r/g, ''),
    );
  }
  return lines;
}

describe('on the sandbox', () => {
  let sandbox: Sandbox;
  let configFile = '';
  let store = '';
  let env: Record<string, string> = {};

  beforeAll(async () => {
    sandbox = await startSandbox({}); // 90 000 USDC on alpha, 10 000 on beta
    // alpha's band tops out at 70 000, beta's takes its 10 000: a surplus no deficit can take.
    const demo = demoConfigFor(sandbox).assets as { USDC: { chain: string }[] };
    const bands: Record<string, object> = {
      alpha: { min: '40000', target: '50000', max: '70000' },
      beta: { min: '5000', target: '10000', max: '20000' },
    };
    const USDC_ENTRIES = demo.USDC.map((e) => ({ ...e, ...bands[e.chain] }));
    const wired = ballastOnSandbox(sandbox, tmp.dir, { assets: { USDC: USDC_ENTRIES } });
    await wired.ballast.close();
    ({ configFile, store } = wired);
    env = sandboxEnv(sandbox, store);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  const SURPLUS_LINE =
    '  USDC alpha is 20000 USDC above max (90000 > 70000 USDC), and no holding of USDC has a deficit to receive it; set policy.sweepTo.USDC to park surpluses at a home holding';

  it('plan and run --once name the surplus nothing can take, and never say every target is in band', async () => {
    const plan = await runCliInProcess(['plan', '--config', configFile], { env });
    const run = await runCli(['run', '--once', '--config', configFile], { env });
    for (const r of [plan, run]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('above max');
      expect(r.stdout).not.toContain(ALL_IN_BAND);
      expect(r.stdout.trim().split('\n').slice(-2)).toEqual([
        'nothing to move this cycle, though 1 target is out of band or unread:',
        SURPLUS_LINE,
      ]);
    }
    expect(await usdcBalance(sandbox, 'alpha')).toBe(90_000n * USDC);
  }, 120_000);

  const TRANSFER = ['transfer', '--from', 'alpha:USDC', '--to', 'beta:USDC', '--amount', '500'];

  it('asks on a terminal, showing what will move; "n" moves nothing (exit 1)', async () => {
    const r = await runOnTerminal([...TRANSFER, '--config', configFile], 'n', env);
    const shown = screen(r.stdout);
    expect(r.code, r.stdout).toBe(1);
    expect(shown).toContain('about to move 500 USDC from alpha (treasury) to beta (treasury)');
    expect(shown.some((l) => /^ {2}guaranteed out: at least 49\d(\.\d+)? USDC$/.test(l))).toBe(true);
    expect(shown.some((l) => /^ {2}fees quoted now: \d+\.\d\d USD \(execution /.test(l))).toBe(true);
    expect(shown).toContain('move it? [y/N] n');
    expect(shown).toContain('not confirmed: nothing was signed');
    expect(await usdcBalance(sandbox, 'alpha')).toBe(90_000n * USDC);
    expect(await storedTransfers()).toEqual([]);
  }, 120_000);

  it('"y" moves it with live progress naming the transfer by its id in the store', async () => {
    const r = await runOnTerminal([...TRANSFER, '--config', configFile], 'y', env);
    expect(r.code, r.stdout).toBe(0);
    const [row] = await storedTransfers();
    expect(row).toMatchObject({ status: 'success', amountIn: 500n * USDC });
    const shown = screen(r.stdout);
    expect(shown).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^✓ #${row!.id} USDC alpha → beta 500 USDC, at least [0-9.]+ USDC: planned → quoted → verified → deposited → filled, \\d+ s after the deposit$`,
        ),
      ),
    );
    expect(r.stdout).toContain('\u001b[2K'); // rewritten in place: a terminal
    expect(await usdcBalance(sandbox, 'alpha')).toBe(89_500n * USDC);
  }, 120_000);

  it('asks nothing without a terminal and moves it, its progress naming the id history shows', async () => {
    const r = await runCli([...TRANSFER, '--config', configFile], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain('move it?');
    const rows = await storedTransfers();
    expect(rows).toHaveLength(2);
    const id = rows[0]!.id; // the newest
    const progress = r.stdout.split('\n').filter((l) => l.includes('USDC alpha → beta 500 USDC: '));
    expect(progress.map((l) => l.replace(/ \(at least [0-9.]+ USDC\)/, '').replace(/, \d+ s after the deposit$/, ''))).toEqual([
      'USDC alpha → beta 500 USDC: planned',
      'USDC alpha → beta 500 USDC: quoted',
      'USDC alpha → beta 500 USDC: verified',
      `#${id} USDC alpha → beta 500 USDC: deposited`,
      `#${id} USDC alpha → beta 500 USDC: filled`,
    ]);
    expect(r.stdout).toContain(`#${id} USDC alpha → beta`); // the attempts table names it the same way
    const history = await runCliInProcess(['history', '--json', '--config', configFile], { env });
    expect((JSON.parse(history.stdout) as { id: number }[]).map((h) => h.id)).toEqual([id, rows[1]!.id]);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(89_000n * USDC);
  }, 120_000);

  async function storedTransfers() {
    const db = openSqliteStore(store);
    try {
      return await listRecentTransfers(db, 10);
    } finally {
      await db.close();
    }
  }
});
