import { describe, expect, it } from 'vitest';
import { classifyPair, PLATFORM_BPS_BY_PAIR } from '../../../../packages/sandbox/src/quote/pairType.ts';
import {
  convertAmount,
  formatPercent,
  fromUsdMicrosCeil,
  parsePrices,
  SandboxPriceError,
  toUsdMicros,
} from '../../../../packages/sandbox/src/quote/prices.ts';
import { mergeFaults, DEFAULT_SANDBOX_FAULTS, SandboxFaultsPatchSchema } from '../../../../packages/sandbox/src/faults.ts';

describe('classifyPair (docs/relay-contract.md "Limits" platform fee table)', () => {
  it.each([
    ['USDC', 'USDC', 'bridge', 0],
    ['ETH', 'WETH', 'bridge', 0],
    ['USDC', 'USDT', 'stablecoin', 1],
    ['ETH', 'WBTC', 'major', 6],
    ['ETH', 'USDC', 'major', 6],
    ['USDC', 'PEPE', 'minor', 15],
    ['ARB', 'OP', 'minor', 15],
  ] as const)('%s → %s is %s (%i bps)', (a, b, type, bps) => {
    expect(classifyPair(a, b)).toBe(type);
    expect(PLATFORM_BPS_BY_PAIR[classifyPair(a, b)]).toBe(bps);
  });
});

describe('USD conversions (micro-USD bigint)', () => {
  const eth = parsePrices({ ETH: '3000.5' }).ETH!;
  it('values, converts and rounds in the documented direction', () => {
    expect(eth).toBe(3_000_500_000n);
    expect(toUsdMicros(10n ** 18n, 18, eth)).toBe(3_000_500_000n);
    expect(toUsdMicros(1n, 6, 1_000_000n)).toBe(1n);
    expect(fromUsdMicrosCeil(1n, 18, eth)).toBe(333_277_788n); // ceil(1e18 / 3000500000) = ceil(333277787.03…)
    expect(convertAmount(10n ** 18n, { decimals: 18, priceMicros: eth }, { decimals: 6, priceMicros: 1_000_000n })).toBe(3_000_500_000n);
    expect(convertAmount(123n, { decimals: 6, priceMicros: 1n }, { decimals: 6, priceMicros: 1n })).toBe(123n);
  });
  it('formats percents with two decimals toward zero', () => {
    expect(formatPercent(-215_000n, 1_000_000_000n)).toBe('-0.02');
    expect(formatPercent(50n, 10_000n)).toBe('0.50');
    expect(formatPercent(-1n, 1_000_000n)).toBe('0.00');
  });
  it('refuses non-positive or malformed prices', () => {
    expect(() => parsePrices({ ETH: '0' })).toThrow(SandboxPriceError);
    expect(() => parsePrices({ ETH: 'abc' })).toThrow(/price of ETH/);
  });
});

describe('faults', () => {
  it('merges a validated patch and keeps the other knobs', () => {
    const patch = SandboxFaultsPatchSchema.parse({ neverFill: true, extraFees: { platformBps: 5 } });
    const f = mergeFaults(DEFAULT_SANDBOX_FAULTS, patch);
    expect(f.neverFill).toBe(true);
    expect(f.extraFees).toEqual({ platformBps: 5 });
    expect(f.fillDelayMs).toBe(DEFAULT_SANDBOX_FAULTS.fillDelayMs);
    expect(DEFAULT_SANDBOX_FAULTS.neverFill).toBe(false);
  });
  it('refuses unknown knobs and tamper kinds', () => {
    expect(SandboxFaultsPatchSchema.safeParse({ neverfill: true }).success).toBe(false);
    expect(SandboxFaultsPatchSchema.safeParse({ tamper: 'nope' }).success).toBe(false);
  });
});
