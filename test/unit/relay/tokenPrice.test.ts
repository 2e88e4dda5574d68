/**
 * GET /currencies/token/price (src/relay/tokenPrice.ts, `RelayClient.getTokenPrice`): the JSON number's decimal
 * text becomes micro-USD exactly (no float arithmetic) and bad prices are refused naming `price` (the client call
 * itself: test/unit/relay/client.test.ts); the cache
 * (src/relay/tokenPriceCache.ts) asks once per chain and token per TTL, failures included, reporting each failure once.
 */
import { describe, expect, it } from 'vitest';
import { jsonNumberDecimalText, TokenPriceResponseSchema, tokenPriceUsdMicros } from '../../../packages/ballast/src/relay/tokenPrice.ts';
import { createTokenPriceCache } from '../../../packages/ballast/src/relay/tokenPriceCache.ts';

describe('token price parsing', () => {
  it('writes a JSON number as plain decimal text, exponents expanded', () => {
    expect(JSON.parse('[3000, 0.000121, 1e-7, 2.5e+21, 150.25, 0]').map(jsonNumberDecimalText)).toEqual([
      '3000',
      '0.000121',
      '0.0000001',
      '2500000000000000000000',
      '150.25',
      '0',
    ]);
  });

  it('reads the price as micro-USD per whole token from its decimal text', () => {
    expect(tokenPriceUsdMicros(3000)).toBe(3_000_000_000n);
    expect(tokenPriceUsdMicros(JSON.parse('3412.123456') as number)).toBe(3_412_123_456n);
    // 0.1 + 0.2 in floating point is 0.30000000000000004; its text rounds to 0.3 USD exactly.
    expect(tokenPriceUsdMicros(0.1 + 0.2)).toBe(300_000n);
    expect(TokenPriceResponseSchema.parse(JSON.parse('{"price": 150.5}'))).toEqual({ priceUsdMicros: 150_500_000n });
  });

  it('refuses zero, negative, sub-micro, absurd and non-finite prices, naming the problem', () => {
    expect(() => tokenPriceUsdMicros(0)).toThrow(/must be a positive USD amount/);
    expect(() => tokenPriceUsdMicros(-1)).toThrow(/must be a positive USD amount/);
    expect(() => tokenPriceUsdMicros(1e-9)).toThrow(/at least 0\.000001/);
    expect(() => tokenPriceUsdMicros(2e7)).toThrow(/above 10000000; refusing it as broken/);
    expect(() => tokenPriceUsdMicros(Number.NaN)).toThrow(/finite number/);
    const bad = TokenPriceResponseSchema.safeParse({ price: -3 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['price'], message: expect.stringContaining('positive') });
    expect(TokenPriceResponseSchema.safeParse({ price: '3000' }).success).toBe(false); // v2's string form is not v1's
  });
});

describe('createTokenPriceCache', () => {
  it('asks once per chain and token within the TTL, failures included, and reports each failure once', async () => {
    let nowMs = 0;
    const asked: string[] = [];
    const errors: string[] = [];
    let fail = true;
    const cache = createTokenPriceCache({
      fetch: async (q) => {
        asked.push(`${q.chainId}:${q.address}`);
        if (fail) throw new Error('HTTP 500');
        return 3_000_000_000n;
      },
      ttlMs: 60_000,
      now: () => nowMs,
      onError: (q, e) => errors.push(`${q.chainId} ${(e as Error).message}`),
    });
    const q = { chainId: 10, address: '0xAbC' };
    await expect(cache.get(q)).rejects.toThrow('HTTP 500');
    await expect(cache.get({ chainId: 10, address: '0xabc' })).rejects.toThrow('HTTP 500'); // same EVM address
    expect(asked).toEqual(['10:0xAbC']);
    expect(errors).toEqual(['10 HTTP 500']);
    fail = false;
    nowMs = 60_000; // the failure has expired
    expect(await cache.get(q)).toBe(3_000_000_000n);
    expect(await cache.get(q)).toBe(3_000_000_000n);
    expect(await cache.get({ chainId: 11, address: '0xAbC' })).toBe(3_000_000_000n);
    expect(cache.fetches).toBe(3);
    expect(errors).toHaveLength(1);
  });
});
