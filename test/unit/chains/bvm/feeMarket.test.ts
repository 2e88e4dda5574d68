/**
 * The fee market read from Esplora's `/fee-estimates` (src/chains/bvm/feeMarket.ts): the blocks an order's
 * deadline leaves, and the estimate for that many blocks on the sparse table (the largest target at or below,
 * the safe side).
 */
import { describe, expect, it } from 'vitest';
import { blocksBeforeDeadline, estimateWithin } from '../../../../packages/ballast/src/chains/bvm/feeMarket.ts';

const TABLE = { '1': 8, '6': 5, '144': 2, '1008': 1 };

describe('blocksBeforeDeadline', () => {
  it('is time left ÷ the block interval, at least 1', () => {
    expect(blocksBeforeDeadline(10_000 + 3_600, 10_000, 600)).toBe(6);
    expect(blocksBeforeDeadline(10_000 + 1_199, 10_000, 600)).toBe(1);
    expect(blocksBeforeDeadline(10_000 - 50, 10_000, 600)).toBe(1); // already past: the next block
    expect(blocksBeforeDeadline(10_000 + 600, 10_000, 60)).toBe(10);
  });
});

describe('estimateWithin', () => {
  it('takes the largest target at or below the blocks left, else the smallest target', () => {
    // The review's case: an order that needs the next block or two gets 8 sat/vB, not the week-ahead 1.
    expect(estimateWithin(TABLE, 1)).toEqual({ targetBlocks: 1, satPerVb: 8 });
    expect(estimateWithin(TABLE, 2)).toEqual({ targetBlocks: 1, satPerVb: 8 });
    expect(estimateWithin(TABLE, 6)).toEqual({ targetBlocks: 6, satPerVb: 5 });
    expect(estimateWithin(TABLE, 2_000)).toEqual({ targetBlocks: 1008, satPerVb: 1 });
    expect(estimateWithin({ '3': 4, '25': 2 }, 1)).toEqual({ targetBlocks: 3, satPerVb: 4 });
    expect(estimateWithin({}, 1)).toEqual({ problem: 'the node answered GET /fee-estimates with no estimate' });
  });
});
