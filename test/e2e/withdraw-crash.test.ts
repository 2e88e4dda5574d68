/**
 * A process death at every write of the withdrawal flow, on the sandbox's real chains: the next pass resumes
 * from the stored state (a written ready transaction is looked up on chain before it is ever sent again) and the
 * deposit comes back to the treasury exactly once, with exactly one withdrawal transaction sent by it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { getWithdrawalOfTransfer } from '../../packages/ballast/src/store/withdrawals.ts';
import { WITHDRAWAL_CHECKPOINTS, type WithdrawalCheckpoint } from '../../packages/ballast/src/withdraw/deps.ts';
import { recoverDeposits } from '../../packages/ballast/src/withdraw/recover.ts';
import { ballastOnSandbox, sandboxPerFile, tempDir, treasuryNonce, usdcBalance, type ConfigOverrides } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-withdraw-crash-');
afterAll(() => tmp.cleanup());
/**
 * One sandbox for every case: each starts from a fresh store and whatever balances the case before left (its deposit
 * came back), and asserts only what its own deposit and withdrawal changed.
 */
const sandboxes = sandboxPerFile({ withdrawals: { stepMs: 100, minPollMs: 100 } });

describe('withdrawal crash recovery', () => {
  it.each(WITHDRAWAL_CHECKPOINTS.map((c) => [c]))('resumes after a crash at %s', async (crashAt: WithdrawalCheckpoint) => {
    const sandbox = sandboxes.get();
    sandbox.setFaults({ failure: true, fillDelayMs: 0 });
    const withdrawals = { pollMs: 150, rateLimitedPollMs: 400, maxWaitSec: 60 };
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { tracking: { pollMs: 200, timeoutSec: 10 }, withdrawals } as ConfigOverrides); // `withdrawals` passes through as a top-level key
    sandboxes.closeAfter(() => ballast.close());
    const before = await usdcBalance(sandbox, 'alpha');
    await ballast.runCycle('once');
    const [failed] = await listRecentTransfers(ballast.db, 1);
    const nonceAfterDeposit = await treasuryNonce(sandbox, 'alpha');
    sandbox.setFaults({ failure: false });

    const crashed = await recoverDeposits(ballast.ctx, {
      checkpoint: (step) => {
        if (step === crashAt) throw new Error(`killed at ${step}`);
      },
    });
    expect(crashed[0]!.outcome).toBe('pending'); // the pass reports the death and leaves the withdrawal as written
    const resumed = await recoverDeposits(ballast.ctx);
    const w = (await getWithdrawalOfTransfer(ballast.db, failed!.id))!;
    if (crashAt === 'completed')
      expect(resumed).toEqual([]); // already executed: nothing left to look at
    else expect(resumed[0]).toMatchObject({ outcome: 'executed', state: 'executed' });
    expect(w).toMatchObject({ state: 'executed', attempts: 1, txStatus: 'confirmed' });
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before);
    expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonceAfterDeposit + 1); // one ready transaction, sent once
  });
});
