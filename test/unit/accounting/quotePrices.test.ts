/**
 * Assets and USD prices at quote time from a stored quote: input, output and the origin's native currency (the
 * payment itself when native, else `fees.gas`), values rounded half up to the micro-USD, unit rates as decimal text.
 */
import { describe, expect, it } from 'vitest';
import { quoteAssets, unitRateText, usdMicrosOf } from '../../../packages/ballast/src/accounting/quotePrices.ts';
import { amountOf, quote, USDC_QUOTE, ZERO } from './fixtures.ts';

describe('quoteAssets', () => {
  it('reads symbol, decimals and price of the input, output and fees.gas', () => {
    const a = quoteAssets(USDC_QUOTE);
    expect(a.input).toEqual({
      symbol: 'USDC',
      decimals: 6,
      price: { usdMicros: 100_000_000n, amount: 100_000_000n, source: 'quote details.currencyIn' },
    });
    expect(a.output!.price!.source).toBe('quote details.currencyOut');
    expect(a.native).toEqual({
      symbol: 'ETH',
      decimals: 18,
      price: { usdMicros: 2_500_000n, amount: 10n ** 15n, source: 'quote fees.gas' },
    });
  });

  it('takes a native payment (BTC, SOL) as the native price; a fees.gas in a token is no native price', () => {
    const btc = quoteAssets(
      quote(amountOf('BTC', 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8', 8, 10_000_000n, '10000'), amountOf('WBTC', '0xw', 8, 1n, '0')),
    );
    expect(btc.native).toBe(btc.input);
    const tokenGas = quoteAssets(
      quote(amountOf('USDC', '0xa1', 6, 1n, '1'), amountOf('USDC', '0xb1', 6, 1n, '1'), amountOf('USDC', '0xa1', 6, 5n, '0.000005')),
    );
    expect(tokenGas.native).toBeNull();
  });

  it('no price without amountUsd or with a zero amount; nothing from a quote that does not parse', () => {
    const q = quoteAssets(
      quote({ currency: { chainId: 1, address: '0xa', symbol: 'X', decimals: 6 }, amount: '5' }, amountOf('X', '0xb', 6, 0n, '0')),
    );
    expect([q.input!.price, q.output!.price]).toEqual([null, null]);
    expect(quoteAssets({ details: {} })).toEqual({ input: null, output: null, native: null });
    expect(quoteAssets(null)).toEqual({ input: null, output: null, native: null });
    expect(quoteAssets(quote(amountOf('ETH', ZERO, 18, 1n, '0'), amountOf('ETH', ZERO, 18, 1n, '0'))).native!.symbol).toBe('ETH');
  });
});

describe('USD figures', () => {
  const eth = { usdMicros: 2_500_000n, amount: 10n ** 15n, source: 'quote fees.gas' as const }; // 2,500 USD per ETH

  it('values round half up to the micro-USD, with integer arithmetic only', () => {
    expect(usdMicrosOf(123_456_789_000_000n, eth)).toBe(308_642n); // 0.3086419725 USD
    expect(usdMicrosOf(200_000_000n, eth)).toBe(1n); // 0.0000005 USD: half rounds up
    expect(usdMicrosOf(199_999_999n, eth)).toBe(0n);
    expect(usdMicrosOf(10n ** 30n, eth)).toBe(2_500n * 10n ** 18n); // far beyond a float's exact range
  });

  it('unit rates per whole unit, up to 12 decimals', () => {
    expect(unitRateText(eth, 18)).toBe('2500');
    expect(unitRateText({ usdMicros: 1n, amount: 3n * 10n ** 18n, source: 'quote details.currencyIn' }, 18)).toBe('0.000000333333');
    expect(unitRateText({ usdMicros: 99_000_000n, amount: 99_000_000n, source: 'quote details.currencyOut' }, 6)).toBe('1');
  });
});
