/**
 * Needs end to end on the sandbox (docs/needs.md): a payment known to be coming is recorded with `ballast needs add`
 * (twice under one key: one need), the next cycle funds it before it is due from the holding with a surplus, no
 * later cycle funds it again, and once its due time and grace have passed (the payment system paid it) the need
 * closes and is no longer held.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { sandboxEnv } from '../../packages/ballast/src/cli/sandboxEnv.ts';
import { listNeeds } from '../../packages/ballast/src/store/needs.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { ballastOnSandbox, tempDir, usdcBalance } from './helpers/sandboxBallast.ts';
import { setUsdc, USDC } from './faults/helpers/treasuryNeed.ts';

const tmp = tempDir('ballast-needs-');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    balances: {
      alpha: { treasury: { usdc: '90000', eth: '10' }, solver: { usdc: '1000000', eth: '100' } }, // 30000 above target
      beta: { treasury: { usdc: '30000', eth: '10' }, solver: { usdc: '1000000', eth: '100' } }, // at target, in band
    },
  });
}, 120_000);
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
}, 60_000);

it('funds a need due in an hour before it is due, once; closes it after its due time and grace', async () => {
  let nowMs = Date.now();
  const { ballast, configFile, store } = ballastOnSandbox(sandbox, tmp.dir, {}, {}, { now: () => nowMs });
  try {
    expect((await ballast.runCycle('once')).plan.transfers).toEqual([]); // in band, nothing known to be coming

    const due = new Date(nowMs + 3_600_000).toISOString();
    const add = ['needs', 'add', '--config', configFile, '--asset', 'USDC', '--chain', 'beta', '--amount', '25000', '--due', due];
    const env = sandboxEnv(sandbox, store);
    const first = await runCli([...add, '--key', 'payroll-1', '--note', 'payroll'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/#1 open 25000 USDC beta:treasury due/);
    const again = await runCliInProcess([...add, '--key', 'payroll-1', '--note', 'payroll'], { env }); // main(), in process
    expect(again.code, again.stderr).toBe(0);
    expect((await listNeeds(ballast.db, { all: true })).map((n) => [n.id, n.status, n.amount])).toEqual([[1, 'open', 25_000n * USDC]]);

    const funded = await ballast.runCycle('once');
    expect(funded.plan.transfers.map((t) => [t.from.chain, t.to.chain, t.amountIn, t.funds])).toEqual([
      ['alpha', 'beta', 25_000n * USDC, [1]], // beta judged at 30000 − 25000: refilled to target 30000 plus the need
    ]);
    expect(
      funded.attempts.map((a) => a.outcome),
      funded.attempts[0]?.error,
    ).toEqual(['success']);
    expect(await usdcBalance(sandbox, 'beta')).toBeGreaterThanOrEqual(54_000n * USDC); // the need, less Relay's fees

    nowMs += 60_000;
    expect((await ballast.runCycle('once')).plan.transfers).toEqual([]); // held and funded: nothing more

    await setUsdc(sandbox, 'beta', (await usdcBalance(sandbox, 'beta')) - 25_000n * USDC); // the payment goes out
    nowMs += 3_600_000 + 900_000; // past due + policy.needsGraceSec (default 900 s)
    const after = await ballast.runCycle('once');
    expect(after.plan.decisions.some((d) => d.kind === 'need_held')).toBe(false);
    expect((await listNeeds(ballast.db, { all: true })).map((n) => [n.status, n.closedReason])).toEqual([['closed', 'due time passed']]);
    expect((await listRecentTransfers(ballast.db, 10)).filter((t) => t.status === 'success')).toHaveLength(1);
  } finally {
    await ballast.close();
  }
}, 180_000);
