/**
 * `ballast transfer` on the sandbox, as an operator runs it: a one-off move between two configured holdings goes
 * through the scheduler's pipeline (fee policy, verification, limits, write-ahead, tracking), ends in success, and
 * shows in `history` and in the exported metrics; `--dry-run` signs nothing; a request that cannot be done exits 2
 * naming the flag, before anything is recorded. The refusals share one sandbox (none of them may move anything).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { openSqliteStore } from '../../packages/ballast/src/store/openStore.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-manual-');
afterAll(() => tmp.cleanup());

const USDC = 1_000_000n;

/** A config and store on the sandbox (the in-process instance is closed at once: the CLI does the work). */
async function setup(): Promise<{ configFile: string; store: string; env: Record<string, string> }> {
  const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir);
  await ballast.close();
  return { configFile, store, env: sandboxEnv(sandbox, store) };
}

/** The transfers the store holds (read from the file, as `history` would; the CLI run has ended). */
async function storedTransfers(store: string): Promise<unknown[]> {
  const db = openSqliteStore(store);
  try {
    return await listRecentTransfers(db, 10);
  } finally {
    await db.close();
  }
}

interface HistoryRow {
  status: string;
  asset: string;
  originChain: string;
  destinationChain: string;
  amountIn: string;
}

describe('ballast transfer', () => {
  beforeEach(async () => {
    sandbox = await sandboxes.start({});
  });

  it('moves the amount through the pipeline, ends in success, and shows in history and metrics', async () => {
    const { configFile, store, env } = await setup();
    const before = { alpha: await usdcBalance(sandbox, 'alpha'), beta: await usdcBalance(sandbox, 'beta') };
    const prom = path.join(tmp.dir, 'transfer.prom');
    const moved = await runCli(
      [
        'transfer',
        '--from',
        'alpha:USDC',
        '--to',
        'beta:USDC',
        '--amount',
        '1500.5',
        '--json',
        '--metrics-textfile',
        prom,
        '--config',
        configFile,
      ],
      { env, timeoutMs: 90_000 },
    );
    expect(moved.code, moved.stderr).toBe(0);
    const report = JSON.parse(moved.stdout) as { mode: string; attempts: { outcome: string; planned: { reason: string } }[] };
    expect(report.mode).toBe('once');
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect(report.attempts[0]!.planned.reason).toMatch(/^manual transfer asked by the operator: 1500.5 USDC alpha/);

    const after = { alpha: await usdcBalance(sandbox, 'alpha'), beta: await usdcBalance(sandbox, 'beta') };
    expect(before.alpha - after.alpha).toBe(1_500_500_000n);
    expect(after.beta - before.beta).toBeGreaterThan(1_400n * USDC); // the fill, net of fees

    const history = await runCliInProcess(['history', '--json', '--raw', '--db', store]);
    expect(history.code, history.stderr).toBe(0);
    const rows = JSON.parse(history.stdout) as HistoryRow[];
    expect(rows.map((r) => [r.status, r.asset, r.originChain, r.destinationChain, r.amountIn])).toEqual([
      ['success', 'USDC', 'alpha', 'beta', '1500500000'],
    ]);
    expect(readFileSync(prom, 'utf8')).toMatch(
      /^ballast_transfers_total\{outcome="success",asset="USDC",origin_chain="alpha",destination_chain="beta"\} 1$/m,
    );
  }, 120_000);

  it('--dry-run quotes and judges, signs nothing and records no transfer', async () => {
    const { configFile, store, env } = await setup();
    const nonce = await treasuryNonce(sandbox, 'alpha');
    const dry = await runCli(
      ['transfer', '--from', 'alpha:USDC', '--to', 'beta:USDC', '--amount', '2000', '--dry-run', '--json', '--config', configFile],
      { env, timeoutMs: 90_000 },
    );
    expect(dry.code, dry.stderr).toBe(0);
    const report = JSON.parse(dry.stdout) as { mode: string; attempts: { outcome: string }[] };
    expect([report.mode, report.attempts.map((a) => a.outcome)]).toEqual(['plan', ['quoted']]);
    expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce);
    expect(await storedTransfers(store)).toEqual([]);
  }, 120_000);
});

describe('ballast transfer refused', () => {
  let shared: Sandbox | null = null;
  beforeAll(async () => {
    shared = await startSandbox({});
  });
  afterAll(async () => {
    await shared?.stop();
  });
  beforeEach(() => {
    sandbox = shared!;
  });

  it.each([
    [
      ['--from', 'gamma:USDC', '--to', 'beta:USDC', '--amount', '10'],
      /--from gamma:USDC: no such holding under assets:; configured: .*alpha:USDC:treasury/,
    ],
    [['--from', 'alpha', '--to', 'beta:USDC', '--amount', '10'], /--from "alpha": expected <chain>:<asset>/],
    [['--from', 'alpha:USDC', '--to', 'beta:USDT', '--amount', '10'], /give the same asset on both sides/],
    [['--from', 'alpha:USDC', '--to', 'beta:USDC', '--amount', '10.1234567'], /--amount 10.1234567: .*more than 6 fractional digits/],
    [['--from', 'alpha:USDC', '--to', 'beta:USDC', '--amount', '60000'], /--amount 60000: above policy.maxTransfer \(50000 USDC\)/],
    [
      ['--from', 'beta:USDC', '--to', 'alpha:USDC', '--amount', '45000'],
      /--amount 45000: treasury holds 10000 USDC on beta; nothing was done/,
    ],
  ])(
    '%j exits 2 naming the flag, recording nothing',
    async (args, message) => {
      const { configFile, store, env } = await setup();
      // The first as a real process (its exit code and stderr); the others call the same main() in this process.
      const result =
        args[1] === 'gamma:USDC'
          ? await runCli(['transfer', ...args, '--config', configFile], { env, timeoutMs: 60_000 })
          : await runCliInProcess(['transfer', ...args, '--config', configFile], { env });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(await storedTransfers(store)).toEqual([]);
    },
    60_000,
  );
});
