/**
 * The price of a cancel (src/chains/bvm/cancelPrice.ts): BIP-125 over every transaction it replaces,
 * descendants counted; the market's 1–2 block rate; 1.5 × the last cancel when re-priced; and its caps, which
 * it never exceeds (paying the cap while that still replaces, else no cancel at all).
 */
import { describe, expect, it } from 'vitest';
import { bip125MinimumSat, priceCancel, type CancelPriceInput } from '../../../../packages/ballast/src/chains/bvm/cancelPrice.ts';

/** A deposit of 200 vB paying 1,000 sat (5 sat/vB), cancelled by a 110 vB transaction. */
const deposit = { feeSat: 1_000n, vsize: 200, descendants: [] };
const base: CancelPriceInput = {
  vsize: 110,
  predecessors: [deposit],
  marketSatPerVb: null,
  lastCancelFeeSat: null,
  maxFeeSat: 50_000n,
  maxRateSatPerVb: 50,
};

describe('bip125MinimumSat', () => {
  it('pays the replaced fees plus 1 sat/vB of its own size, at a higher rate', () => {
    expect(bip125MinimumSat(deposit, 110)).toBe(1_110n); // rule 4: 1,000 + 110; its rate 10.1 > 5
    // A child of 3,000 sat spending the deposit's change is evicted with it: rule 3 counts it.
    expect(bip125MinimumSat({ ...deposit, descendants: [{ feeSat: 3_000n, vsize: 150 }] }, 110)).toBe(4_110n);
    // A small original at a high rate: the rate rule decides (⌊5,000 × 400 ÷ 100⌋ + 1).
    expect(bip125MinimumSat({ feeSat: 5_000n, vsize: 100, descendants: [] }, 400)).toBe(20_001n);
  });
});

describe('priceCancel', () => {
  it('pays the market when it asks more than BIP-125', () => {
    expect(priceCancel({ ...base, marketSatPerVb: 30.5 })).toEqual({
      feeSat: 3_355n,
      capped: false,
      minimumSat: 1_110n,
      wantedSat: 3_355n,
    });
    expect(priceCancel({ ...base, marketSatPerVb: 2 })).toMatchObject({ feeSat: 1_110n, capped: false }); // market below BIP-125
  });

  it('a re-price out-pays every earlier cancel and pays at least 1.5 × the last one', () => {
    const first = { feeSat: 2_000n, vsize: 110, descendants: [] };
    const priced = priceCancel({ ...base, predecessors: [deposit, first], lastCancelFeeSat: 2_000n, marketSatPerVb: 10 });
    expect(priced).toMatchObject({ feeSat: 3_000n, minimumSat: 2_110n, capped: false });
  });

  it('never above its caps: the cap while that still replaces, then no cancel at all', () => {
    const wanted = priceCancel({ ...base, marketSatPerVb: 100 }); // 11,000 sat wanted; the rate cap is 50 × 110 = 5,500
    expect(wanted).toEqual({ feeSat: 5_500n, capped: true, minimumSat: 1_110n, wantedSat: 11_000n });
    expect(priceCancel({ ...base, marketSatPerVb: 100, maxFeeSat: 4_000n })).toMatchObject({ feeSat: 4_000n, capped: true });
    const atCap = { feeSat: 4_000n, vsize: 110, descendants: [] };
    const again = priceCancel({ ...base, predecessors: [deposit, atCap], lastCancelFeeSat: 4_000n, maxFeeSat: 4_000n });
    expect(again).toEqual({
      atCap:
        'a cancel must pay at least 4110 sat (BIP-125) over ~110 vB, above its caps of 4000 sat (maxCancelFeeSats 4000, maxFeeRateSatPerVb 50)',
    });
  });

  it('the rate cap is judged on the smallest size the signed cancel can have', () => {
    // 110 vB estimated, as small as 108 vB once signed: 50 × 108 = 5,400 sat keeps it within 50 sat/vB whatever it signs to.
    expect(priceCancel({ ...base, marketSatPerVb: 100, minVsize: 108 })).toMatchObject({ feeSat: 5_400n, capped: true });
  });

  it('a deposit at the rate cap cannot be cancelled under it: refused, never signed above the cap', () => {
    // 200 vB at 50 sat/vB: a 110 vB cancel must pay 10,110 sat, 91.9 sat/vB, over a 50 sat/vB cap.
    const result = priceCancel({ ...base, predecessors: [{ feeSat: 10_000n, vsize: 200, descendants: [] }] });
    expect(result).toMatchObject({ atCap: expect.stringContaining('at least 10110 sat') });
  });
});
