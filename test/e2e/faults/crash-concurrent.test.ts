/**
 * Crash recovery with two transfers in one cycle whose fills overlap (policy.maxConcurrentTransfers, default 4): a
 * USDC need and a USDT need, alpha → beta, each fill 3 s after its deposit. `ballast run --once` (the real CLI in a
 * child process) is SIGKILLed at a boundary of the second transfer while the first still awaits its fill, then run
 * again as cron would until nothing is in flight and both assets are in band (child processes in the first case, the
 * CLI's `main()` in the test's process in the others: `runOnceInProcess`). Judged on the chains and the store:
 * exactly one deposit per need, each tracked by a transfer that ended `success`, nothing lost.
 */
import { erc20Abi, type Address } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../../packages/ballast/src/cli/sandboxEnv.ts';
import type { Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { listInFlightTransfers, listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, treasuryBand } from '../helpers/sandboxBallast.ts';
import { recoverUntil, treasuryDeposits } from './helpers/caseAudit.ts';
import { runOnce, runOnceInProcess, stopChildren, type ChildExit } from './helpers/cliChild.ts';
import { chainOf } from './helpers/treasuryNeed.ts';

const sandboxes = sandboxPerTest();
const tmp = tempDir('ballast-crash-concurrent-');
afterAll(() => {
  stopChildren();
  tmp.cleanup();
});

const UNIT = 1_000_000n; // both tokens have 6 decimals
const SOLVER = { usdc: '1000000', usdt: '1000000', eth: '100' };
const band = treasuryBand;
/** The demo's bands for both assets: alpha 70 000 is 20 000 above its target, beta 10 000 is 20 000 below its own. */
const ASSETS = {
  USDC: [band('alpha', '${SANDBOX_USDC}', '40000', '50000', '60000'), band('beta', '${SANDBOX_USDC}', '20000', '30000', '45000')],
  USDT: [band('alpha', '${SANDBOX_USDT}', '40000', '50000', '60000'), band('beta', '${SANDBOX_USDT}', '20000', '30000', '45000')],
};

async function balance(s: Sandbox, slug: string, token: 'usdc' | 'usdt'): Promise<bigint> {
  const chain = chainOf(s, slug);
  return chain.publicClient.readContract({
    address: chain[token] as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [s.accounts.treasury.address],
  });
}

async function inBand(s: Sandbox): Promise<boolean> {
  for (const token of ['usdc', 'usdt'] as const) {
    const [a, b] = [await balance(s, 'alpha', token), await balance(s, 'beta', token)];
    if (a < 40_000n * UNIT || a > 60_000n * UNIT || b < 20_000n * UNIT || b > 45_000n * UNIT) return false;
  }
  return true;
}

describe('SIGKILL while two transfers of a cycle overlap', () => {
  for (const [index, target] of ['tx:written#3', 'tx:sent#4', 'transfer:deposited#2'].entries()) {
    it(`SIGKILL at ${target} (the second transfer) while the first awaits its fill: one deposit per need, both filled`, async () => {
      const s = await sandboxes.start({
        balances: {
          alpha: { treasury: { usdc: '70000', usdt: '70000', eth: '10' }, solver: SOLVER },
          beta: { treasury: { usdc: '10000', usdt: '10000', eth: '10' }, solver: SOLVER },
        },
        faults: { fillDelayMs: 3_000 },
      });
      const startBlock = await chainOf(s, 'alpha').publicClient.getBlockNumber({ cacheTime: 0 });
      const { ballast, configFile, store } = ballastOnSandbox(s, tmp.dir, { assets: ASSETS, policy: { transferLimits: {} } });
      sandboxes.closeAfter(() => ballast.close());
      const env = sandboxEnv(s, store);

      const killed = await runOnce(configFile, { ...env, BALLAST_CRASH_AT: target });
      expect(killed.signal, killed.stderr.slice(-1500)).toBe('SIGKILL');
      // At the kill the first transfer was deposited and still unfilled: the second ran beside its fill.
      const atKill = await listRecentTransfers(ballast.db, 2); // newest first
      expect(atKill.map((t) => t.asset)).toEqual(['USDT', 'USDC']);
      expect(atKill[1]!.status).toBe('deposited');

      const recoveries: ChildExit[] = [];
      await recoverUntil({
        faultAtMs: killed.exitedAtMs,
        step: async () => void recoveries.push(await (index === 0 ? runOnce : runOnceInProcess)(configFile, env)),
        done: async () => (await listInFlightTransfers(ballast.db)).length === 0 && (await inBand(s)),
      });
      for (const r of recoveries) expect(r.code, r.stderr.slice(-1500)).toBe(0);

      // Exactly one deposit per need, each tracked by a transfer that ended success; nothing in flight.
      const deposits = await treasuryDeposits(s, startBlock);
      const transfers = await listRecentTransfers(ballast.db, 20);
      expect(deposits).toHaveLength(2);
      for (const d of deposits) {
        const row = transfers.find((t) => t.orderId?.toLowerCase() === d.orderId);
        expect(row?.status, `deposit ${d.txHash}`).toBe('success');
        expect(d.amount).toBe(20_000n * UNIT);
      }
      expect(
        transfers
          .filter((t) => t.status === 'success')
          .map((t) => t.asset)
          .sort(),
      ).toEqual(['USDC', 'USDT']);
      // The deposits left alpha once each; beta received at least each fill's guaranteed minimum.
      for (const [token, asset] of [
        ['usdc', 'USDC'],
        ['usdt', 'USDT'],
      ] as const) {
        expect(await balance(s, 'alpha', token)).toBe(50_000n * UNIT);
        const row = transfers.find((t) => t.status === 'success' && t.asset === asset)!;
        expect(await balance(s, 'beta', token)).toBeGreaterThanOrEqual(10_000n * UNIT + row.minOut);
      }
    }, 180_000);
  }
});
