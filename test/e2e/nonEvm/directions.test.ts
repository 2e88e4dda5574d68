/**
 * Solana and Bitcoin treasuries end to end: one `run --once` cycle of the real pipeline (balances through each
 * chain's adapter, plan, quote, fee policy, verification with origin facts, write-ahead, sign, broadcast, track)
 * on the sandbox, in every direction the issue names. Each case asserts the transfer ended in `success`, the
 * origin balance fell by the amount (plus fees on Solana/Bitcoin origins), the destination rose by at least
 * the guaranteed output, and the rows were written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { tempDir } from '../helpers/sandboxBallast.ts';
import { oneTransferTreasury, type Place } from './treasury.ts';

let sandbox: Sandbox;
const tmp = tempDir('ballast-nonevm-');
beforeAll(async () => {
  sandbox = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 500 });
});
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
});

const RESERVE_SATS = 100_000n; // NON_EVM_CONFIG's minerFeeReserveSats

const CASES: { name: string; asset: 'USDC' | 'BTC'; from: Place; to: Place; amount: bigint }[] = [
  { name: 'EVM → Solana (USDC)', asset: 'USDC', from: 'alpha', to: 'solana', amount: 1_000_000_000n },
  { name: 'Solana → EVM (USDC)', asset: 'USDC', from: 'solana', to: 'alpha', amount: 1_000_000_000n },
  { name: 'EVM → Bitcoin (WBTC → BTC)', asset: 'BTC', from: 'alpha', to: 'bitcoin', amount: 10_000_000n },
  { name: 'Bitcoin → EVM (BTC → WBTC)', asset: 'BTC', from: 'bitcoin', to: 'alpha', amount: 10_000_000n },
];

describe('Ballast on Solana and Bitcoin', () => {
  it.each(CASES)('$name: one cycle moves the surplus and ends in success', async (c) => {
    const reserve = c.from === 'bitcoin' ? RESERVE_SATS : 0n;
    const t = await oneTransferTreasury(sandbox, tmp.dir, { asset: c.asset, from: c.from, to: c.to, amount: c.amount, reserve });
    try {
      const report = await t.ballast.runCycle('once');
      expect(report.plan.transfers).toHaveLength(1);
      const attempt = report.attempts[0]!;
      expect(
        attempt.verdict?.rules.filter((r) => !r.ok),
        attempt.error,
      ).toEqual([]);
      expect(attempt.outcome, attempt.error).toBe('success');
      expect(report.outcome).toBe('ok');
      const [row] = await listRecentTransfers(t.ballast.db, 5);
      expect(row?.status).toBe('success');
      expect(row?.amountIn).toBe(c.amount);
      expect(row?.txs.length).toBeGreaterThan(0);
      const fromAfter = await t.from.balance();
      const toAfter = await t.to.balance();
      // The origin paid the amount (and, on Solana or Bitcoin, its own network fee); the destination got at
      // least the guaranteed output.
      expect(t.fromBefore - fromAfter >= c.amount).toBe(true);
      expect(t.fromBefore - fromAfter <= c.amount + (c.from === 'alpha' ? 0n : 1_000_000n)).toBe(true);
      expect(toAfter - t.toBefore >= row!.minOut).toBe(true);
    } finally {
      await t.ballast.close();
    }
  });
});
