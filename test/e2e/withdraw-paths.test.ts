/**
 * The withdrawal flow's error paths against the sandbox on real anvil chains, with `withdrawals.auto` off and
 * the pass run as `ballast withdraw` runs it: attest-deposit 503s waited out, status polls answered 429 and slowed
 * down, an expired job and a failed job each started again from prepare, too many failed jobs giving up (then
 * restarted by `--request`), and a crash between execute and its record. Each ends with the deposit back on the
 * treasury wallet exactly once and the failure resolved.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Ballast } from '../../packages/ballast/src/app/createBallast.ts';
import { getTransfer, listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { getWithdrawalOfTransfer } from '../../packages/ballast/src/store/withdrawals.ts';
import { recoverDeposits } from '../../packages/ballast/src/withdraw/recover.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance, type ConfigOverrides } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-withdraw-paths-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

function overrides(withdrawals: Record<string, unknown>): ConfigOverrides {
  return {
    tracking: { pollMs: 200, timeoutSec: 10 },
    withdrawals: { pollMs: 150, rateLimitedPollMs: 500, maxWaitSec: 60, ...withdrawals },
  } as ConfigOverrides; // `withdrawals` passes through the helper as a top-level key
}

async function counted(ballast: Ballast, endpoint: string, status: string): Promise<number> {
  const metric = await ballast.metrics.relayHttpRequestsTotal.get();
  return metric.values.find((v) => v.labels.endpoint === endpoint && v.labels.status === status)?.value ?? 0;
}

describe('withdrawal error paths on the sandbox', () => {
  it('waits out 503s and 429s, restarts after an expired and a failed job, and gets the funds back on the third', async () => {
    const sandbox = await sandboxes.start({ faults: { failure: true, fillDelayMs: 0 }, withdrawals: { stepMs: 100, minPollMs: 400 } });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, overrides({ maxAttempts: 3, transientRetries: 5 }));
    sandboxes.closeAfter(() => ballast.close());
    const before = await usdcBalance(sandbox, 'alpha');
    expect((await ballast.runCycle('once')).attempts.map((a) => a.outcome)).toEqual(['failure']);
    const [failed] = await listRecentTransfers(ballast.db, 1);

    sandbox.setFaults({ failure: false, attestUnavailable: 2, withdrawalExpire: 1, withdrawalFail: 1 });
    const report = await recoverDeposits(ballast.ctx);
    expect(report).toEqual([expect.objectContaining({ transferId: failed!.id, outcome: 'executed', state: 'executed' })]);
    const w = (await getWithdrawalOfTransfer(ballast.db, failed!.id))!;
    expect(w.attempts).toBe(3);
    const details = (await getTransfer(ballast.db, failed!.id))!.events.map((e) => e.detail ?? '');
    expect(details.filter((d) => /job \S+ expired; starting again from prepare/.test(d))).toHaveLength(1);
    expect(details.filter((d) => /job \S+ failed: .*; starting again from prepare/.test(d))).toHaveLength(1);
    expect(await counted(ballast, 'POST /withdrawals/attest-deposit', '503')).toBe(2);
    expect(await counted(ballast, 'GET /withdrawals/status', '429')).toBeGreaterThan(0);
    const metrics = await ballast.metrics.registry.metrics();
    expect(metrics).toMatch(/^ballast_withdrawal_restarts_total\{reason="expired"\} 1$/m);
    expect(metrics).toMatch(/^ballast_withdrawal_restarts_total\{reason="failed"\} 1$/m);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before);
    expect((await getTransfer(ballast.db, failed!.id))!.resolvedAtMs).not.toBeNull();
  });

  it('gives up after maxAttempts failed jobs with the reason recorded; the deposit stays in the hub and the route paused', async () => {
    const sandbox = await sandboxes.start({ faults: { failure: true, fillDelayMs: 0 }, withdrawals: { stepMs: 100, minPollMs: 100 } });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, overrides({ maxAttempts: 2 }));
    sandboxes.closeAfter(() => ballast.close());
    await ballast.runCycle('once');
    const [failed] = await listRecentTransfers(ballast.db, 1);
    const afterDeposit = await usdcBalance(sandbox, 'alpha');
    sandbox.setFaults({ failure: false, withdrawalFail: 2 });
    const report = await recoverDeposits(ballast.ctx);
    expect(report[0]).toMatchObject({ outcome: 'failed', state: 'failed' });
    expect(report[0]!.reason).toMatch(/^WITHDRAWAL_GAVE_UP: job \S+ failed: .*2 job\(s\) started \(withdrawals.maxAttempts 2\)$/);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(afterDeposit);
    expect((await ballast.runCycle('once')).plan.decisions.filter((d) => d.kind === 'route_paused')).toHaveLength(1);
    // A later automatic pass leaves it alone; the operator's --request starts it again and it completes.
    expect(await recoverDeposits(ballast.ctx)).toEqual([]);
    const again = await recoverDeposits(ballast.ctx, { requestId: failed!.requestId! });
    expect(again[0]).toMatchObject({ outcome: 'executed' });
    expect(await usdcBalance(sandbox, 'alpha')).toBe(afterDeposit + failed!.amountIn);
  });

  it('recovers after a crash between execute and its record: the orphan job ends and a new one returns the funds', async () => {
    const sandbox = await sandboxes.start({
      faults: { failure: true, fillDelayMs: 0 },
      withdrawals: { stepMs: 100, minPollMs: 100, readyTtlMs: 1500 },
    });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, overrides({}));
    sandboxes.closeAfter(() => ballast.close());
    const before = await usdcBalance(sandbox, 'alpha');
    await ballast.runCycle('once');
    const [failed] = await listRecentTransfers(ballast.db, 1);
    sandbox.setFaults({ failure: false });

    const crash = (step: string) => {
      if (step === 'signed') throw new Error('killed after the signature was written');
    };
    const crashed = await recoverDeposits(ballast.ctx, { checkpoint: crash });
    expect(crashed[0]).toMatchObject({ outcome: 'pending', state: 'executing' });
    // The execute the dying process had sent: the sandbox started a job nobody recorded.
    const w = (await getWithdrawalOfTransfer(ballast.db, failed!.id))!;
    const orphan = await ballast.relay.executeWithdrawal({
      chainId: w.chainSlug,
      currency: w.currency,
      amount: w.preparedAmount!.toString(),
      ownerChainId: w.chainSlug,
      owner: w.owner,
      recipient: w.recipient,
      nonce: w.nonce!,
      signature: w.signature!,
    });

    // Resumed passes: the re-sent execute is answered 409 (the job is adopted) or "nonce already used" (then
    // prepare waits until the orphan job, never broadcast, expires and unlocks the balance). Either way the
    // funds come back exactly once.
    let report = await recoverDeposits(ballast.ctx);
    for (let pass = 0; pass < 5 && report[0]!.outcome === 'pending'; pass++) {
      expect(report[0]!.reason).toMatch(/prepare refused .*a job an earlier execute started may hold the balance/);
      await new Promise((r) => setTimeout(r, 1000));
      report = await recoverDeposits(ballast.ctx);
    }
    expect(report[0], JSON.stringify(report[0])).toMatchObject({ outcome: 'executed', state: 'executed' });
    const adopted = report[0]!.jobId === orphan.jobId;
    expect((await getWithdrawalOfTransfer(ballast.db, failed!.id))!.attempts).toBe(adopted ? 1 : 2);
    expect(await counted(ballast, 'POST /withdrawals/request', adopted ? '409' : '400')).toBeGreaterThan(0);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before);
    const hub = (await (await fetch(`${sandbox.apiUrl}/_sandbox/hub-balances`)).json()) as {
      balances: { amount: string; locked: string }[];
    };
    expect(hub.balances).toEqual([expect.objectContaining({ amount: '0', locked: '0' })]);
  });
});
