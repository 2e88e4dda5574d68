/**
 * A withdrawal whose prepare offers less than the deposit, against the sandbox on real anvil chains (fault
 * `withdrawalShortfall`): the job executes for the offer, the transfer stays `deposited` (not `withdrawn`), the
 * withdrawal records what came back and the remainder still open, `ballast withdraw` shows it (exit 1) and the
 * gauge counts it; once the fault is cleared the next pass withdraws exactly the rest and the transfer becomes
 * `withdrawn` with the whole deposit back on the treasury wallet.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { getTransfer, listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { getWithdrawalOfTransfer } from '../../packages/ballast/src/store/withdrawals.ts';
import { recoverDeposits } from '../../packages/ballast/src/withdraw/recover.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance, type ConfigOverrides } from './helpers/sandboxBallast.ts';
import { trackingClock } from './trackingClock.ts';

const tmp = tempDir('ballast-withdraw-shortfall-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

describe('a withdrawal that comes back short', () => {
  it('keeps the remainder open and visible until the rest comes back, then withdraws the transfer', async () => {
    const sandbox = await sandboxes.start({ faults: { neverFill: true, fillDelayMs: 0 }, withdrawals: { stepMs: 100, minPollMs: 100 } });
    const withdrawals = { pollMs: 150, rateLimitedPollMs: 400, maxWaitSec: 60, maxAttempts: 2 };
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
    const short = t!.amountIn / 4n;
    sandbox.setFaults({ unfilledWithdrawableAfterMs: 0, withdrawalShortfall: short.toString() });

    const report = await recoverDeposits(ballast.ctx, { requestId: t!.requestId! });
    expect(report).toEqual([
      expect.objectContaining({
        transferId: t!.id,
        outcome: 'pending',
        state: 'attested',
        received: (t!.amountIn - short).toString(),
        remainder: short.toString(),
      }),
    ]);
    expect(report[0]!.reason).toContain(`${short} of the deposit's ${t!.amountIn} is still open`);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before - short);
    expect((await getTransfer(ballast.db, t!.id))!.status).toBe('deposited');
    expect(await getWithdrawalOfTransfer(ballast.db, t!.id)).toMatchObject({ state: 'attested', receivedAmount: t!.amountIn - short });
    const metrics = await ballast.metrics.registry.metrics();
    expect(metrics).toMatch(/^ballast_withdrawal_remainders_open 1$/m);
    expect(metrics).toMatch(/^ballast_withdrawal_restarts_total\{reason="short"\} 1$/m);

    const env = sandboxEnv(sandbox, store);
    // The last pass as a real process; the one showing the remainder calls the same main() in this process.
    const cli = (...args: string[]) => runCli([...args, '--config', configFile], { env });
    const shown = await runCliInProcess(['withdraw', '--config', configFile], { env });
    expect(shown.code, shown.stderr).toBe(1);
    expect(shown.stdout).toContain('open remainder');
    expect(shown.stdout).toMatch(new RegExp(`${t!.amountIn - short}\\s+.*${short}\\s+.*pending\\s+.*attested`));
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before - short);

    sandbox.setFaults({ withdrawalShortfall: null });
    const done = await cli('withdraw', '--json');
    expect(done.code, done.stderr).toBe(0);
    const items = JSON.parse(done.stdout) as { transferId: number; outcome: string; received: string; remainder: string }[];
    expect(items).toEqual([
      expect.objectContaining({ transferId: t!.id, outcome: 'executed', received: t!.amountIn.toString(), remainder: '0' }),
    ]);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before);
    const after = (await getTransfer(ballast.db, t!.id))!;
    expect(after.status).toBe('withdrawn');
    expect(await getWithdrawalOfTransfer(ballast.db, t!.id)).toMatchObject({ state: 'executed', receivedAmount: t!.amountIn });
    expect(after.events.some((e) => e.detail?.includes(`${short} still open in the hub`))).toBe(true);
  }, 180_000); // a CLI process and a cycle on anvil chains
});
