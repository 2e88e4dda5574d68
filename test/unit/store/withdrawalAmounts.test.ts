/**
 * What a withdrawal has brought back and what is still open (src/store/withdrawalAmounts.ts): a job that paid less
 * than was open leaves a remainder, the next job is settled against what earlier ones paid, and only a total that
 * covers the deposit closes it.
 */
import { describe, expect, it } from 'vitest';
import { openRemainder, remainingToWithdraw, settleJob } from '../../../packages/ballast/src/store/withdrawalAmounts.ts';

describe('withdrawal amounts', () => {
  it('leaves the part a short job did not pay open, and closes the deposit once the rest is paid', () => {
    const first = settleJob(100_000_000n, 0n, 75_000_000n);
    expect(first).toEqual({ received: 75_000_000n, remainder: 25_000_000n });
    expect(remainingToWithdraw(100_000_000n, first.received)).toBe(25_000_000n);
    expect(settleJob(100_000_000n, first.received, 24_999_999n)).toEqual({ received: 99_999_999n, remainder: 1n });
    expect(settleJob(100_000_000n, first.received, 25_000_000n)).toEqual({ received: 100_000_000n, remainder: 0n });
  });

  it('takes a job of unknown amount (adopted after a crash) to pay everything still open', () => {
    expect(settleJob(100n, 0n, null)).toEqual({ received: 100n, remainder: 0n });
    expect(settleJob(100n, 40n, null)).toEqual({ received: 100n, remainder: 0n });
  });

  it('never reports a negative remainder, and refuses negative amounts', () => {
    expect(settleJob(100n, 0n, 101n)).toEqual({ received: 101n, remainder: 0n });
    expect(remainingToWithdraw(100n, 150n)).toBe(0n);
    expect(() => remainingToWithdraw(-1n, 0n)).toThrow(RangeError);
    expect(() => settleJob(100n, 0n, -5n)).toThrow(/cannot pay -5/);
  });

  it('shows a remainder only for a withdrawal that brought part of the deposit back and is not executed', () => {
    expect(openRemainder({ amount: 100n, receivedAmount: 0n, state: 'attested' })).toBe(0n);
    expect(openRemainder({ amount: 100n, receivedAmount: 60n, state: 'attested' })).toBe(40n);
    expect(openRemainder({ amount: 100n, receivedAmount: 60n, state: 'failed' })).toBe(40n);
    expect(openRemainder({ amount: 100n, receivedAmount: 100n, state: 'executed' })).toBe(0n);
  });
});
