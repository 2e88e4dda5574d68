/**
 * `policy.strategy.<asset>` with `kind: flow` reaches the planner through the config and the cycle: without flow
 * history the plan is the bands plan, and the decisions say the holdings are planned on bands alone.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-flow-');
beforeEach(async () => {
  sandbox = await sandboxes.start({}); // 90 000 USDC on alpha (band 40 000–60 000), 10 000 on beta (20 000–45 000)
});
afterAll(() => tmp.cleanup());

const USDC = 1_000_000n;

describe('policy.strategy: flow', () => {
  it('plans on bands alone while no holding has flow history, and says so', async () => {
    const strategy = { USDC: { kind: 'flow', halfLifeSec: 3600, horizonSec: 900 } };
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { policy: { strategy } });
    sandboxes.closeAfter(() => ballast.close());
    const report = await ballast.runCycle('plan');
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 20_000n * USDC]]);
    expect(report.plan.decisions.find((d) => d.kind === 'deficit')?.detail).toBe(
      'beta below min: 10000 < 20000 USDC; needs 20000 to reach target 30000; no flow history yet: bands alone',
    );
  }, 60_000);
});
