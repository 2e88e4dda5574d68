/**
 * Token decimals are read from the contract and must agree with the config (or GET /chains): a claim of 18
 * decimals for the sandbox's 6-decimal USDC would plan amounts off by 10^12, so that chain plans nothing, the
 * error names the YAML path, the cycle is a partial failure and nothing is signed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { exitCodeFor } from '../../packages/ballast/src/cycle/runCycle.ts';
import { ballastOnSandbox, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-decimals-');
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
});

function assets(betaDecimals: number) {
  return {
    USDC: [
      { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
      {
        chain: 'beta',
        currency: '${SANDBOX_USDC}',
        wallet: 'treasury',
        min: '20000',
        target: '30000',
        max: '45000',
        decimals: betaDecimals,
      },
    ],
  };
}

describe('token decimals checked against the contract', () => {
  it('a configured value the contract contradicts: that chain plans nothing, the error names assets.USDC[1].decimals', async () => {
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { assets: assets(18) });
    const nonce = await treasuryNonce(sandbox, 'alpha');
    try {
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('error');
      expect(exitCodeFor(report.outcome)).toBe(1);
      expect(report.plan.transfers).toEqual([]);
      expect(report.targets.map((t) => t.chain)).toEqual(['alpha']);
      const decision = report.plan.decisions.find((d) => d.kind === 'chain_unreadable' && d.chain === 'beta');
      expect(decision?.detail).toMatch(
        /assets\.USDC\[1\]\.decimals says 18 decimals but the token contract 0x[0-9a-fA-F]{40} on beta says 6/,
      );
      expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce);
      expect(await usdcBalance(sandbox, 'alpha')).toBe(90_000n * 1_000_000n);
    } finally {
      await ballast.close();
    }
  });

  it('a configured value the contract confirms plans as usual', async () => {
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { assets: assets(6) });
    try {
      const report = await ballast.runCycle('plan');
      expect(report.plan.decisions.filter((d) => d.kind === 'chain_unreadable')).toEqual([]);
      expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 20_000n * 1_000_000n]]);
    } finally {
      await ballast.close();
    }
  });
});
