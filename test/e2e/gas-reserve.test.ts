/**
 * The gas reserve on the sandbox: a native ETH holding above its band gives only what exceeds
 * `chains.<name>.gasReserve`, in the cycle's plan and in a manual transfer.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-gas-reserve-');
beforeEach(async () => {
  sandbox = await sandboxes.start({}); // the treasury holds 10 ETH on alpha and on beta
});
afterAll(() => tmp.cleanup());

const NATIVE = '0x0000000000000000000000000000000000000000';

function ethSetup(alphaReserve: string) {
  const chains = demoConfigFor(sandbox).chains as Record<string, Record<string, unknown>>;
  return ballastOnSandbox(sandbox, tmp.dir, {
    chains: { alpha: { ...chains.alpha, gasReserve: alphaReserve } },
    assets: {
      ETH: [
        { chain: 'alpha', currency: NATIVE, wallet: 'treasury', min: '1', target: '2', max: '3' },
        // refilled to min + 40 % of its band (the default refill point), its target 13
        { chain: 'beta', currency: NATIVE, wallet: 'treasury', min: '12', target: '13', max: '14.5' },
      ],
    },
    policy: { transferLimits: { ETH: { minTransfer: '0.1', maxTransfer: '20' } } },
  });
}

describe('chains.<name>.gasReserve', () => {
  it('caps what a native holding gives at its balance minus the reserve', async () => {
    const { ballast } = ethSetup('9');
    sandboxes.closeAfter(() => ballast.close());
    const report = await ballast.runCycle('plan');
    // alpha holds 10 (above max 3, could give 8 down to target 2) but keeps its 9 ETH reserve: it gives 1.
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', parseEther('1')]]);
    expect(report.plan.decisions.find((d) => d.kind === 'surplus')?.detail).toContain('down to its gas reserve 9');
    // A manual transfer may not dig into it either; nothing is recorded.
    await expect(
      ballast.transfer({ from: { chain: 'alpha', asset: 'ETH' }, to: { chain: 'beta', asset: 'ETH' }, amount: '2', dryRun: true }),
    ).rejects.toMatchObject({
      code: 'TRANSFER_INVALID',
      message: expect.stringContaining('below the gas reserve of 9 (chains.alpha.gasReserve)'),
    });
  }, 60_000);

  it('without a reserve the same holding gives down to its target', async () => {
    const { ballast } = ethSetup('0');
    sandboxes.closeAfter(() => ballast.close());
    const report = await ballast.runCycle('plan');
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', parseEther('3')]]);
  }, 60_000);
});
