import { beforeEach, describe, expect, it } from 'vitest';
import { normaliseNotional, spendingVerdict } from '../../../packages/ballast/src/cycle/spendingGate.ts';
import type { CycleContext, WalletRuntime } from '../../../packages/ballast/src/cycle/context.ts';
import type { PlannedTransfer } from '../../../packages/ballast/src/planner/types.ts';
import { createTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { startCycle } from '../../../packages/ballast/src/store/cycles.ts';
import { newTransfer } from '../store/helpers.ts';
import { useTestStore } from './pipelineSeeds.ts';

const NOW_MS = 1_700_000_000_000;
const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

const store = useTestStore();

describe('normaliseNotional', () => {
  it('scales base units to whole units × 10^18, exactly up to 18 decimals', () => {
    expect(normaliseNotional(1_500_000n, 6)).toBe(1_500_000_000_000_000_000n);
    expect(normaliseNotional(1_500_000_000_000_000_000n, 18)).toBe(1_500_000_000_000_000_000n);
    expect(normaliseNotional(0n, 0)).toBe(0n);
  });
  it('rounds up above 18 decimals, so a cap is never under-counted', () => {
    expect(normaliseNotional(1n, 24)).toBe(1n);
    expect(normaliseNotional(1_000_000n, 24)).toBe(1n);
    expect(normaliseNotional(1_000_001n, 24)).toBe(2n);
  });
});

function ctxWith(limits: Record<string, unknown>): Pick<CycleContext, 'config' | 'db' | 'now' | 'wallets'> {
  const wallets = new Map<string, WalletRuntime>([['treasury', { name: 'treasury', vm: 'evm', address: TREASURY }]]);
  return {
    config: { policy: { limits }, configDir: store.dir } as unknown as CycleContext['config'],
    db: store.db,
    now: () => NOW_MS,
    wallets,
  };
}

function planned(amountIn: bigint, decimals: number, chain = 'base'): PlannedTransfer {
  const end = { asset: 'USDC', chainId: 1, currency: '0x', wallet: 'treasury', address: TREASURY, decimals, min: 0n, target: 0n, max: 0n };
  return { asset: 'USDC', from: { ...end, chain }, to: { ...end, chain: 'arbitrum' }, amountIn, reason: '' } as PlannedTransfer;
}

describe('spendingVerdict: the daily notional adds chains of different decimals in whole units', () => {
  beforeEach(async () => {
    const cycleId = await startCycle(store.db, { mode: 'once', startedAtMs: 1_000 });
    // 100 USDC sent from base (6 decimals) and 50 from bsc (18 decimals) in the last 24 h.
    await createTransfer(store.db, await newTransfer(store.db, { cycleId, amountIn: 100_000_000n, nowMs: NOW_MS - 1_000 }));
    await createTransfer(
      store.db,
      await newTransfer(store.db, {
        cycleId,
        originChain: 'bsc',
        amountIn: 50n * 10n ** 18n,
        requestId: `0x${'01'.repeat(32)}`,
        orderId: `0x${'02'.repeat(32)}`,
        nowMs: NOW_MS - 1_000,
      }),
    );
  });
  const decimalsOf = (_asset: string, chain: string) => ({ base: 6, bsc: 18 })[chain];

  it('passes exactly at the cap: 100 + 50 + 25 = 175', async () => {
    const verdict = await spendingVerdict(ctxWith({ dailyNotional: { USDC: '175' } }), {
      planned: planned(25_000_000n, 6),
      amountUsd: '25',
      feesUsd: '0.1',
      decimalsOf,
    });
    expect(verdict).toEqual({ ok: true });
  });

  it('refuses one base unit above, with whole units in the detail', async () => {
    const verdict = await spendingVerdict(ctxWith({ dailyNotional: { USDC: '175' } }), {
      planned: planned(25_000_001n, 6),
      amountUsd: '25',
      feesUsd: '0.1',
      decimalsOf,
    });
    expect(verdict).toEqual({
      ok: false,
      reason: 'daily_notional',
      detail: 'policy.limits.dailyNotional.USDC 175 USDC: 150 used in 24 h + 25.000001 for this transfer',
    });
  });

  it('fails closed when a chain in the window has unknown decimals', async () => {
    const verdict = await spendingVerdict(ctxWith({ dailyNotional: { USDC: '1000' } }), {
      planned: planned(1n, 6),
      amountUsd: '1',
      feesUsd: '0',
      decimalsOf: () => undefined,
    });
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.detail).toContain('spent from chain bsc in 24 h and its decimals are unknown');
  });

  it('only configured wallets receive, even without policy.limits.allowedRecipients', async () => {
    const p = planned(1n, 6);
    const stranger = { ...p, to: { ...p.to, address: '0x000000000000000000000000000000000000dEaD' } };
    const verdict = await spendingVerdict(ctxWith({}), { planned: stranger, amountUsd: '1', feesUsd: '0', decimalsOf });
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toBe('recipient_not_allowed');
  });
});
