/**
 * Gas top-ups on the sandbox (`chains.<name>.gasTopUp`): the treasury starts with no ETH on beta, so it cannot pay
 * for a deposit there; a cycle buys ETH for it with alpha USDC through the whole pipeline (cross-asset quote, fee
 * caps, verification against the configured minOut, limits, write-ahead, signing, tracking), after which the same
 * deposit from beta succeeds. No second top-up while one is in flight; plan and monitor-only modes sign nothing;
 * a quote guaranteeing less than minOut is refused.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatEther, parseEther, type Address } from 'viem';
import { createBallast } from '../../packages/ballast/src/app/createBallast.ts';
import { renderReport } from '../../packages/ballast/src/cli/renderReport.ts';
import { renderTransfer } from '../../packages/ballast/src/cli/renderTransfer.ts';
import { decimalsOfTransfers } from '../../packages/ballast/src/store/ledgerUnits.ts';
import { DEMO_BALANCES } from '../../packages/sandbox/src/chains/localChains.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listInFlightTransfers, listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { demoConfigFor } from './helpers/demoConfig.ts';
import { ballastOnSandbox, memoryLogger, sandboxPerTest, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';
import { trackingClock } from './trackingClock.ts';

const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-gas-top-up-');
/** The demo balances, except that the treasury holds no ETH on beta: it cannot pay for a transaction there. */
const NO_ETH_ON_BETA = { ...DEMO_BALANCES, beta: { ...DEMO_BALANCES.beta, treasury: { ...DEMO_BALANCES.beta!.treasury, eth: '0' } } };
afterAll(() => tmp.cleanup());

const USDC = 1_000_000n;
const MIN_OUT = '0.05';

async function ethOnBeta(): Promise<bigint> {
  const beta = sandbox.chains.find((c) => c.def.slug === 'beta')!;
  return beta.publicClient.getBalance({ address: sandbox.accounts.treasury.address as Address });
}

/** Both USDC holdings in band: nothing to rebalance. */
const IN_BAND = [
  { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '1000', target: '90000', max: '200000' },
  { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '1000', target: '10000', max: '200000' },
];

/**
 * Ballast with a gas top-up on beta: `amount` (default 200) USDC of `from` (default alpha) for at least `minOut`
 * ETH whenever a signer holds less than 0.01 ETH there (`minOut: null`: no top-up); USDC holdings `usdc` (default
 * in band).
 */
function topUpSetup(
  opts: {
    minOut?: string | null;
    from?: string;
    amount?: string;
    usdc?: unknown[];
    tracking?: Record<string, unknown>;
    policy?: Record<string, unknown>;
    /** The instance's clock (default `Date.now`). */
    now?: () => number;
  } = {},
) {
  const chains = demoConfigFor(sandbox).chains as Record<string, Record<string, unknown>>;
  const minOut = opts.minOut === undefined ? MIN_OUT : opts.minOut;
  const gasTopUp = minOut === null ? {} : { gasTopUp: { from: opts.from ?? 'alpha:USDC', amount: opts.amount ?? '200', minOut } };
  // The fee policy counts the origin gas of a transfer too: on 200 USDC the deposit's gas alone is ~42 bps, above
  // the demo's 30 bps cap, so these tests allow 100 bps in total (a test passing its own policy sets its own).
  const demoPolicy = demoConfigFor(sandbox).policy as { maxFees: Record<string, unknown> };
  const policy = opts.policy ?? { ...demoPolicy, maxFees: { ...demoPolicy.maxFees, totalBps: 100 } };
  return ballastOnSandbox(
    sandbox,
    tmp.dir,
    {
      chains: { beta: { ...chains.beta, minGasBalance: '0.01', ...gasTopUp } },
      assets: { USDC: opts.usdc ?? IN_BAND },
      ...(opts.tracking ? { tracking: opts.tracking } : {}),
      policy,
    },
    {},
    opts.now ? { now: opts.now } : {},
  );
}

const fromBeta = { from: { chain: 'beta', asset: 'USDC' }, to: { chain: 'alpha', asset: 'USDC' }, amount: '1000', dryRun: false };

describe('chains.<name>.gasTopUp', () => {
  describe('signing (a sandbox each)', () => {
    beforeEach(async () => {
      sandbox = await sandboxes.start({ balances: NO_ETH_ON_BETA });
    });

    it('buys gas for a signer below minGasBalance, which can then pay for its next deposit', async () => {
      expect(await ethOnBeta()).toBe(0n);
      // Before, without a top-up: the treasury cannot pay for a deposit from beta. The node refuses its first
      // transaction and nothing lands (that Ballast keeps the signed transfer in flight for reconciliation, as any
      // send answered with an error; its store is left aside).
      const without = topUpSetup({ minOut: null }).ballast;
      const before = await without.transfer(fromBeta);
      await without.close();
      expect(before.attempts.map((a) => [a.outcome, a.transferStatus])).toEqual([['in_flight', 'prepared']]);
      expect(before.attempts[0]!.error).toContain('Insufficient funds for gas');
      expect(await treasuryNonce(sandbox, 'beta')).toBe(0);
      expect(await usdcBalance(sandbox, 'beta')).toBe(10_000n * USDC);

      const { ballast } = topUpSetup();
      sandboxes.closeAfter(() => ballast.close());
      const alphaUsdc = await usdcBalance(sandbox, 'alpha');
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('ok');
      expect(
        report.attempts.map((a) => [a.planned.asset, a.planned.from.chain, a.planned.to.chain, a.planned.to.currency, a.outcome]),
      ).toEqual([['USDC', 'alpha', 'beta', '0x0000000000000000000000000000000000000000', 'success']]);
      const [topUp] = report.attempts;
      expect(topUp!.planned.reason).toBe(
        'gas top-up: treasury holds 0 ETH on beta, below minGasBalance 0.01 ETH; buying at least 0.05 ETH with 200 USDC from alpha',
      );
      expect(topUp!.minOutRequired).toBe(parseEther(MIN_OUT));
      expect(topUp!.verdict?.ok).toBe(true);
      expect(report.plan.decisions.filter((d) => d.kind === 'gas_top_up').map((d) => d.detail)).toEqual([topUp!.planned.reason]);
      // Alpha paid exactly the amount; beta received at least the configured floor.
      expect(alphaUsdc - (await usdcBalance(sandbox, 'alpha'))).toBe(200n * USDC);
      expect(await ethOnBeta()).toBeGreaterThanOrEqual(parseEther(MIN_OUT));
      // Recorded like any transfer: one row, success, with the native destination and the guaranteed output.
      const rows = await listRecentTransfers(ballast.db, 10);
      const row = rows.find((r) => r.cycleId === report.cycleId)!;
      expect([row.status, row.asset, row.originChain, row.destinationChain, row.destinationCurrency, row.amountIn]).toEqual([
        'success',
        'USDC',
        'alpha',
        'beta',
        '0x0000000000000000000000000000000000000000',
        200n * USDC,
      ]);
      expect(row.minOut).toBeGreaterThanOrEqual(parseEther(MIN_OUT));
      // History shows what it bought in ETH, not in the asset it paid.
      const units = (await decimalsOfTransfers(ballast.db, [row.id])).get(row.id)!;
      expect(units).toEqual({ decimalsIn: 6, decimalsOut: 18, symbolOut: 'ETH' });
      expect(renderTransfer(row, units)).toContain(`${formatEther(row.minOut)} ETH (${row.minOut} base units)`);
      expect(
        await ballast.db.all('SELECT kind, detail FROM plan_decisions WHERE cycle_id = ? AND kind = ?', report.cycleId, 'gas_top_up'),
      ).toEqual([{ kind: 'gas_top_up', detail: topUp!.planned.reason }]);
      expect(
        await ballast.db.all(
          'SELECT asset, origin_chain, destination_chain, amount_in, reason FROM planned_transfers WHERE cycle_id = ?',
          report.cycleId,
        ),
      ).toEqual([
        { asset: 'USDC', origin_chain: 'alpha', destination_chain: 'beta', amount_in: String(200n * USDC), reason: topUp!.planned.reason },
      ]);
      expect(await ballast.metrics.registry.metrics()).toContain(
        'ballast_gas_top_ups_total{chain="beta",wallet="treasury",outcome="success"} 1',
      );

      // After: the same deposit from beta goes through.
      const after = await ballast.transfer(fromBeta);
      expect(after.attempts.map((a) => a.outcome)).toEqual(['success']);
      expect(await usdcBalance(sandbox, 'beta')).toBe(9_000n * USDC);
      // Above minGasBalance now: the next cycle buys nothing.
      const next = await ballast.runCycle('once');
      expect(next.attempts).toEqual([]);
      expect(next.plan.decisions.some((d) => d.kind === 'gas_top_up')).toBe(false);
    }, 60_000);

    it('sends no second top-up while one is in flight', async () => {
      sandbox.setFaults({ neverFill: true });
      const clock = trackingClock();
      const { ballast } = topUpSetup({ tracking: { pollMs: 200, timeoutSec: 10 }, now: clock.now });
      sandboxes.closeAfter(() => ballast.close());
      // The fill never comes: cycle 1 stops tracking at its first status read (the clock moves past its 10 s).
      void clock.timeOutAtNextStatusRead(ballast.relay, 10_000);
      const first = await ballast.runCycle('once');
      expect(clock.aheadMs).toBe(10_000);
      expect(first.attempts.map((a) => [a.planned.to.chain, a.outcome])).toEqual([['beta', 'in_flight']]);
      const second = await ballast.runCycle('once');
      expect(second.attempts).toEqual([]);
      const guaranteed = formatEther(BigInt(first.attempts[0]!.quote!.protocol!.v2!.orderData.output.payments[0]!.minimumAmount));
      expect(second.plan.decisions.filter((d) => d.kind === 'gas_top_up').map((d) => d.detail)).toEqual([
        `treasury holds 0 ETH on beta, below minGasBalance 0.01 ETH; ${guaranteed} ETH (guaranteed) already on its way from alpha: no second top-up while it is in flight`,
      ]);
      expect((await listInFlightTransfers(ballast.db)).map((r) => [r.originChain, r.destinationChain, r.amountIn])).toEqual([
        ['alpha', 'beta', 200n * USDC],
      ]);
      expect(await ballast.metrics.registry.metrics()).toContain(
        'ballast_gas_top_ups_total{chain="beta",wallet="treasury",outcome="in_flight"} 1',
      );
    }, 60_000);

    it('runs before the rebalancing transfers, so a deposit from the topped-up signer goes through in the same cycle', async () => {
      const { ballast } = topUpSetup({
        usdc: [
          { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '95000', target: '100000', max: '200000' },
          { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '1000', target: '5000', max: '8000' },
        ],
      });
      sandboxes.closeAfter(() => ballast.close());
      const report = await ballast.runCycle('once');
      expect(
        report.attempts.map((a) => [
          a.planned.asset,
          a.planned.from.chain,
          a.planned.to.chain,
          a.planned.to.currency === '0x0000000000000000000000000000000000000000',
          a.outcome,
        ]),
      ).toEqual([
        ['USDC', 'alpha', 'beta', true, 'success'],
        ['USDC', 'beta', 'alpha', false, 'success'],
      ]);
      expect(await usdcBalance(sandbox, 'beta')).toBe(5_000n * USDC);
    }, 60_000);
  });

  // These cases sign nothing (each asserts it): they share one sandbox, each with a fresh store.
  describe('signing nothing (one sandbox)', () => {
    let shared: Sandbox;
    beforeAll(async () => {
      shared = await startSandbox({ balances: NO_ETH_ON_BETA });
    });
    beforeEach(() => {
      sandbox = shared;
    });
    afterEach(() => shared.resetFaults());
    afterAll(() => shared.stop());

    it('is quoted and judged but never signed in plan and monitor-only mode', async () => {
      const { ballast, config } = topUpSetup();
      sandboxes.closeAfter(() => ballast.close());
      const monitor = createBallast(config, { logger: memoryLogger().logger, chainPollingIntervalMs: 50, monitorOnly: true });
      sandboxes.closeAfter(() => monitor.close());
      const nonce = await treasuryNonce(sandbox, 'alpha');
      const alphaUsdc = await usdcBalance(sandbox, 'alpha');
      for (const report of [await ballast.runCycle('plan'), await monitor.runCycle('daemon')]) {
        expect(report.mode).toBe('plan');
        expect(report.attempts.map((a) => [a.planned.from.chain, a.planned.to.chain, a.outcome, a.verdict?.ok, a.fee?.accepted])).toEqual([
          ['alpha', 'beta', 'quoted', true, true],
        ]);
        // `ballast plan` shows the decision and the top-up with what it would buy.
        const text = renderReport(report);
        expect(text).toContain('gas_top_up');
        expect(text).toContain('gas top-up: USDC alpha → ETH beta (treasury)');
        const guaranteed = formatEther(BigInt(report.attempts[0]!.quote!.protocol!.v2!.orderData.output.payments[0]!.minimumAmount));
        expect(text).toContain(`${guaranteed} ETH`);
      }
      expect(await listRecentTransfers(ballast.db, 10)).toEqual([]);
      expect(await listRecentTransfers(monitor.db, 10)).toEqual([]);
      expect([await treasuryNonce(sandbox, 'alpha'), await usdcBalance(sandbox, 'alpha'), await ethOnBeta()]).toEqual([
        nonce,
        alphaUsdc,
        0n,
      ]);
      const metrics = await monitor.metrics.registry.metrics();
      expect(metrics).toContain(
        'ballast_monitor_transfers_total{asset="USDC",origin_chain="alpha",destination_chain="beta",outcome="quoted"} 1',
      );
      expect(metrics).not.toContain('ballast_gas_top_ups_total{');
    }, 60_000);

    it('refuses a quote that guarantees less native token than minOut; nothing is signed', async () => {
      const { ballast } = topUpSetup({ minOut: '1' }); // 1 ETH for 200 USDC: no quote at 3000 USD/ETH guarantees that much
      sandboxes.closeAfter(() => ballast.close());
      const nonce = await treasuryNonce(sandbox, 'alpha');
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('refused');
      const [attempt] = report.attempts;
      expect(attempt!.outcome).toBe('refused_verification');
      expect(attempt!.minOutRequired).toBe(parseEther('1'));
      expect(attempt!.verdict!.rules.filter((r) => !r.ok).map((r) => r.rule)).toEqual(['min-output']);
      expect([await treasuryNonce(sandbox, 'alpha'), await ethOnBeta()]).toEqual([nonce, 0n]);
      expect(await listRecentTransfers(ballast.db, 10)).toEqual([]);
      expect(await ballast.metrics.registry.metrics()).toContain(
        'ballast_gas_top_ups_total{chain="beta",wallet="treasury",outcome="refused_verification"} 1',
      );
    }, 60_000);

    it('keeps every fee cap: a top-up whose execution fee is above the cap is skipped', async () => {
      sandbox.setFaults({ extraFees: { executionUsd: '5' } }); // the demo policy caps execution at 2 USD
      const { ballast } = topUpSetup();
      sandboxes.closeAfter(() => ballast.close());
      const report = await ballast.runCycle('once');
      // Over 5 USD on 200 USD is above totalBps 30 too. The same-asset guaranteed-loss check is not applied: input
      // and output are different assets (minOut bounds the order instead).
      expect(report.attempts.map((a) => [a.outcome, a.fee?.accepted === false ? a.fee.exceeded : null])).toEqual([
        ['skipped_fee', ['total_bps', 'execution_usd']],
      ]);
      expect(await ethOnBeta()).toBe(0n);
    }, 60_000);

    it('is held by the spending limits like any transfer', async () => {
      const { ballast } = topUpSetup({ policy: { limits: { killSwitch: true } } });
      sandboxes.closeAfter(() => ballast.close());
      const report = await ballast.runCycle('once');
      expect(report.attempts.map((a) => [a.planned.to.chain, a.outcome])).toEqual([['beta', 'skipped_limit']]);
      expect(await ethOnBeta()).toBe(0n);
      expect(await ballast.metrics.registry.metrics()).toContain(
        'ballast_gas_top_ups_total{chain="beta",wallet="treasury",outcome="skipped_limit"} 1',
      );
    }, 60_000);

    it('buys nothing on a route policy.routes refuses, and says which rule', async () => {
      const { ballast } = topUpSetup({ policy: { routes: [{ from: 'alpha', to: 'beta', asset: 'USDC', allow: false }] } });
      sandboxes.closeAfter(() => ballast.close());
      const report = await ballast.runCycle('once');
      expect(report.attempts).toEqual([]);
      expect(report.plan.decisions.filter((d) => d.kind === 'gas_top_up').map((d) => d.detail)).toEqual([
        'treasury holds 0 ETH on beta, below minGasBalance 0.01 ETH; no top-up: USDC from alpha (treasury) to beta (treasury) is not allowed by policy.routes[0]',
      ]);
      expect([await treasuryNonce(sandbox, 'alpha'), await ethOnBeta()]).toEqual([0, 0n]);
      expect(await ballast.metrics.registry.metrics()).toContain(
        'ballast_gas_top_ups_total{chain="beta",wallet="treasury",outcome="route_not_allowed"} 1',
      );
    }, 60_000);

    it('pays nothing from a source that does not hold the amount; the signer stays low and it is said why', async () => {
      const { ballast } = topUpSetup({ from: 'beta:USDC', amount: '20000' }); // beta holds 10 000 USDC
      sandboxes.closeAfter(() => ballast.close());
      const report = await ballast.runCycle('once');
      expect(report.attempts).toEqual([]);
      expect(report.plan.decisions.filter((d) => d.kind === 'gas_top_up').map((d) => d.detail)).toEqual([
        'treasury holds 0 ETH on beta, below minGasBalance 0.01 ETH; no top-up: USDC on beta (treasury) has 10000 USDC available (after transfers in flight), too little to pay 20000 USDC',
      ]);
      expect([await treasuryNonce(sandbox, 'beta'), await usdcBalance(sandbox, 'beta'), await ethOnBeta()]).toEqual([
        0,
        10_000n * USDC,
        0n,
      ]);
      expect(await ballast.metrics.registry.metrics()).toContain(
        'ballast_gas_top_ups_total{chain="beta",wallet="treasury",outcome="source_short"} 1',
      );
    }, 60_000);
  });
});
