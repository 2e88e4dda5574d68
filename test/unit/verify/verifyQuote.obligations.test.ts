/**
 * verifyQuote refuses orders that would make the treasury pay for more than a plain transfer, estimates below
 * their guarantee, and items a client could be tricked into skipping. Runs on every quote case (`QUOTE_CASES`).
 */
import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import { QUOTE_CASES } from '../../fixtures/quoteCase.ts';
import { caseInput, detailOf, failing, reseal, v2Of } from '../../fixtures/quoteTamper.ts';

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('verifyQuote on the %s quote', (_name, c) => {
  const f = c.facts;

  describe('obligations beyond a plain transfer', () => {
    it('no-calls-or-fees: a destination call in the order is refused', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.output.calls.push('0xdeadbeef');
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['no-calls-or-fees']);
      expect(detailOf(verdict, 'no-calls-or-fees')).toContain('output.calls has 1 call(s)');
    });

    it('no-calls-or-fees: a hub fee in the order is refused', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.fees.push({
        recipientChainId: f.originSlug,
        recipient: '0x000000000000000000000000000000000000dead',
        currencyChainId: f.originSlug,
        currency: f.originCurrency,
        amount: '1000000',
      });
      reseal(input);
      expect(failing(await verifyQuote(input))).toEqual(['no-calls-or-fees']);
    });

    it('min-output: an expected amount below the guaranteed minimum is refused', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.output.payments[0]!.expectedAmount = '0';
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['min-output']);
      expect(detailOf(verdict, 'min-output')).toContain('expectedAmount is below its minimumAmount');
    });
  });

  describe('items a client could be tricked into skipping or mis-tracking', () => {
    it('no-unexpected-steps: a deposit item already marked complete is refused', async () => {
      const input = caseInput(c);
      input.quote.steps[f.depositAt.stepIndex]!.items[f.depositAt.itemIndex]!.status = 'complete';
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['no-unexpected-steps']);
      expect(detailOf(verdict, 'no-unexpected-steps')).toContain('status is "complete"');
    });

    it('no-unexpected-steps: steps tracked under different request ids are refused', async () => {
      const input = caseInput(c);
      input.quote.steps[0]!.requestId = `0x${'11'.repeat(32)}`;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['no-unexpected-steps']);
      expect(detailOf(verdict, 'no-unexpected-steps')).toContain('one quote has one request');
    });
  });
});
