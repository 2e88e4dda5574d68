/**
 * `ballast withdraw` when `withdrawals.auto` is off (the default), run as a real CLI process against the sandbox:
 * a deposit the solver never fills is not withdrawable at first (exit 1, the reason shown), a young deposit is not
 * looked at without `--request`, then `--request` withdraws it (exit 0) and `ballast history` shows the transfer
 * `withdrawn` with its reason; the USDC is back on the treasury wallet.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance, type ConfigOverrides } from './helpers/sandboxBallast.ts';
import { trackingClock } from './trackingClock.ts';

const tmp = tempDir('ballast-withdraw-cli-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

describe('ballast withdraw', () => {
  it('withdraws an unfilled deposit on request and history shows it withdrawn', { timeout: 180_000 }, async () => {
    const sandbox = await sandboxes.start({ faults: { neverFill: true, fillDelayMs: 0 }, withdrawals: { stepMs: 100, minPollMs: 100 } });
    const withdrawals = { pollMs: 150, rateLimitedPollMs: 400, maxWaitSec: 60 };
    const clock = trackingClock();
    const { ballast, configFile, store } = ballastOnSandbox(
      sandbox,
      tmp.dir,
      { tracking: { pollMs: 200, timeoutSec: 10 }, withdrawals } as ConfigOverrides, // `withdrawals` passes through as a top-level key
      {},
      { now: clock.now },
    );
    sandboxes.closeAfter(() => ballast.close());
    const before = await usdcBalance(sandbox, 'alpha');
    // The fill never comes: the cycle stops tracking at its first status read (the clock moves past its 10 s).
    void clock.timeOutAtNextStatusRead(ballast.relay, 10_000);
    expect((await ballast.runCycle('once')).attempts.map((a) => a.outcome)).toEqual(['in_flight']);
    expect(clock.aheadMs).toBe(10_000);
    const [t] = await listRecentTransfers(ballast.db, 1);
    const env = sandboxEnv(sandbox, store);
    // The withdrawal (exit 0) as a real process; the refusal, the usage errors, the no-op and the reads call the
    // same main() in this process.
    const cli = (...args: string[]) => runCli([...args, '--config', configFile], { env });
    const cliHere = (...args: string[]) => runCliInProcess([...args, '--config', configFile], { env });

    const early = await cliHere('withdraw', '--request', t!.requestId!);
    expect(early.code, early.stderr).toBe(1);
    expect(early.stdout).toContain('not_withdrawable');
    expect(early.stdout).toContain('protocol.isWithdrawable is false');

    expect((await cliHere('withdraw', '--request', '0xnope')).code).toBe(2);
    expect((await cliHere('withdraw', '--max-wait', 'soon')).code).toBe(2);

    sandbox.setFaults({ unfilledWithdrawableAfterMs: 0 });
    const young = await cliHere('withdraw');
    expect(young.code, young.stderr).toBe(0);
    expect(young.stdout).toContain('no unfilled deposit to look at');
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before - t!.amountIn);

    const done = await cli('withdraw', '--request', t!.requestId!, '--json');
    expect(done.code, done.stderr).toBe(0);
    const items = JSON.parse(done.stdout) as { transferId: number; outcome: string; amount: string; txHash: string }[];
    expect(items).toEqual([expect.objectContaining({ transferId: t!.id, outcome: 'executed', amount: t!.amountIn.toString() })]);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before);

    const history = await cliHere('history', '--json');
    expect(history.code, history.stderr).toBe(0);
    const rows = JSON.parse(history.stdout) as {
      id: number;
      status: string;
      notes: string[];
      withdrawal: { state: string; txHash: string };
    }[];
    expect(rows[0]).toMatchObject({ id: t!.id, status: 'withdrawn', withdrawal: { state: 'executed', txHash: items[0]!.txHash } });
    expect(rows[0]!.notes.some((n) => n.startsWith('withdrawn: job ') && n.includes(items[0]!.txHash))).toBe(true);
    const table = await cliHere('history');
    expect(table.stdout).toMatch(/withdrawn/);
  });
});
