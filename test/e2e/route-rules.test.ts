/**
 * Route rules and batching on the sandbox (real anvil chains, the sandbox's default fees): a refused route sends
 * nothing and the plan says why (a manual transfer on it is refused too); a route's own fee caps, stricter than
 * the sandbox's fees, skip its quote where the global caps accept it; and a small deficit is served by one transfer
 * of minTransfer through the whole pipeline.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-route-rules-');
beforeEach(async () => {
  sandbox = await sandboxes.start({}); // 90 000 USDC on alpha (band 40 000–60 000), 10 000 on beta (20 000–45 000)
});
afterAll(() => tmp.cleanup());

const USDC = 1_000_000n;

async function snapshot() {
  return {
    nonces: [await treasuryNonce(sandbox, 'alpha'), await treasuryNonce(sandbox, 'beta')],
    usdc: [await usdcBalance(sandbox, 'alpha'), await usdcBalance(sandbox, 'beta')],
  };
}

describe('policy.routes on the sandbox', () => {
  it('a refused route sends nothing, the plan says why, and a manual transfer on it is refused', async () => {
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { policy: { routes: [{ from: 'alpha', to: 'beta', allow: false }] } });
    sandboxes.closeAfter(() => ballast.close());
    const before = await snapshot();
    const report = await ballast.runCycle('once');
    expect(report.plan.transfers).toEqual([]);
    expect(report.plan.decisions.filter((d) => d.kind === 'route_not_allowed').map((d) => d.detail)).toEqual([
      'alpha → beta: not allowed by policy.routes[0]',
    ]);
    expect(report.plan.decisions.find((d) => d.kind === 'deficit_unmet')?.chain).toBe('beta');
    await expect(
      ballast.transfer({ from: { chain: 'alpha', asset: 'USDC' }, to: { chain: 'beta', asset: 'USDC' }, amount: '500', dryRun: false }),
    ).rejects.toMatchObject({
      code: 'TRANSFER_INVALID',
      message: expect.stringContaining('is not allowed by policy.routes[0]'),
    });
    expect(await snapshot()).toEqual(before); // nothing signed, nothing moved
    expect(await listRecentTransfers(ballast.db, 10)).toEqual([]);
  }, 120_000);

  it("a route's own fee caps, stricter than the sandbox's fees, skip its quote where the global caps accept it", async () => {
    // Global (config/demo.yaml): execution 2 USD; the sandbox charges 0.02 USD flat plus the fill's gas.
    const global = ballastOnSandbox(sandbox, tmp.dir);
    sandboxes.closeAfter(() => global.ballast.close());
    const control = await global.ballast.runCycle('plan');
    expect(control.attempts.map((a) => [a.outcome, a.fee?.accepted])).toEqual([['quoted', true]]);

    const routes = [{ from: 'alpha', to: 'beta', maxFees: { components: { execution: { usd: '0.01' } } } }];
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { policy: { routes } });
    sandboxes.closeAfter(() => ballast.close());
    const before = await snapshot();
    const report = await ballast.runCycle('once');
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 20_000n * USDC]]);
    expect(report.plan.transfers[0]!.reason).toMatch(
      /; route alpha → beta per policy\.routes\[0\]: min 100, max 50000 USDC, own fee caps$/,
    );
    expect(report.attempts.map((a) => a.outcome)).toEqual(['skipped_fee']);
    const fee = report.attempts[0]!.fee!;
    expect(fee.accepted).toBe(false);
    expect(fee.accepted ? null : [fee.reason, fee.detail]).toEqual([
      'execution_usd',
      expect.stringMatching(/^execution fee [0-9.]+ USD \(.+\) exceeds cap 0\.01 USD$/),
    ]);
    expect(report.outcome).toBe('refused');
    expect(await snapshot()).toEqual(before);
  }, 120_000);
});

describe('batching a small deficit on the sandbox', () => {
  it('one transfer of minTransfer closes a deficit smaller than minTransfer, and the money arrives', async () => {
    // beta holds 10 000 and needs 40 to reach its target (refilled to its target here, not the default min + 40 % of
    // its band); minTransfer 1000 fits under its max 20 000.
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {
      assets: {
        USDC: [
          { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
          { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '10010', target: '10040', max: '20000' },
        ],
      },
      policy: { minTransfer: '1000', refillTo: { USDC: 'target' } },
    });
    sandboxes.closeAfter(() => ballast.close());
    const before = await snapshot();
    const report = await ballast.runCycle('once');
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 1000n * USDC]]);
    expect(report.plan.decisions.filter((d) => d.kind === 'batched').map((d) => d.detail)).toEqual([
      'beta: needs 40 USDC, below minTransfer 1000 USDC; planned 1000 USDC from alpha so the flat fee is paid once (band max 20000)',
    ]);
    expect(report.plan.transfers[0]!.reason).toContain('raised from 40 USDC to minTransfer so the flat fee is paid once');
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    const after = await snapshot();
    expect(before.usdc[0]! - after.usdc[0]!).toBe(1000n * USDC);
    const rose = after.usdc[1]! - before.usdc[1]!;
    expect(rose).toBeGreaterThanOrEqual(992n * USDC); // at least the floor: 1000 less slippage 50 and totalBps 30
    expect(rose).toBeLessThanOrEqual(1000n * USDC);
    // beta is now in band (above target, within max): the next cycle plans nothing for it.
    const again = await ballast.runCycle('plan');
    expect(again.plan.transfers).toEqual([]);
  }, 120_000);
});
