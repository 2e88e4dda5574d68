/**
 * A cycle's transfers overlap their fills (policy.maxConcurrentTransfers): with a slow solver (every fill 3 s after
 * its deposit is indexed), the second transfer of the cycle is quoted, signed and deposited while the first still
 * awaits its fill, each need is paid once, and `run --once` returns only when both are final.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import type { TransferRow } from '../../packages/ballast/src/store/transferRows.ts';
import { ballastOnSandbox, tempDir } from './helpers/sandboxBallast.ts';

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

const band = (chain: string, currency: string, min: string, target: string, max: string) => ({
  chain,
  currency,
  wallet: 'treasury',
  min,
  target,
  max,
});

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
