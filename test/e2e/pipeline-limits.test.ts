/**
 * Spending limits end to end on real anvil chains: each limit, when hit, records its reason in `limit_hits`,
 * meters it on `ballast_spending_limit_hits_total` and signs nothing; the kill-switch file halts execution
 * while it exists and removing it resumes on the next cycle, without a restart.
 *
 * The plan has two transfers (alpha's USDC surplus goes to the treasury and to a second wallet, `ops`, on
 * beta), so the rolling history is exercised inside one cycle: the first signed transfer counts against the
 * second.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { listLimitHits } from '../../packages/ballast/src/store/limitHits.ts';
import type { Ballast } from '../../packages/ballast/src/app/createBallast.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

/**
 * A fresh sandbox per test where a transfer succeeds (it moves the balances the next plan starts from); the refusals,
 * which sign nothing (each asserts it), share one.
 */
const sandboxes = sandboxPerTest();
let sandbox: Sandbox;
const tmp = tempDir('ballast-limits-');
afterAll(() => tmp.cleanup());
const freshSandboxEach = () =>
  beforeEach(async () => {
    sandbox = await sandboxes.start({});
  });

function twoTransferSetup(limits: Record<string, unknown>) {
  return ballastOnSandbox(sandbox, tmp.dir, {
    wallets: { ops: { vm: 'evm', privateKey: generatePrivateKey() } }, // a fresh wallet: no USDC, only receives
    assets: {
      USDC: [
        { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
        { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '20000', target: '30000', max: '45000' },
        { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'ops', min: '100', target: '1000', max: '5000' },
      ],
    },
    policy: { limits },
  });
}

async function treasurySnapshot() {
  return {
    nonceAlpha: await treasuryNonce(sandbox, 'alpha'),
    alpha: await usdcBalance(sandbox, 'alpha'),
    beta: await usdcBalance(sandbox, 'beta'),
  };
}

async function hitCount(ballast: Ballast, reason: string): Promise<number> {
  const metric = await ballast.metrics.registry.getSingleMetric('ballast_spending_limit_hits_total')!.get();
  return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

async function recipients(ballast: Ballast): Promise<string[]> {
  return (await listRecentTransfers(ballast.db, 10)).map((t) => t.recipient.toLowerCase());
}

describe('a limit that refuses every planned transfer', () => {
  let shared: Sandbox;
  beforeAll(async () => {
    shared = await startSandbox({});
  });
  beforeEach(() => {
    sandbox = shared;
  });
  afterAll(() => shared.stop());
  const CASES: { reason: string; limits: Record<string, unknown>; quoted: boolean }[] = [
    { reason: 'kill_switch', limits: { killSwitch: true }, quoted: false },
    { reason: 'max_transfer_usd', limits: { maxTransferUsd: '1' }, quoted: true },
    { reason: 'daily_notional', limits: { dailyNotional: { USDC: '99' } }, quoted: true },
    { reason: 'daily_fees_usd', limits: { dailyFeesUsd: '0' }, quoted: true },
    { reason: 'transfers_per_hour', limits: { maxTransfersPerHour: 0 }, quoted: true },
  ];
  it.each(CASES)('$reason: recorded, metered, nothing signed', async ({ reason, limits, quoted }) => {
    const { ballast } = twoTransferSetup(limits);
    const before = await treasurySnapshot();
    try {
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('refused');
      expect(report.attempts).toHaveLength(2);
      for (const a of report.attempts) {
        expect(a.outcome).toBe('skipped_limit');
        expect(a.quoteId !== undefined).toBe(quoted);
      }
      const hits = await listLimitHits(ballast.db, 10);
      expect(hits.map((h) => h.reason)).toEqual([reason, reason]);
      expect(hits[0]!.detail).toMatch(/^policy\.limits\./);
      expect(await hitCount(ballast, reason)).toBe(2);
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(0);
      expect(await treasurySnapshot()).toEqual(before);
    } finally {
      await ballast.close();
    }
  });
});

describe('limits that let one transfer through', () => {
  freshSandboxEach();
  it('recipient allow-list: only the listed wallet receives', async () => {
    const { ballast } = twoTransferSetup({ allowedRecipients: ['treasury'] });
    try {
      const report = await ballast.runCycle('once');
      const outcomes = report.attempts.map((a) => [a.planned.to.wallet, a.outcome]);
      expect(outcomes).toContainEqual(['ops', 'skipped_limit']);
      expect(outcomes).toContainEqual(['treasury', 'success']);
      const hit = await listLimitHits(ballast.db, 10);
      expect(hit.map((h) => h.reason)).toEqual(['recipient_not_allowed']);
      expect(await recipients(ballast)).toEqual([sandbox.accounts.treasury.address.toLowerCase()]);
      expect(await hitCount(ballast, 'recipient_not_allowed')).toBe(1);
    } finally {
      await ballast.close();
    }
  });

  it('transfers per hour: the transfer signed first counts against the next one', async () => {
    const { ballast, configFile, store } = twoTransferSetup({ maxTransfersPerHour: 1 });
    let signed;
    try {
      const report = await ballast.runCycle('once');
      expect(report.attempts.map((a) => a.outcome)).toEqual(['success', 'skipped_limit']);
      const [hit] = await listLimitHits(ballast.db, 10);
      expect(hit!.reason).toBe('transfers_per_hour');
      expect(hit!.detail).toBe('policy.limits.maxTransfersPerHour 1: 1 used in 1 h + 1 for this transfer');
      signed = await listRecentTransfers(ballast.db, 10);
      expect(signed).toHaveLength(1);
    } finally {
      await ballast.close();
    }
    // `ballast limits` reads the same store: one transfer used, the refusal listed.
    const cli = await runCliInProcess(['limits', '--config', configFile, '--json'], { env: sandboxEnv(sandbox, store) }); // main(), in process
    expect(cli.code).toBe(0);
    const shown = JSON.parse(cli.stdout);
    expect(shown.killSwitch.engaged).toBe(false);
    expect(shown.used.transfersLastHour).toBe(1);
    expect(shown.used.notional24hBaseUnits).toEqual({ USDC: { alpha: signed[0]!.amountIn.toString() } });
    expect(shown.recentHits.map((h: { reason: string }) => h.reason)).toEqual(['transfers_per_hour']);
  });

  it('daily notional: the cap is whole units summed over the day, exact at the boundary', async () => {
    const probe = twoTransferSetup({});
    const planned = (await probe.ballast.runCycle('plan')).plan.transfers.map((t) => t.amountIn);
    await probe.ballast.close();
    expect(planned).toHaveLength(2);
    // USDC has 6 decimals here: a cap of exactly the first transfer lets it through and stops the second.
    const first = planned[0]!;
    const cap = `${first / 1_000_000n}.${(first % 1_000_000n).toString().padStart(6, '0')}`;
    const { ballast } = twoTransferSetup({ dailyNotional: { USDC: cap } });
    try {
      const report = await ballast.runCycle('once');
      expect(report.attempts.map((a) => a.outcome)).toEqual(['success', 'skipped_limit']);
      expect((await listLimitHits(ballast.db, 10))[0]!.detail).toMatch(
        new RegExp(`^policy\\.limits\\.dailyNotional\\.USDC ${cap.replace(/\.?0+$/, '').replace('.', '\\.')} USDC: `),
      );
    } finally {
      await ballast.close();
    }
  });
});

describe('kill-switch file', () => {
  freshSandboxEach();
  it('halts while present; removing it resumes on the next cycle without a restart', async () => {
    const file = path.join(tmp.dir, 'HALT');
    writeFileSync(file, 'maintenance\n');
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { policy: { limits: { killSwitchFile: file } } });
    const before = await treasurySnapshot();
    try {
      const halted = await ballast.runCycle('once');
      expect(halted.attempts.map((a) => a.outcome)).toEqual(['skipped_limit']);
      expect((await listLimitHits(ballast.db, 10))[0]!.detail).toContain(file);
      expect(await hitCount(ballast, 'kill_switch_file')).toBe(1);
      expect(await ballast.metrics.registry.getSingleMetricAsString('ballast_kill_switch_engaged')).toMatch(
        /ballast_kill_switch_engaged 1$/m,
      );
      expect(await treasurySnapshot()).toEqual(before);

      rmSync(file);
      const resumed = await ballast.runCycle('once');
      expect(resumed.attempts.map((a) => a.outcome)).toEqual(['success']);
      expect(await ballast.metrics.registry.getSingleMetricAsString('ballast_kill_switch_engaged')).toMatch(
        /ballast_kill_switch_engaged 0$/m,
      );
      expect((await treasurySnapshot()).alpha).toBeLessThan(before.alpha);
    } finally {
      await ballast.close();
    }
  });
});
