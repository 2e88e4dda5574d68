/**
 * `depositTxOf` (src/store/transferRows.ts): which recorded transaction is the transfer's deposit, the one a status
 * must name to close it: the last one, except a deposit found on chain (`<step>:replacement`) that is not mined.
 */
import { describe, expect, it } from 'vitest';
import { cancelStepId, depositTxOf } from '../../../packages/ballast/src/store/transferRows.ts';

const tx = (stepId: string, status: string) => ({ stepId, status });

describe('depositTxOf', () => {
  it('is the last transaction; an unmined replacement found on chain gives way to the one before it', () => {
    expect(depositTxOf({ txs: [] })).toBeUndefined();
    expect(depositTxOf({ txs: [tx('approve', 'confirmed'), tx('deposit', 'sent')] })).toEqual(tx('deposit', 'sent'));
    const ours = tx('deposit', 'confirmed');
    expect(depositTxOf({ txs: [ours, tx('deposit:replacement', 'confirmed')] })).toEqual(tx('deposit:replacement', 'confirmed'));
    expect(depositTxOf({ txs: [ours, tx('deposit:replacement', 'sent')] })).toBe(ours);
    expect(depositTxOf({ txs: [ours, tx('deposit:replacement', 'sent'), tx('deposit:replacement:2', 'sent')] })).toBe(ours);
    expect(depositTxOf({ txs: [tx('deposit:replacement', 'sent')] })).toEqual(tx('deposit:replacement', 'sent'));
  });

  it('names each cancel of a deposit apart, all ending in :cancel', () => {
    expect([1, 2, 3].map((n) => cancelStepId('deposit', n))).toEqual(['deposit:cancel', 'deposit:2:cancel', 'deposit:3:cancel']);
  });
});
