/**
 * verifyQuote routes a Solana-origin quote by the real deposit registry to the Solana checker.
 */
import { describe, expect, it } from 'vitest';
import { isDepositVmSupported } from '../../../packages/ballast/src/verify/deposit/registry.ts';
import { verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import { detailOf, failing } from '../../fixtures/quoteTamper.ts';
import { svmQuoteInput } from '../../fixtures/svmQuote.ts';

describe('verifyQuote routing for vmType svm', () => {
  it('uses the Solana checker', async () => {
    expect(isDepositVmSupported('svm')).toBe(true);
    const { input } = svmQuoteInput('native');
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([]);
    expect(detailOf(verdict, 'deposit-call')).toContain('deposit_native');
  });
});
