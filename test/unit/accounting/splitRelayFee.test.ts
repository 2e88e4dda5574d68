/**
 * Splitting what Relay kept among the fee components: proportional to their USD costs, summing to the kept amount
 * to the base unit, leftover base units to the largest remainders, one unattributed share without a breakdown.
 */
import { describe, expect, it } from 'vitest';
import { splitRelayFee } from '../../../packages/ballast/src/accounting/splitRelayFee.ts';

const costs = (execution: bigint, swap: bigint, platform: bigint, app: bigint) => ({ execution, swap, platform, app });

describe('splitRelayFee', () => {
  it('shares in proportion to the USD costs, leaving out components that cost nothing', () => {
    expect(splitRelayFee(1_000_000n, costs(200_000n, 0n, 600_000n, 200_000n))).toEqual([
      { component: 'execution', amount: 200_000n, usdMicros: 200_000n },
      { component: 'platform', amount: 600_000n, usdMicros: 600_000n },
      { component: 'app', amount: 200_000n, usdMicros: 200_000n },
    ]);
  });

  it('gives the base units the floors leave to the largest remainders, ties to the earlier component', () => {
    // 10 units over three equal costs: 3 each, one left, to execution (the tie goes to the earlier).
    expect(splitRelayFee(10n, costs(1n, 1n, 1n, 0n)).map((s) => s.amount)).toEqual([4n, 3n, 3n]);
    // 7 over 1:2:4 → 1, 2, 4 exactly; 8 over 1:2:4 → 8/7, 16/7, 32/7 = 1.14, 2.29, 4.57: the extra unit to platform.
    expect(splitRelayFee(8n, costs(1n, 2n, 4n, 0n)).map((s) => s.amount)).toEqual([1n, 2n, 5n]);
  });

  it('always sums to the kept amount exactly', () => {
    for (const kept of [1n, 2n, 3n, 999_999n, 10n ** 24n + 7n]) {
      const shares = splitRelayFee(kept, costs(123_457n, 9n, 500_001n, 33_333n));
      expect(shares.reduce((s, x) => s + x.amount, 0n)).toBe(kept);
      expect(shares.every((s) => s.amount > 0n)).toBe(true);
    }
  });

  it('one unattributed share without a breakdown or when every component is 0; nothing when nothing was kept', () => {
    expect(splitRelayFee(5n, null)).toEqual([{ component: 'unattributed', amount: 5n, usdMicros: null }]);
    expect(splitRelayFee(5n, costs(0n, 0n, 0n, 0n))).toEqual([{ component: 'unattributed', amount: 5n, usdMicros: null }]);
    expect(splitRelayFee(0n, costs(1n, 1n, 1n, 1n))).toEqual([]);
    expect(splitRelayFee(-3n, costs(1n, 1n, 1n, 1n))).toEqual([]);
  });
});
