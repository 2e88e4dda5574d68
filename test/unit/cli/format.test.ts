/**
 * Rounding for people (src/cli/format.ts): USD to the cent, a non-zero amount under half a cent in two significant
 * digits (never "0.00"); a network cost in four significant digits with its symbol, never dropping an integer
 * digit; the fee lines of src/cli/renderFees.ts label quoted and paid side by side; an allowance in whole units.
 */
import { describe, expect, it } from 'vitest';
import { formatNative, formatSignificant, formatUsd, formatUsdText, roundUsd } from '../../../packages/ballast/src/cli/format.ts';
import { feeLines } from '../../../packages/ballast/src/cli/renderFees.ts';
import { allowanceText } from '../../../packages/ballast/src/cli/commands/allowances.ts';

describe('formatUsd', () => {
  it('rounds to the cent, half away from zero', () => {
    expect(formatUsdText('1.10235')).toBe('1.10 USD');
    expect(formatUsdText('0.621791')).toBe('0.62 USD');
    expect(formatUsdText('0.125')).toBe('0.13 USD');
    expect(formatUsdText('-0.125')).toBe('-0.13 USD');
    expect(formatUsdText('25')).toBe('25.00 USD');
    expect(formatUsd(0n)).toBe('0.00 USD');
  });

  it('keeps two significant digits under half a cent, so a real cost never reads as zero', () => {
    expect(formatUsd(4_213n)).toBe('0.0042 USD');
    expect(formatUsd(1n)).toBe('0.000001 USD');
    expect(roundUsd(-4_999n)).toBe('-0.005');
    expect(roundUsd(5_000n)).toBe('0.01');
  });

  it('says unknown for null or text that is not a decimal', () => {
    expect(formatUsd(null)).toBe('—');
    expect(formatUsdText(null)).toBe('—');
    expect(formatUsdText('n/a')).toBe('—');
  });
});

describe('formatSignificant and formatNative', () => {
  it('keeps four significant digits and the symbol', () => {
    expect(formatNative(121_102_448_624_602n, 18, 'ETH')).toBe('0.0001211 ETH');
    expect(formatSignificant(1_234_567n, 5)).toBe('12.35');
    expect(formatSignificant(99_996n, 8)).toBe('0.001');
    expect(formatSignificant(10n ** 15n, 18)).toBe('0.001');
  });

  it('never drops an integer digit, and says base units when the decimals are unknown', () => {
    expect(formatSignificant(1_234_567n, 1)).toBe('123457');
    expect(formatSignificant(0n, 18)).toBe('0');
    expect(formatNative(5n, null, 'SOL')).toBe('5 base units of SOL (decimals unknown)');
  });
});

describe('feeLines', () => {
  const ledger = {
    fees: { execution: 500_000n, swap: 100_000n, platform: 0n, app: 0n },
    feesSource: 'requests_v3_actual' as const,
    gasPaid: 121_102_448_624_602n,
    gasDecimals: 18,
    gasUsdMicros: 21_791n,
    totalFeesUsdMicros: 621_791n,
  };

  it('labels quoted and paid side by side, with units, rounded', () => {
    expect(feeLines({ quotedMicros: 1_102_350n, ledger, nativeSymbol: 'ETH', originChain: 'alpha' })).toEqual([
      'quoted 1.10 USD',
      'paid 0.62 USD: Relay 0.60 USD, network 0.0001211 ETH (0.02 USD)',
    ]);
  });

  it('says what is not known yet instead of a number', () => {
    expect(feeLines({ quotedMicros: null, ledger: null, nativeSymbol: null, originChain: 'alpha' })).toEqual([
      'quoted —',
      'paid — (not settled)',
    ]);
    expect(
      feeLines({
        quotedMicros: 1_000_000n,
        ledger: { ...ledger, feesSource: 'quote_breakdown', gasUsdMicros: null },
        nativeSymbol: null,
        originChain: 'alpha',
      })[1],
    ).toBe('paid 0.62 USD: Relay 0.60 USD as quoted, network 0.0001211 alpha-native');
  });
});

describe('allowanceText', () => {
  it('shows whole units with the symbol, unlimited for an infinite approval', () => {
    expect(allowanceText(1_500_000_000n, 6, 'USDC')).toBe('1500 USDC');
    expect(allowanceText(2n ** 256n - 1n, 6, 'USDC')).toBe('unlimited (2^256 - 1 base units)');
    expect(allowanceText(42n, null, 'USDC')).toBe('42 base units (decimals unknown)');
  });
});
