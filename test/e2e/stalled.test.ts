/**
 * A run that died mid-cycle and a transfer that never completes, on the sandbox: the next run closes the dead
 * run's cycle as `aborted`; a deposited transfer the solver never fills stays in flight and credited (nothing is
 * paid twice) and, past `tracking.stalledAfterSec`, is flagged stalled once (history, metric, log) while its
 * request is looked up by the deposit hash.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { getCycle, startCycle } from '../../packages/ballast/src/store/cycles.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';
import { trackingClock } from './trackingClock.ts';

const USDC = 1_000_000n;
const tmp = tempDir('ballast-stalled-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

describe('stalled transfers and aborted cycles', () => {
  it('closes the dead run’s cycle as aborted, then flags the unfilled transfer stalled once and never pays again', async () => {
    const sandbox = await sandboxes.start({ faults: { neverFill: true } });
    const clock = trackingClock();
    const { ballast, logLines } = ballastOnSandbox(
      sandbox,
      tmp.dir,
      { tracking: { pollMs: 200, timeoutSec: 10, stalledAfterSec: 1800 } },
      {},
      { now: clock.now },
    );
    sandboxes.closeAfter(() => ballast.close());
    const dead = await startCycle(ballast.db, { mode: 'once', startedAtMs: Date.now() - 60_000 }); // a run killed mid-cycle

    // The fill never comes: the cycle stops tracking at its first status read (the clock moves past its 10 s).
    void clock.timeOutAtNextStatusRead(ballast.relay, 10_000);
    const first = await ballast.runCycle('once');
    expect(clock.aheadMs).toBe(10_000);
    expect(await getCycle(ballast.db, dead)).toMatchObject({ outcome: 'aborted' });
    expect((await getCycle(ballast.db, first.cycleId))?.outcome).not.toBe('aborted');
    expect(first.attempts.map((a) => a.outcome)).toEqual(['in_flight']);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
    const metrics1 = await ballast.metrics.registry.metrics();
    expect(metrics1).toMatch(/^ballast_cycles_aborted_total 1$/m);
    expect(metrics1).toMatch(/^ballast_transfers_stalled 0$/m);

    clock.advance(10 * 60_000); // ten minutes later: not stalled yet
    expect((await ballast.runCycle('once')).attempts).toEqual([]);
    expect((await listRecentTransfers(ballast.db, 5))[0]!.stalledAtMs).toBeNull();

    clock.advance(21 * 60_000); // 31 minutes after the deposit: past stalledAfterSec
    const third = await ballast.runCycle('once');
    expect(third.attempts).toEqual([]); // still credited: the need is not paid again
    const fourth = await ballast.runCycle('once');
    expect(fourth.attempts).toEqual([]);
    const transfers = await listRecentTransfers(ballast.db, 5);
    expect(transfers).toHaveLength(1);
    const [t] = transfers;
    expect(t!.status).toBe('deposited');
    expect(t!.stalledAtMs).not.toBeNull();
    expect(t!.events.filter((e) => e.detail?.startsWith('stalled: deposited for over 1800 s'))).toHaveLength(1);
    expect(t!.requestId).toBe(first.attempts[0]!.requestId); // the sandbox files the deposit under the quote's id
    expect(await ballast.metrics.registry.metrics()).toMatch(/^ballast_transfers_stalled 1$/m);
    expect(logLines.filter((l) => l.includes('transfer stalled'))).toHaveLength(1);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * USDC);
  });
});
