/**
 * `policy.strategy.<asset>` with `kind: flow` on the sandbox, through the config and the cycle: without flow
 * history the plan is the bands plan and the decisions say so; cycles that sign record each holding's flow state
 * in the store (`flow_states`), so once a holding has `minSamples` intervals behind it a steady outflow gets it
 * pre-funded before it crosses min, and a surplus with no net flow stays where it is, where bands alone would act.
 * A test clock moves ten minutes between cycles; the outside traffic is a plain ERC-20 transfer from the treasury.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createWalletClient, erc20Abi, http, type Address } from 'viem';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { openSqliteStore } from '../../packages/ballast/src/store/openStore.ts';
import { readFlowStates } from '../../packages/ballast/src/store/flowStates.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-flow-');
beforeEach(async () => {
  sandbox = await sandboxes.start({}); // 90 000 USDC on alpha, 10 000 on beta
});
afterAll(() => tmp.cleanup());

const USDC = 1_000_000n;
const STEP_MS = 600_000;
const HORIZON_SEC = 2400;
const OUTSIDE: Address = '0x000000000000000000000000000000000000dEaD';

/** USDC bands on alpha and beta (whole units). */
function usdcBands(alpha: [string, string, string], beta: [string, string, string]) {
  const entry = (chain: string, [min, target, max]: [string, string, string]) => ({
    chain,
    currency: '${SANDBOX_USDC}',
    wallet: 'treasury',
    min,
    target,
    max,
  });
  return { USDC: [entry('alpha', alpha), entry('beta', beta)] };
}

/** Pays `amount` USDC from the treasury on `slug` to an outside address: traffic Ballast did not cause. */
async function payOut(slug: string, amount: bigint): Promise<void> {
  const chain = sandbox.chains.find((c) => c.def.slug === slug)!;
  const w = createWalletClient({ account: sandbox.accounts.treasury, chain: chain.chain, transport: http(chain.rpcUrl) });
  const hash = await w.writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [OUTSIDE, amount] });
  expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
}

const flowStrategy = { USDC: { kind: 'flow', halfLifeSec: 3600, horizonSec: HORIZON_SEC } }; // minSamples 3 by default

describe('policy.strategy: flow', () => {
  it('plans on bands alone on a first cycle (no interval observed yet), and says so', async () => {
    const strategy = { USDC: { kind: 'flow', halfLifeSec: 3600, horizonSec: 900 } };
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { policy: { strategy } });
    sandboxes.closeAfter(() => ballast.close());
    const report = await ballast.runCycle('plan');
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 20_000n * USDC]]);
    expect(report.plan.decisions.find((d) => d.kind === 'deficit')?.detail).toBe(
      'beta below min: 10000 < 20000 USDC; needs 20000 to reach target 30000; flow history 0/3 samples: bands alone',
    );
  }, 60_000);

  it('pre-funds a steadily draining holding before it crosses min, once it has enough history; bands alone wait', async () => {
    let clock = Date.now();
    // beta in band; alpha above max with no home to sweep to: a donor, though bands alone leave its surplus unused.
    const assets = usdcBands(['40000', '60000', '85000'], ['5000', '10000', '20000']);
    const { ballast, store } = ballastOnSandbox(sandbox, tmp.dir, { assets, policy: { strategy: flowStrategy } }, {}, { now: () => clock });
    sandboxes.closeAfter(() => ballast.close());
    // Three cycles that sign, 1 000 USDC paid out of beta between each: nothing to do on bands or on a cold flow.
    for (let cycle = 0; cycle < 3; cycle++) {
      if (cycle > 0) {
        await payOut('beta', 1_000n * USDC);
        clock += STEP_MS;
      }
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('ok');
      expect(report.plan.transfers).toEqual([]);
    }
    const db = openSqliteStore(store);
    sandboxes.closeAfter(() => db.close());
    const states = await readFlowStates(db);
    expect(states.map((s) => [s.chain, s.samples])).toEqual([
      ['alpha', 2],
      ['beta', 2],
    ]);
    const perSecScaled = (-1_000n * USDC * 1000n * 1_000_000n) / BigInt(STEP_MS); // the fixed-point rate of each interval
    expect(states.find((s) => s.chain === 'beta')!.rateScaled).toBe(perSecScaled);
    expect(states.find((s) => s.chain === 'alpha')!.rateScaled).toBe(0n);

    await payOut('beta', 1_000n * USDC);
    clock += STEP_MS;
    const beta = await usdcBalance(sandbox, 'beta');
    expect(beta).toBe(7_000n * USDC); // in band: bands alone plan nothing
    const report = await ballast.runCycle('plan');
    const projected = beta + (perSecScaled / 1_000_000n) * BigInt(HORIZON_SEC);
    expect(projected).toBeLessThan(5_000n * USDC);
    // refilled from its projection to its refill point, by default min + 40 % of its band: 5 000 + 6 000
    expect(report.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([
      ['alpha', 'beta', 11_000n * USDC - projected],
    ]);
    expect(report.plan.decisions.find((d) => d.kind === 'deficit')?.detail).toMatch(/^beta projected below min: .*\(3 samples\)/);
    // `plan` reads the history but writes none.
    expect((await readFlowStates(db)).map((s) => s.samples)).toEqual([2, 2]);

    const bandsOnly = ballastOnSandbox(sandbox, tmp.dir, { assets }).ballast;
    sandboxes.closeAfter(() => bandsOnly.close());
    expect((await bandsOnly.runCycle('plan')).plan.transfers).toEqual([]);
  }, 180_000);

  it('leaves a surplus slightly above max alone when its flow nets to zero; bands alone sweep it', async () => {
    let clock = Date.now();
    const inBand = usdcBands(['40000', '60000', '100000'], ['5000', '10000', '40000']);
    const first = ballastOnSandbox(sandbox, tmp.dir, { assets: inBand, policy: { strategy: flowStrategy } }, {}, { now: () => clock });
    sandboxes.closeAfter(() => first.ballast.close());
    for (let cycle = 0; cycle < 3; cycle++) {
      if (cycle > 0) clock += STEP_MS;
      expect((await first.ballast.runCycle('once')).plan.transfers).toEqual([]);
    }
    clock += STEP_MS;
    // The same store and traffic, with alpha's max lowered below its 90 000 and a home to sweep surpluses to.
    const above = usdcBands(['40000', '60000', '85000'], ['5000', '10000', '40000']);
    const shared = { BALLAST_DEMO_STORE: first.store };
    const sweepTo = { USDC: 'beta' };
    const flow = ballastOnSandbox(sandbox, tmp.dir, { assets: above, policy: { strategy: flowStrategy, sweepTo } }, shared, {
      now: () => clock,
    }).ballast;
    sandboxes.closeAfter(() => flow.close());
    const kept = await flow.runCycle('plan');
    expect(kept.plan.transfers).toEqual([]);
    expect(kept.plan.decisions.find((d) => d.kind === 'surplus')?.detail).toMatch(
      /^alpha above max: 90000 > 85000 USDC; .*inside the deadband; left where it is unless a deficit needs it \(flow strategy\)$/,
    );

    const bandsOnly = ballastOnSandbox(sandbox, tmp.dir, { assets: above, policy: { sweepTo } }, shared).ballast;
    sandboxes.closeAfter(() => bandsOnly.close());
    const swept = await bandsOnly.runCycle('plan');
    expect(swept.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn])).toEqual([['alpha', 'beta', 30_000n * USDC]]);
  }, 180_000);
});
