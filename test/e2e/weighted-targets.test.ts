/**
 * Weighted targets on the sandbox: USDC held as 40 % alpha / 60 % beta of the total (±1 %) converges to within the
 * tolerance in one cycle, and `plan` says in words how the bands were computed and why the transfer is proposed.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-weights-');
beforeEach(async () => {
  sandbox = await sandboxes.start({}); // the treasury holds 90 000 USDC on alpha and 10 000 on beta
});
afterAll(() => tmp.cleanup());

const USDC = 1_000_000n;

describe('weighted targets', () => {
  it('converge to within tolerance in one cycle', async () => {
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {
      assets: {
        USDC: [
          { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', weight: 40, toleranceBps: 100 },
          { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'treasury', weight: 60, toleranceBps: 100 },
        ],
      },
      policy: { maxTransfer: '100000' },
    });
    sandboxes.closeAfter(() => ballast.close());

    const planned = await ballast.runCycle('plan');
    expect(planned.plan.decisions.find((d) => d.kind === 'weights')?.detail).toBe(
      'USDC: 100000 held in total; alpha weight 40 → target 40000, band [39000, 41000]; beta weight 60 → target 60000, band [59000, 61000]',
    );
    // beta refilled to its refill point, by default min + 40 % of its band: 59 000 + 800
    expect(planned.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 49_800n * USDC]]);
    expect(planned.plan.transfers[0]!.reason).toBe('beta below min: 10000 < 59000 USDC; alpha above max: 90000 > 41000 USDC');

    const report = await ballast.runCycle('once');
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    const [alpha, beta] = [await usdcBalance(sandbox, 'alpha'), await usdcBalance(sandbox, 'beta')];
    const total = alpha + beta;
    // Each holding within ±1 % of the total around its share of the total now held.
    expect(alpha * 10_000n >= total * 3_900n && alpha * 10_000n <= total * 4_100n).toBe(true);
    expect(beta * 10_000n >= total * 5_900n && beta * 10_000n <= total * 6_100n).toBe(true);
    // The next cycle finds them in band and moves nothing.
    const next = await ballast.runCycle('once');
    expect(next.plan.transfers).toEqual([]);
  }, 120_000);
});
