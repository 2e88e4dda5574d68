/**
 * Route choice on the sandbox: three chains, beta short of USDC, alpha and gamma both with surplus to spare.
 * Quotes from alpha cost more (`extraFeesByOrigin`), so the cycle sends from gamma although the planner picked
 * alpha; the alternatives and why they lost are recorded and counted.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { formatUsdMicros } from '../../packages/protocol/src/core/units.ts';
import type { Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { DEFAULT_LOCAL_CHAINS, DEMO_BALANCES } from '../../packages/sandbox/src/chains/localChains.ts';
import { listRouteCandidates } from '../../packages/ballast/src/store/routeCandidates.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-route-choice-');
const USDC = 1_000_000n;

beforeEach(async () => {
  sandbox = await sandboxes.start({
    chains: [...DEFAULT_LOCAL_CHAINS, { slug: 'gamma', displayName: 'Gamma', chainId: 31003 }],
    balances: { ...DEMO_BALANCES, gamma: { treasury: { usdc: '90000', eth: '10' }, solver: { usdc: '1000000', eth: '100' } } },
  });
});
afterAll(() => tmp.cleanup());

/** Ballast on the three chains: alpha and gamma hold 90 000 USDC (band 40 000–60 000), beta 10 000 (20 000–45 000). */
function threeChains(policy: Record<string, unknown> = {}) {
  const out = ballastOnSandbox(sandbox, tmp.dir, {
    chains: { gamma: { chainId: 31003, rpcUrl: '${SANDBOX_GAMMA_RPC}' } },
    assets: {
      USDC: ['alpha', 'gamma', 'beta'].map((chain) => ({
        chain,
        currency: '${SANDBOX_USDC}',
        wallet: 'treasury',
        ...(chain === 'beta' ? { min: '20000', target: '30000', max: '45000' } : { min: '40000', target: '50000', max: '60000' }),
      })),
    },
    policy,
  });
  sandboxes.closeAfter(() => out.ballast.close());
  return out;
}

describe('route choice', () => {
  it('sends from the cheaper donor and records the alternative that lost', async () => {
    sandbox.setFaults({ extraFeesByOrigin: { alpha: { executionUsd: '1.5' } } });
    const { ballast } = threeChains();
    const before = {
      alpha: await usdcBalance(sandbox, 'alpha'),
      beta: await usdcBalance(sandbox, 'beta'),
      gamma: await usdcBalance(sandbox, 'gamma'),
    };
    const report = await ballast.runCycle('once');
    // The planner picks alpha (ties on size go to the chain name) and lists gamma as the alternative.
    const [planned] = report.plan.transfers;
    expect([planned!.from.chain, planned!.to.chain, planned!.amountIn]).toEqual(['alpha', 'beta', 20_000n * USDC]);
    expect(planned!.alternatives?.map((a) => [a.from.chain, a.amountIn])).toEqual([['gamma', 20_000n * USDC]]);
    const [attempt] = report.attempts;
    expect(attempt!.outcome).toBe('success');
    expect(attempt!.planned.from.chain).toBe('gamma');
    expect(attempt!.planned.reason).toMatch(/route choice: gamma \(treasury\) sends instead of alpha/);
    expect(attempt!.candidates?.map((c) => [c.planned.from.chain, c.outcome])).toEqual([
      ['alpha', 'costlier'],
      ['gamma', 'chosen'],
    ]);
    const [alpha, gamma] = attempt!.candidates!;
    // The sandbox's extra 1.5 USD on alpha, give or take the difference of the two chains' origin gas, which the
    // fee policy counts in the total too.
    const saved = alpha!.feesMicros! - gamma!.feesMicros!;
    expect(saved > 1_000_000n && saved < 2_000_000n, `alpha costs ${saved} micro-USD more`).toBe(true);
    // Money moved from gamma, not alpha.
    expect(await usdcBalance(sandbox, 'alpha')).toBe(before.alpha);
    expect(before.gamma - (await usdcBalance(sandbox, 'gamma'))).toBe(20_000n * USDC);
    expect((await usdcBalance(sandbox, 'beta')) - before.beta).toBeGreaterThan(19_900n * USDC);
    // Both candidates are in the store with their quote and fees, and counted.
    const rows = await listRouteCandidates(ballast.db, attempt!.planId);
    expect(rows.map((r) => [r.rank, r.originChain, r.outcome, r.feesUsd !== undefined, r.quoteId !== undefined])).toEqual([
      [0, 'alpha', 'costlier', true, true],
      [1, 'gamma', 'chosen', true, true],
    ]);
    expect(rows[0]!.detail).toContain(`${formatUsdMicros(saved)} USD more than gamma`);
    const text = await ballast.metrics.registry.metrics();
    expect(text).toMatch(/ballast_route_candidates_total\{asset="USDC",outcome="chosen"\} 1/);
    expect(text).toContain(`ballast_route_choice_saved_usd_total{asset="USDC"} ${Number(formatUsdMicros(saved))}`);
  }, 180_000);

  it("keeps the planner's pick when the alternative fails the fee policy, and says why", async () => {
    sandbox.setFaults({ extraFeesByOrigin: { gamma: { platformBps: 40 } } }); // above the 10 bps platform cap
    const { ballast } = threeChains();
    const report = await ballast.runCycle('plan');
    const [attempt] = report.attempts;
    expect(attempt!.outcome).toBe('quoted');
    expect(attempt!.planned.from.chain).toBe('alpha');
    expect(attempt!.candidates?.map((c) => [c.planned.from.chain, c.outcome])).toEqual([
      ['alpha', 'chosen'],
      ['gamma', 'skipped_fee'],
    ]);
    expect(attempt!.candidates![1]!.detail).toMatch(/fee policy: total_usd: .*platform fee 80 USD \(40 bps/);
  }, 120_000);

  it('quotes alternatives only from /quote slots free under the rate limit, so the cycle never waits for them', async () => {
    const { ballast } = threeChains();
    const first = await ballast.runCycle('plan');
    // Spend the client's /quote budget (50 a minute) down to one free slot, with real quotes of the planned route.
    const planned = first.attempts[0]!.request!;
    while ((ballast.ctx.relay.quoteSlotsFree?.() ?? 0) > 1) await ballast.ctx.relay.quote(planned);
    const report = await ballast.runCycle('plan');
    const [attempt] = report.attempts;
    expect(attempt!.outcome).toBe('quoted');
    expect(attempt!.candidates?.map((c) => [c.planned.from.chain, c.outcome])).toEqual([
      ['alpha', 'chosen'],
      ['gamma', 'not_quoted'],
    ]);
    expect(attempt!.candidates![1]!.detail).toMatch(/not quoted: only 1 \/quote slot\(s\) free under the rate limit/);
  }, 120_000);

  it("quotes only the planner's pick with policy.routeChoice.maxCandidates 1", async () => {
    sandbox.setFaults({ extraFeesByOrigin: { alpha: { executionUsd: '1.5' } } });
    const { ballast } = threeChains({ routeChoice: { maxCandidates: 1 } });
    const report = await ballast.runCycle('plan');
    expect(report.plan.transfers[0]!.alternatives).toBeUndefined();
    expect(report.attempts.map((a) => [a.planned.from.chain, a.outcome, a.candidates])).toEqual([['alpha', 'quoted', undefined]]);
    const quotes = await ballast.db.all<{ n: number }>('SELECT COUNT(*) AS n FROM quotes');
    expect(Number(quotes[0]!.n)).toBe(1);
  }, 120_000);
});
