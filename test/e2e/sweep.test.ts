/**
 * Sweeping on the sandbox (`policy.sweepTo`, off by default): after beta's deficit is served, the rest of alpha's
 * surplus goes to the home holding in the same transfer (one fee), and the money arrives there.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-sweep-');
beforeEach(async () => {
  sandbox = await sandboxes.start({}); // 90 000 USDC on alpha (band 40 000–60 000), 10 000 on beta (20 000–45 000)
});
afterAll(() => tmp.cleanup());

const USDC = 1_000_000n;

describe('policy.sweepTo', () => {
  it('sends the surplus no deficit took to the home holding, joined to the deficit transfer', async () => {
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { policy: { sweepTo: { USDC: 'beta' } } });
    sandboxes.closeAfter(() => ballast.close());
    const before = await usdcBalance(sandbox, 'beta');
    const report = await ballast.runCycle('once');
    // beta needs 20 000 to reach its target; alpha can give 40 000 down to its target: the other 20 000 is swept.
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 40_000n * USDC]]);
    expect(report.plan.transfers[0]!.reason).toMatch(/; plus 20000 USDC swept$/);
    expect(report.plan.decisions.find((d) => d.kind === 'sweep')?.detail).toBe('USDC: 20000 of 20000 unused surplus swept to home beta');
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect((await usdcBalance(sandbox, 'beta')) - before).toBeGreaterThan(39_900n * USDC);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(50_000n * USDC);
  }, 120_000);

  it('is off by default: the unused surplus stays', async () => {
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    sandboxes.closeAfter(() => ballast.close());
    const report = await ballast.runCycle('plan');
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 20_000n * USDC]]);
    expect(report.plan.decisions.find((d) => d.kind === 'surplus_unused')?.detail).toContain(
      '20000 USDC of 40000 USDC surplus left unused',
    );
  }, 60_000);
});
