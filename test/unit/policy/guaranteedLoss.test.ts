/**
 * The fee policy bounds what the signed order guarantees at worst, not only what `details` claim: a quote whose
 * details report tiny fees but whose order guarantees little is skipped.
 */
import { describe, expect, it } from 'vitest';
import { evaluateFees } from '../../../packages/ballast/src/policy/feePolicy.ts';
import { checkGuaranteedLoss, guaranteedLossFraction, type OrderGuarantee } from '../../../packages/ballast/src/policy/guaranteedLoss.ts';
import type { QuoteDetails } from '../../../packages/protocol/src/relay/schemas.ts';

const usdc = (chainId: number) => ({ chainId, address: '0x0000000000000000000000000000000000000001', symbol: 'USDC', decimals: 6 });

/** Details of a 1000 USDC transfer claiming a 0.02 USD total cost. */
function honestLookingDetails(): QuoteDetails {
  return {
    currencyIn: { currency: usdc(1), amount: '1000000000', amountUsd: '1000.0' },
    currencyOut: { currency: usdc(2), amount: '999980000', amountUsd: '999.98' },
    totalImpact: { usd: '-0.02', percent: '0' },
    expandedPriceImpact: { execution: { usd: '-0.02' }, swap: { usd: '0' }, relay: { usd: '0' }, app: { usd: '0' } },
  };
}

const caps = { totalBps: 30, totalUsd: '5' };
const guarantee = (minOut: bigint, over: Partial<OrderGuarantee> = {}): OrderGuarantee => ({
  amountIn: 1_000_000_000n,
  decimalsIn: 6,
  minOut,
  decimalsOut: 6,
  slippageBps: 50,
  ...over,
});

describe('evaluateFees with the order guarantee', () => {
  it('accepts an order whose worst case is within totalBps + slippage and totalUsd + slippage', () => {
    // 1000 − 992 = 8 USDC = 80 bps = totalBps 30 + slippage 50; 8 USD ≤ 5 + 5 USD.
    const decision = evaluateFees(honestLookingDetails(), caps, guarantee(992_000_000n));
    expect(decision.accepted).toBe(true);
  });

  it('skips an order that guarantees far less than its details admit (understated fees)', () => {
    const decision = evaluateFees(honestLookingDetails(), caps, guarantee(900_000_000n));
    expect(decision.accepted).toBe(false);
    if (decision.accepted) return;
    expect(decision.reason).toBe('guaranteed_loss_bps');
    expect(decision.exceeded).toEqual(['guaranteed_loss_bps', 'guaranteed_loss_usd']);
    expect(decision.detail).toContain('worst-case loss of 1000 bps, above totalBps 30 + slippage 50 bps');
    expect(decision.detail).toContain('worst-case loss is 100 USD');
  });

  it('one base unit past the bps bound is enough to skip', () => {
    expect(evaluateFees(honestLookingDetails(), { totalBps: 30 }, guarantee(992_000_000n)).accepted).toBe(true);
    const over = evaluateFees(honestLookingDetails(), { totalBps: 30 }, guarantee(991_999_999n));
    expect(over.accepted ? null : over.reason).toBe('guaranteed_loss_bps');
  });

  it('the USD bound applies on its own when the bps bound is loose', () => {
    const decision = evaluateFees(honestLookingDetails(), { totalBps: 500, totalUsd: '1' }, guarantee(990_000_000n, { slippageBps: 0 }));
    expect(decision.accepted ? null : decision.exceeded).toEqual(['guaranteed_loss_usd']);
  });

  it('compares across decimals exactly (6-decimal input, 18-decimal output)', () => {
    const g = guarantee(992_000_000_000_000_000_000n, { decimalsOut: 18 });
    expect(checkGuaranteedLoss(g, { totalBps: 30n }, null)).toEqual([]);
    const short = { ...g, minOut: g.minOut - 1n };
    expect(checkGuaranteedLoss(short, { totalBps: 30n }, null).map((b) => b.reason)).toEqual(['guaranteed_loss_bps']);
    expect(guaranteedLossFraction(short).num > 0n).toBe(true);
  });

  it('an order guaranteeing more than it takes has no loss', () => {
    expect(checkGuaranteedLoss(guarantee(1_000_000_001n), { totalBps: 0n, totalUsdMicros: 0n }, 1_000_000_000n)).toEqual([]);
  });
});
