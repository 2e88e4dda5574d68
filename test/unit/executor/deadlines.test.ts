/**
 * Every item is signed only while the order deadline leaves time for it, the items after it and the fill; no
 * receipt wait eats into the time of the items that follow.
 */
import { describe, expect, it } from 'vitest';
import {
  chainLeadSec,
  deadlineRefusal,
  defaultLastItemLeadSec,
  receiptWaitMs,
  requiredLeadSec,
  RECEIPT_TIMEOUT_MS,
} from '../../../packages/ballast/src/executor/deadlines.ts';

const NOW_MS = 1_800_000_000_000;
const inSec = (s: number) => NOW_MS / 1000 + s;

describe('deadlines', () => {
  it('needs 60 s for the fill plus 30 s per transaction still to send', () => {
    expect(requiredLeadSec(1)).toBe(90);
    expect(requiredLeadSec(2)).toBe(120);
  });

  it('refuses to sign when the deadline is closer than that, one second makes the difference', () => {
    expect(deadlineRefusal(NOW_MS, inSec(120), 2)).toBeNull();
    expect(deadlineRefusal(NOW_MS, inSec(119), 2)).toBe(
      `the order deadline ${inSec(119)} is 119 s away; 2 transaction(s) still to broadcast and confirm need 120 s`,
    );
    expect(deadlineRefusal(NOW_MS, inSec(-5), 1)).toContain('is -5 s away');
  });

  it('a receipt wait never reaches into the time the later items need, and is capped at 120 s', () => {
    expect(receiptWaitMs(NOW_MS, inSec(600), 1)).toBe(RECEIPT_TIMEOUT_MS);
    // 200 s left, the deposit after it needs 90 s: the approve's receipt is awaited at most 110 s
    expect(receiptWaitMs(NOW_MS, inSec(200), 1)).toBe(110_000);
    expect(receiptWaitMs(NOW_MS, inSec(95), 0)).toBe(35_000);
    expect(receiptWaitMs(NOW_MS, inSec(10), 1)).toBe(1000);
  });
});

describe('per-chain deadline lead', () => {
  it('Bitcoin needs its blocks: 600 s × confirmations + 600 s for the fill; EVM and Solana keep 60 s + 30 s per item', () => {
    expect(defaultLastItemLeadSec('bvm', 1)).toBe(1200);
    expect(defaultLastItemLeadSec('bvm', 2)).toBe(1800);
    expect(defaultLastItemLeadSec('evm')).toBe(requiredLeadSec(1));
    expect(defaultLastItemLeadSec('svm')).toBe(90);
    // each transaction before the deposit adds ITEM_BUDGET_SEC; 0 items left counts as the deposit alone
    expect(chainLeadSec(90, 2)).toBe(requiredLeadSec(2));
    expect(chainLeadSec(90, 3)).toBe(requiredLeadSec(3));
    expect(chainLeadSec(1200, 0)).toBe(1200);
  });

  it('a deadline 95 s ahead lets an EVM deposit be signed but not a Bitcoin one', () => {
    expect(deadlineRefusal(NOW_MS, inSec(95), 1, defaultLastItemLeadSec('evm'))).toBeNull();
    expect(deadlineRefusal(NOW_MS, inSec(95), 1, defaultLastItemLeadSec('bvm', 1))).toBe(
      `the order deadline ${inSec(95)} is 95 s away; 1 transaction(s) still to broadcast and confirm need 1200 s`,
    );
  });
});
