import { describe, expect, it } from 'vitest';
import { formatPercent } from '../../../../packages/sandbox/src/quote/prices.ts';
import { loadQuoteFixture, relayFixturesPresent } from '../../../fixtures/relay.ts';
import { build, USDC } from './fixtures.ts';

/**
 * Every key path of a JSON value, array elements collapsed to `[]` (so lengths do not matter) and
 * `metadata` subobjects left out (logo URLs and flags vary by currency).
 */
function keyPaths(value: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) keyPaths(item, `${prefix}[]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'metadata') continue;
      const path = prefix === '' ? key : `${prefix}.${key}`;
      out.add(path);
      keyPaths(child, path, out);
    }
  }
  return out;
}

describe.skipIf(!relayFixturesPresent)('sandbox quote shape vs the genuine /quote/v2 fixture', () => {
  it('has every key path the genuine quote has (arrays and metadata aside)', async () => {
    const { response } = await build();
    const sandbox = keyPaths(JSON.parse(JSON.stringify(response)));
    const genuine = [...keyPaths(loadQuoteFixture())];
    expect(genuine.length).toBeGreaterThan(100); // the walk really covered the fixture
    expect(genuine.filter((p) => !sandbox.has(p))).toEqual([]);
  });

  it('deprecated fee set of the genuine quote: relayer = relayerGas + relayerService', () => {
    const genuine = loadQuoteFixture().fees!;
    expect(BigInt(genuine.relayerGas!.amount) + BigInt(genuine.relayerService!.amount)).toBe(BigInt(genuine.relayer!.amount));
  });
});

describe('sandbox quote shape: the live API conventions it follows', () => {
  it('feeSponsorship: nothing sponsored, the user pays every component, totals add up', async () => {
    const { response, order } = await build();
    const q = response.feeSponsorship.quoted;
    expect(q.selectedComponents).toEqual([]);
    expect(q.capHit).toBe(false);
    expect(Object.keys(q.components)).toEqual(['execution', 'swap', 'relay', 'app']);
    const fees = order.fees;
    const byKey = { execution: fees.execution, swap: fees.swap, relay: fees.platform, app: fees.app };
    for (const [key, fee] of Object.entries(byKey)) {
      const c = q.components[key]!;
      expect(c.selected).toBe(false);
      expect(c.total.amount).toBe(fee.amount.toString());
      expect(c.userPays.amount).toBe(fee.amount.toString());
      expect(c.sponsored.amount).toBe('0');
      expect(c.total.currency).toEqual({ chainId: 31001, address: USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 });
    }
    expect(q.sponsoredTotal.amount).toBe('0');
    expect(q.userPaysTotal.amount).toBe(fees.totalAmount.toString());
    expect(response.details.expandedPriceImpact.sponsored).toEqual({ usd: '0' });
  });

  it('details.route: origin leg carries the input, destination leg the output, both through "relay"', async () => {
    const { response, order } = await build();
    const { origin, destination } = response.details.route;
    expect(origin.router).toBe('relay');
    expect(destination.router).toBe('relay');
    expect(origin.inputCurrency).toEqual(response.details.currencyIn);
    expect(origin.outputCurrency.amount).toBe(order.amountIn.toString());
    expect(destination.inputCurrency).toEqual(response.details.currencyOut);
    expect(destination.outputCurrency).toMatchObject({
      amount: order.expectedOut.toString(),
      minimumAmount: order.minimumOut.toString(),
      currency: { chainId: 31002 },
    });
  });

  it('deprecated fee set: relayer = relayerGas + relayerService, as in the genuine quote', async () => {
    const { response } = await build();
    const f = response.fees;
    expect(BigInt(f.relayerGas.amount) + BigInt(f.relayerService.amount)).toBe(BigInt(f.relayer.amount));
  });

  it('percent strings round half away from zero to two decimals, like the fixture', () => {
    // fixture: totalImpact -0.049092 USD on a 99.9832 USD input → "-0.05"; swapImpact 0.023341 → "0.02"
    expect(formatPercent(-49_092n, 99_983_200n)).toBe('-0.05');
    expect(formatPercent(23_341n, 99_983_200n)).toBe('0.02');
    expect(formatPercent(5n, 10_000n)).toBe('0.05');
    expect(formatPercent(-5n, 100_000n)).toBe('-0.01'); // exactly -0.005 % rounds away from zero
    expect(formatPercent(-4n, 100_000n)).toBe('0.00'); // -0.004 % is "0.00", never "-0.00"
  });
});
