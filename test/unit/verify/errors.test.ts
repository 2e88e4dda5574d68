import { describe, expect, it } from 'vitest';
import { assertVerdictOk, QuoteVerificationError } from '../../../src/verify/errors.ts';
import { verifyQuote } from '../../../src/verify/verifyQuote.ts';
import { fixtureInput, v2Of } from '../../fixtures/quoteTamper.ts';

describe('assertVerdictOk', () => {
  it('accepts the verdict of the genuine fixture', async () => {
    const verdict = await verifyQuote(fixtureInput());
    expect(() => assertVerdictOk(verdict)).not.toThrow();
  });

  it('throws QuoteVerificationError listing every failed rule', async () => {
    const input = fixtureInput();
    v2Of(input.quote).paymentDetails.depository = '0x000000000000000000000000000000000000dead';
    input.nowSec = 1777339792;
    const verdict = await verifyQuote(input);
    let caught: unknown;
    try {
      assertVerdictOk(verdict);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QuoteVerificationError);
    const error = caught as QuoteVerificationError;
    expect(error.code).toBe('QUOTE_VERIFICATION_FAILED');
    expect(error.failed.map((r) => r.rule)).toEqual(['deadline', 'depository']);
    expect(error.message).toContain('paymentDetails.depository');
  });
});
