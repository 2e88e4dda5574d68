/**
 * A cycle's transfers overlap their fills (policy.maxConcurrentTransfers): with a slow solver (every fill 3 s after
 * its deposit is indexed), the second transfer of the cycle is quoted, signed and deposited while the first still
 * awaits its fill, each need is paid once, and `run --once` returns only when both are final. A daemon cycle
 * returns once its transfers are deposited: their fills are tracked in the background while the next cycle runs;
 * when those fills hold every slot, the next cycle records why it leaves its planned transfer to a later one.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { addNeed } from '../../packages/ballast/src/store/needs.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import type { TransferRow } from '../../packages/ballast/src/store/transferRows.ts';
import { ballastOnSandbox, tempDir, treasuryBand } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-concurrent-');
let sandbox: Sandbox;
const SOLVER = { usdc: '1000000', usdt: '1000000', eth: '100' };

beforeAll(async () => {
  sandbox = await startSandbox({
    balances: {
      alpha: { treasury: { usdc: '90000', usdt: '90000', eth: '10' }, solver: SOLVER },
      beta: { treasury: { usdc: '10000', usdt: '10000', eth: '10' }, solver: SOLVER },
    },
    faults: { fillDelayMs: 3_000 },
  });
}, 120_000);
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
}, 60_000);

const band = treasuryBand;

/** When a transfer reached `status`, ms. */
function at(t: TransferRow, status: string): number {
  const e = t.events.find((x) => x.toStatus === status);
  if (!e) throw new Error(`transfer ${t.id} never reached ${status}: ${t.events.map((x) => x.toStatus).join(' → ')}`);
  return e.atMs;
}

it('deposits the second transfer while the first awaits its fill; both fill once', async () => {
  const assets = {
    USDC: [band('alpha', '${SANDBOX_USDC}', '40000', '50000', '60000'), band('beta', '${SANDBOX_USDC}', '20000', '30000', '45000')],
    USDT: [band('alpha', '${SANDBOX_USDT}', '40000', '50000', '60000'), band('beta', '${SANDBOX_USDT}', '20000', '30000', '45000')],
  };
  const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { assets, policy: { transferLimits: {} } });
  try {
    const report = await ballast.runCycle('once');
    expect(report.attempts.map((a) => [a.planned.asset, a.outcome])).toEqual([
      ['USDC', 'success'],
      ['USDT', 'success'],
    ]);
    const [second, first] = await listRecentTransfers(ballast.db, 10); // newest first
    expect([first!.asset, second!.asset]).toEqual(['USDC', 'USDT']);
    // The second was written, sent and deposited before the first was filled: the fills overlapped.
    expect(at(second!, 'deposited')).toBeLessThan(at(first!, 'success'));
    expect(at(first!, 'deposited')).toBeLessThan(at(second!, 'prepared'));
    const again = await ballast.runCycle('once');
    expect(again.plan.transfers).toEqual([]); // both needs met, once
  } finally {
    await ballast.close();
  }
}, 180_000);

it('a daemon cycle ends once its transfers are deposited; the fills are tracked in the background and paid once', async () => {
  // Whether or not the first case ran, alpha is above these bands and beta below them: one transfer per asset.
  const assets = {
    USDC: [band('alpha', '${SANDBOX_USDC}', '20000', '40000', '60000'), band('beta', '${SANDBOX_USDC}', '35000', '40000', '60000')],
    USDT: [band('alpha', '${SANDBOX_USDT}', '20000', '40000', '60000'), band('beta', '${SANDBOX_USDT}', '35000', '40000', '60000')],
  };
  const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { assets, policy: { transferLimits: {} } });
  try {
    const report = await ballast.runCycle('daemon');
    const [second, first] = await listRecentTransfers(ballast.db, 2); // newest first, as the cycle left them
    expect([first!.asset, second!.asset]).toEqual(['USDC', 'USDT']);
    // The cycle ended with the second fill still 3 s away: reported in flight, the transfer deposited.
    expect(second!.status).toBe('deposited');
    expect(report.attempts.map((a) => a.planned.asset)).toEqual(['USDC', 'USDT']);
    expect(report.attempts[1]).toMatchObject({ outcome: 'in_flight', transferId: second!.id, transferStatus: 'deposited' });
    // The next cycle runs at once: it counts both in flight and plans nothing.
    const next = await ballast.runCycle('daemon');
    expect(next.plan.transfers).toEqual([]);
    expect(next.attempts).toEqual([]);
    // The background trackers close both (not the next cycles: those leave a tracked transfer's status alone).
    let rows = await listRecentTransfers(ballast.db, 2);
    for (let i = 0; i < 300 && rows.some((r) => r.status !== 'success'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = await listRecentTransfers(ballast.db, 2);
    }
    expect(rows.map((r) => r.status)).toEqual(['success', 'success']);
    for (const r of rows) {
      const closes = r.events.filter((e) => e.toStatus === 'success');
      expect(closes).toHaveLength(1);
      expect(closes[0]!.detail ?? '').not.toContain('closed by the next cycle');
    }
    const after = await ballast.runCycle('daemon');
    expect(after.plan.transfers).toEqual([]); // both needs met, once
    expect((await listRecentTransfers(ballast.db, 10)).filter((r) => r.cycleId >= report.cycleId)).toHaveLength(2);
  } finally {
    await ballast.close();
  }
}, 180_000);

it('a daemon cycle whose every slot holds an earlier fill records the transfer it leaves to the next cycle', async () => {
  // Whatever the cases before left, alpha is above these bands and beta's USDC below its own: one USDC transfer.
  const assets = {
    USDC: [band('alpha', '${SANDBOX_USDC}', '10000', '20000', '30000'), band('beta', '${SANDBOX_USDC}', '70000', '75000', '90000')],
    USDT: [band('alpha', '${SANDBOX_USDT}', '10000', '20000', '30000'), band('beta', '${SANDBOX_USDT}', '1000', '2000', '90000')],
  };
  const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { assets, policy: { transferLimits: {}, maxConcurrentTransfers: 1 } });
  try {
    const first = await ballast.runCycle('daemon');
    expect(first.attempts.map((a) => [a.planned.asset, a.outcome])).toEqual([['USDC', 'in_flight']]);
    // A payment of 95 000 USDT is announced on beta: USDT is now short there, and the USDC fill holds the one slot.
    const now = Date.now();
    const need = { idempotencyKey: 'payroll-usdt', asset: 'USDT', chain: 'beta', wallet: 'treasury', note: null, createdBy: 'test' };
    await addNeed(ballast.db, { ...need, amount: 95_000_000_000n, dueAtMs: now + 3_600_000 }, now);
    const second = await ballast.runCycle('daemon');
    expect(second.plan.transfers.map((t) => t.asset)).toEqual(['USDT']);
    expect(second.attempts).toEqual([]);
    const rows = await ballast.db.all<{ asset: string; chain: string; detail: string }>(
      "SELECT asset, chain, detail FROM plan_decisions WHERE cycle_id = ? AND kind = 'deferred_concurrency'",
      second.cycleId,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ asset: 'USDT', chain: 'beta' });
    expect(rows[0]!.detail).toMatch(/USDT alpha -> beta left to the next cycle: 1 fills still awaited/);
    // Once the USDC fill closes, the next cycle sends the USDT transfer.
    let usdc = (await listRecentTransfers(ballast.db, 1))[0]!;
    for (let i = 0; i < 300 && usdc.status !== 'success'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      usdc = (await listRecentTransfers(ballast.db, 1))[0]!;
    }
    expect(usdc).toMatchObject({ asset: 'USDC', status: 'success' });
    const third = await ballast.runCycle('daemon');
    expect(third.attempts.map((a) => [a.planned.asset, a.outcome])).toEqual([['USDT', 'in_flight']]);
  } finally {
    await ballast.close();
  }
}, 180_000);
