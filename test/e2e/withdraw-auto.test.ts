/**
 * Unfilled deposits recovered without operator action (`withdrawals.auto: true`) on the sandbox's real anvil
 * chains: a deposit the solver never fills, and one whose fill fails, are attested, withdrawn with an
 * owner-signed request and the verified `ready` transaction broadcast by the treasury; the USDC is back on the
 * treasury wallet, the hub holds nothing, the transfer is `withdrawn` (or its failure resolved) and its route is
 * planned again.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { getTransfer, listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { getWithdrawalOfTransfer } from '../../packages/ballast/src/store/withdrawals.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance, type ConfigOverrides } from './helpers/sandboxBallast.ts';
import { trackingClock } from './trackingClock.ts';

const tmp = tempDir('ballast-withdraw-auto-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

/** The config with automatic withdrawals, fast polls (the sandbox's minPollMs is lower still). */
function overrides(): ConfigOverrides {
  const withdrawals = { auto: true, unfilledAfterSec: 60, pollMs: 150, rateLimitedPollMs: 400, maxWaitSec: 60 };
  return { tracking: { pollMs: 200, timeoutSec: 10 }, withdrawals } as ConfigOverrides; // `withdrawals` is a top-level key the helper passes through
}

async function hubBalances(sandbox: Sandbox): Promise<{ amount: string; locked: string }[]> {
  const res = await fetch(`${sandbox.apiUrl}/_sandbox/hub-balances`);
  return ((await res.json()) as { balances: { amount: string; locked: string }[] }).balances;
}

describe('automatic withdrawal of unfilled deposits', () => {
  it('withdraws a deposit the solver never fills once it is unfilled long enough, then plans the route again', async () => {
    const sandbox = await sandboxes.start({
      faults: { neverFill: true, unfilledWithdrawableAfterMs: 0, fillDelayMs: 0 },
      withdrawals: { stepMs: 100, minPollMs: 100 },
    });
    const clock = trackingClock();
    const { ballast, logLines } = ballastOnSandbox(sandbox, tmp.dir, overrides(), {}, { now: clock.now });
    sandboxes.closeAfter(() => ballast.close());
    const before = await usdcBalance(sandbox, 'alpha');

    // The fill never comes: the cycle stops tracking at its first status read (the clock moves past its 10 s).
    void clock.timeOutAtNextStatusRead(ballast.relay, 10_000);
    const first = await ballast.runCycle('once');
    expect(first.attempts.map((a) => a.outcome)).toEqual(['in_flight']);
    expect(clock.aheadMs).toBe(10_000);
    const [t] = await listRecentTransfers(ballast.db, 1);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before - t!.amountIn);
    expect(await getWithdrawalOfTransfer(ballast.db, t!.id)).toBeUndefined(); // deposited too recently to be checked

    clock.advance(61_000); // past withdrawals.unfilledAfterSec
    const second = await ballast.runCycle('once');
    expect(second.attempts).toEqual([]); // the planner still credited the transfer this cycle: nothing paid twice
    const w = (await getWithdrawalOfTransfer(ballast.db, t!.id))!;
    expect(w).toMatchObject({ state: 'executed', attempts: 1, preparedAmount: t!.amountIn, txStatus: 'confirmed' });
    expect(w.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const after = (await getTransfer(ballast.db, t!.id))!;
    expect(after.status).toBe('withdrawn');
    expect(after.resolution).toContain(`transaction ${w.txHash}`);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before); // every base unit is back on the treasury
    expect(await hubBalances(sandbox)).toEqual([expect.objectContaining({ amount: '0', locked: '0' })]);
    const metrics = await ballast.metrics.registry.metrics();
    expect(metrics).toMatch(/^ballast_withdrawals_total\{outcome="executed"\} 1$/m);
    expect(metrics).toMatch(/^ballast_withdrawals_open 0$/m);
    expect(logLines.some((l) => l.includes('deposit withdrawn back to the treasury'))).toBe(true);

    sandbox.setFaults({ neverFill: false });
    const third = await ballast.runCycle('once');
    expect(third.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before - third.attempts[0]!.planned.amountIn);
  });

  it('withdraws a failed deposit in the next cycle, which resolves the failure and resumes the paused route', async () => {
    const sandbox = await sandboxes.start({ faults: { failure: true, fillDelayMs: 0 }, withdrawals: { stepMs: 100, minPollMs: 100 } });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, overrides());
    sandboxes.closeAfter(() => ballast.close());
    const before = await usdcBalance(sandbox, 'alpha');

    const first = await ballast.runCycle('once');
    expect(first.attempts.map((a) => a.outcome)).toEqual(['failure']);
    const [failed] = await listRecentTransfers(ballast.db, 1);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before - failed!.amountIn);

    sandbox.setFaults({ failure: false });
    const second = await ballast.runCycle('once');
    expect(await getWithdrawalOfTransfer(ballast.db, failed!.id)).toMatchObject({ state: 'executed' });
    expect(await getTransfer(ballast.db, failed!.id)).toMatchObject({
      status: 'failure',
      resolution: expect.stringMatching(/^withdrawn: job /),
    });
    // The pause ended with the withdrawal, so the same cycle planned the route again.
    expect(second.plan.decisions.some((d) => d.kind === 'route_paused')).toBe(false);
    expect(second.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before - second.attempts[0]!.planned.amountIn);
    expect(await ballast.metrics.registry.metrics()).toMatch(/^ballast_routes_paused 0$/m);
  });

  it('signs nothing on its own while the kill-switch file exists, and withdraws once it is removed', async () => {
    const sandbox = await sandboxes.start({ faults: { failure: true, fillDelayMs: 0 }, withdrawals: { stepMs: 100, minPollMs: 100 } });
    const halt = path.join(tmp.dir, `HALT-${Date.now()}`);
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { ...overrides(), policy: { limits: { killSwitchFile: halt } } });
    sandboxes.closeAfter(() => ballast.close());
    const before = await usdcBalance(sandbox, 'alpha');
    expect((await ballast.runCycle('once')).attempts.map((a) => a.outcome)).toEqual(['failure']);
    const [failed] = await listRecentTransfers(ballast.db, 1);
    sandbox.setFaults({ failure: false });

    writeFileSync(halt, '');
    const halted = await ballast.runCycle('once');
    expect(await getWithdrawalOfTransfer(ballast.db, failed!.id)).toBeUndefined();
    expect(halted.attempts).toEqual([]); // the route is still paused by the failure
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before - failed!.amountIn);

    rmSync(halt);
    await ballast.runCycle('once');
    expect(await getWithdrawalOfTransfer(ballast.db, failed!.id)).toMatchObject({ state: 'executed' });
  });
});
