/** Net-flow estimator (src/planner/flow.ts): values computed by hand from the documented formulas. */
import { describe, expect, it } from 'vitest';
import { decayPpm, estimateFlow, FLOW_RATE_SCALE, signalOf, stepFlow } from '../../../packages/ballast/src/planner/flow.ts';

describe('decayPpm', () => {
  it('keeps half the old rate after one half-life and a quarter after two', () => {
    expect(decayPpm(10_000, 10)).toBe(500_000n);
    expect(decayPpm(20_000, 10)).toBe(250_000n);
    expect(decayPpm(0, 10)).toBe(1_000_000n);
  });

  it('refuses a zero half-life and a negative gap', () => {
    expect(() => decayPpm(1000, 0)).toThrow(RangeError);
    expect(() => decayPpm(-1, 10)).toThrow(RangeError);
  });
});

describe('stepFlow / estimateFlow', () => {
  it('starts cold: one observation gives no rate and 0 samples', () => {
    const { signal } = estimateFlow([{ at: 0, balance: 1000n }], 10);
    expect(signal).toEqual({ netFlowPerSec: 0n, samples: 0 });
    expect(estimateFlow([], 10).signal).toEqual({ netFlowPerSec: 0n, samples: 0 });
  });

  it('takes the first interval as is, then blends by the half-life', () => {
    // 0 s: 1000. 10 s: 900 (outflow 100 in 10 s = -10/s). 20 s: 1000 with +300 from Ballast itself: outside flow
    // 1000 - 900 - 300 = -200 in 10 s = -20/s; one half-life: (-10 + -20) / 2 = -15/s.
    const s1 = stepFlow(undefined, { at: 0, balance: 1000n }, 10);
    const s2 = stepFlow(s1, { at: 10_000, balance: 900n }, 10);
    expect(s2.rateScaled).toBe(-10n * FLOW_RATE_SCALE);
    expect(s2.samples).toBe(1);
    const s3 = stepFlow(s2, { at: 20_000, balance: 1000n, own: 300n }, 10);
    expect(s3.rateScaled).toBe(-15n * FLOW_RATE_SCALE);
    expect(signalOf(s3)).toEqual({ netFlowPerSec: -15n, samples: 2 });
  });

  it("does not count Ballast's own transfers as flow", () => {
    // A rebalance brought +5000 and nothing else happened.
    const { signal } = estimateFlow(
      [
        { at: 0, balance: 1000n },
        { at: 60_000, balance: 6000n, own: 5000n },
      ],
      600,
    );
    expect(signal).toEqual({ netFlowPerSec: 0n, samples: 1 });
  });

  it('nets oscillating traffic to zero', () => {
    // +100 then -100 over 10 s each, half-life 10 s: +10/s, then (10 + -10) / 2 = 0.
    const { signal } = estimateFlow(
      [
        { at: 0, balance: 1000n },
        { at: 10_000, balance: 1100n },
        { at: 20_000, balance: 1000n },
      ],
      10,
    );
    expect(signal).toEqual({ netFlowPerSec: 0n, samples: 2 });
  });

  it('sorts observations by time and ignores one not later than the last', () => {
    const obs = [
      { at: 10_000, balance: 900n },
      { at: 0, balance: 1000n },
      { at: 10_000, balance: 5n },
    ];
    expect(estimateFlow(obs, 10).signal).toEqual({ netFlowPerSec: -10n, samples: 1 });
  });

  it('keeps sub-unit rates in the state and truncates the signal toward zero', () => {
    // -1 base unit in 3 s = -0.333…/s: state -333333 (scaled by 10^6), signal 0.
    const { state, signal } = estimateFlow(
      [
        { at: 0, balance: 10n },
        { at: 3000, balance: 9n },
      ],
      60,
    );
    expect(state?.rateScaled).toBe(-333_333n);
    expect(signal.netFlowPerSec).toBe(0n);
  });

  it('refuses a non-positive half-life', () => {
    expect(() => stepFlow(undefined, { at: 0, balance: 1n }, 0)).toThrow(RangeError);
  });
});
