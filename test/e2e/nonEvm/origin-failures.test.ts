/**
 * Solana origin transactions that fail, through Ballast's real pipeline on the sandbox (litesvm node):
 * - a deposit that would fail (the node's simulation fails it) is simulated unsigned before it is signed and
 *   refused: the attempt ends `origin_failed` with the program logs and no transaction (nothing was signed, so
 *   nothing can land), nothing reaches the chain and the treasury's SOL is unchanged (no fee paid); a refusal
 *   that cost nothing does not count towards pausing the route;
 * - deposits that pass the simulation but fail when they land (fee paid, `reverted`) pause their route after
 *   `policy.pauseRouteAfterOriginFailures` in a row (`route_paused` decision, nothing more quoted or sent), until
 *   `ballast resume` resolves them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { listOriginFailureStreaks, resolveFailure } from '../../../packages/ballast/src/store/failures.ts';
import { getTransfer, listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { tempDir } from '../helpers/sandboxBallast.ts';
import { oneTransferTreasury } from './treasury.ts';

let sandbox: Sandbox;
const tmp = tempDir('ballast-nonevm-origin-failures-');
beforeAll(async () => {
  sandbox = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 500 }); // the treasury config names both
}, 120_000);
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
});

const AMOUNT = 1_000_000_000n; // 1 000 USDC
const lamports = (): bigint => sandbox.solana!.node.balance(sandbox.solana!.treasury.address);

describe('a Solana deposit that would fail', () => {
  it('is simulated and refused before it is signed: origin_failed with the program logs, no fee paid, the route not paused', async () => {
    const t = await oneTransferTreasury(sandbox, tmp.dir, {
      asset: 'USDC',
      from: 'solana',
      to: 'alpha',
      amount: AMOUNT,
      policy: { pauseRouteAfterOriginFailures: 1 },
    });
    const solBefore = lamports();
    const depositsBefore = sandbox.solana!.node.listDeposits().length;
    sandbox.solana!.node.failDeposits('simulated');
    try {
      const report = await t.ballast.runCycle('once');
      const attempt = report.attempts[0]!;
      expect(attempt.outcome).toBe('origin_failed');
      expect(attempt.error).toMatch(
        /^signing \S+ failed: chains\.solana\.rpcUrl: simulateTransaction of \S+ item \d+ \(unsigned\) failed with \{"InstructionError":\[\d+,\{"Custom":1\}\]\}; nothing was signed or sent and no fee was paid/,
      );
      expect(attempt.error).toContain('program logs: ');
      expect(attempt.error).toContain('Program log: Error: insufficient funds');

      const [row] = await listRecentTransfers(t.ballast.db, 1);
      expect(row!.status).toBe('origin_failed');
      expect(row!.txs).toEqual([]); // nothing signed: no transaction exists that could land
      expect(lamports()).toBe(solBefore); // not even the fee
      expect(await t.from.balance()).toBe(t.fromBefore);
      expect(sandbox.solana!.node.listDeposits()).toHaveLength(depositsBefore);

      // A refusal that cost nothing is not an on-chain failure: even with a threshold of 1 the route stays open.
      expect(await listOriginFailureStreaks(t.ballast.db)).toEqual([]);
      const plan = await t.ballast.runCycle('plan');
      expect(plan.plan.decisions.filter((d) => d.kind === 'route_paused')).toEqual([]);
      expect(plan.plan.transfers).toHaveLength(1);
    } finally {
      sandbox.solana!.node.failDeposits('off');
      await t.ballast.close();
    }
  }, 120_000);
});

describe('Solana deposits that fail on chain', () => {
  it('pause their route after policy.pauseRouteAfterOriginFailures in a row, until ballast resume', async () => {
    const t = await oneTransferTreasury(sandbox, tmp.dir, {
      asset: 'USDC',
      from: 'solana',
      to: 'alpha',
      amount: AMOUNT,
      policy: { pauseRouteAfterOriginFailures: 2 },
    });
    sandbox.solana!.node.failDeposits('landing'); // simulations pass; the deposit fails in the slot it lands in
    try {
      const failed: number[] = [];
      for (let i = 0; i < 2; i++) {
        const solBefore = lamports();
        const report = await t.ballast.runCycle('once');
        const attempt = report.attempts[0]!;
        expect(attempt.outcome).toBe('origin_failed');
        expect(attempt.error).toMatch(/reverted/);
        const row = (await getTransfer(t.ballast.db, attempt.transferId!))!;
        expect(row.txs.map((x) => x.status)).toEqual(['reverted']);
        expect(lamports()).toBeLessThan(solBefore); // it landed: the fee was paid
        failed.push(row.id);
      }
      expect(await t.from.balance()).toBe(t.fromBefore); // nothing deposited

      // The third cycle quotes and sends nothing on the paused route.
      const solBefore = lamports();
      const paused = await t.ballast.runCycle('once');
      expect(paused.attempts).toEqual([]);
      const decision = paused.plan.decisions.find((d) => d.kind === 'route_paused');
      expect(decision?.detail).toContain(`transfers ${failed.join(', ')} failed on chain, 2 in a row`);
      expect(decision?.detail).toContain(`ballast resume --transfer ${failed[1]}`);
      expect(lamports()).toBe(solBefore);
      expect((await t.ballast.metrics.routesPaused.get()).values[0]?.value).toBe(1); // ballast_routes_paused

      // The operator resolves them: the streak starts again and the route is planned.
      expect(await resolveFailure(t.ballast.db, failed[1]!, 'depositor account checked', Date.now())).toEqual(failed);
      sandbox.solana!.node.failDeposits('off');
      const resumed = await t.ballast.runCycle('plan');
      expect(resumed.plan.decisions.filter((d) => d.kind === 'route_paused')).toEqual([]);
      expect(resumed.plan.transfers).toHaveLength(1);
    } finally {
      sandbox.solana!.node.failDeposits('off');
      await t.ballast.close();
    }
  }, 180_000);
});
