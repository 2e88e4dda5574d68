import { describe, expect, it } from 'vitest';
import {
  buildQuoteRequest,
  expectationsFor,
  guaranteedOutputFloor,
  minimumAcceptableOutput,
  scaleDecimals,
} from '../../../packages/ballast/src/cycle/expectations.ts';
import type { PlannedTransfer, TargetBand } from '../../../packages/ballast/src/planner/types.ts';
import { QuoteRequestSchema } from '../../../packages/protocol/src/relay/schemas.ts';

const band = (chain: string, chainId: number, decimals: number): TargetBand => ({
  asset: 'USDC',
  chain,
  chainId,
  currency: '0x' + '11'.repeat(20),
  wallet: 'treasury',
  address: '0x' + '22'.repeat(20),
  decimals,
  min: 0n,
  target: 0n,
  max: 0n,
});

const planned = (fromDecimals: number, toDecimals: number, amountIn: bigint): PlannedTransfer => ({
  asset: 'USDC',
  from: band('alpha', 31001, fromDecimals),
  to: band('beta', 31002, toDecimals),
  amountIn,
  reason: 'test',
});

describe('quote expectations', () => {
  it('builds an EXACT_INPUT request with protocol data, our wallets and the slippage', () => {
    const req = buildQuoteRequest(planned(6, 6, 20_000_000_000n), { referrer: 'ballast', slippageBps: 50 });
    expect(QuoteRequestSchema.parse(req)).toEqual(req);
    expect(req).toMatchObject({
      tradeType: 'EXACT_INPUT',
      includeProtocolData: true,
      amount: '20000000000',
      slippageTolerance: '50',
      referrer: 'ballast',
      originChainId: 31001,
      destinationChainId: 31002,
    });
  });

  it('asks for refunds to the origin wallet (refundTo = user), and expects exactly that refund address', () => {
    const p = { ...planned(6, 6, 1_000_000n), from: { ...band('alpha', 31001, 6), address: '0x' + '33'.repeat(20) } };
    const req = buildQuoteRequest(p, {});
    expect(req.refundTo).toBe('0x' + '33'.repeat(20));
    expect(req.refundTo).toBe(req.user);
    expect(req.refundTo).not.toBe(req.recipient);
    expect(expectationsFor(p, 1n).refundTo).toBe(req.refundTo);
  });

  it('requires at least the input less slippage and the total fee cap, in destination decimals', () => {
    // 20000 USDC (6 dp) → 18 dp destination, 50 + 30 bps allowed loss → 19840 units
    expect(minimumAcceptableOutput(planned(6, 18, 20_000_000_000n), { slippageBps: 50, totalFeeBps: 30 })).toBe(19_840n * 10n ** 18n);
    expect(minimumAcceptableOutput(planned(18, 6, 20_000n * 10n ** 18n), { slippageBps: 50, totalFeeBps: 30 })).toBe(19_840_000_000n);
  });

  it('holds a gas top-up to its configured minOut: input and output are different assets', () => {
    const topUp = { ...planned(6, 18, 200_000_000n), gasTopUp: { minOut: 5n * 10n ** 16n } };
    expect(guaranteedOutputFloor(topUp, { slippageBps: 50, totalFeeBps: 30 })).toBe(5n * 10n ** 16n);
    // Without it the floor is the input converted (200 units at 18 dp, less 80 bps): far above any native output.
    expect(guaranteedOutputFloor(planned(6, 18, 200_000_000n), { slippageBps: 50, totalFeeBps: 30 })).toBe(1984n * 10n ** 17n);
  });

  it('never falls back to a token floor: an allowed loss of 100 % or more is refused', () => {
    expect(() => minimumAcceptableOutput(planned(6, 6, 1_000_000n), { slippageBps: 5_000, totalFeeBps: 5_000 })).toThrow(RangeError);
    expect(minimumAcceptableOutput(planned(6, 6, 1_000_000n), { totalFeeBps: 0 })).toBe(1_000_000n);
  });

  it('scales between decimals rounding down', () => {
    expect(scaleDecimals(1_234_567n, 6, 2)).toBe(123n);
    expect(scaleDecimals(5n, 2, 6)).toBe(50_000n);
  });
});
