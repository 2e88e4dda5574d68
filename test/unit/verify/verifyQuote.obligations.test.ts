/**
 * verifyQuote refuses orders that would make the treasury pay for more than a plain transfer, estimates below
 * their guarantee, and items a client could be tricked into skipping.
 */
import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../../../src/verify/verifyQuote.ts';
import { FIXTURE } from '../../fixtures/relay.ts';
import { DEPOSIT_AT, detailOf, failing, fixtureInput, reseal, v2Of } from '../../fixtures/quoteTamper.ts';

describe('verifyQuote: obligations beyond a plain transfer', () => {
  it('no-calls-or-fees: a destination call in the order is refused', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.output.calls.push('0xdeadbeef');
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['no-calls-or-fees']);
    expect(detailOf(verdict, 'no-calls-or-fees')).toContain('output.calls has 1 call(s)');
  });

  it('no-calls-or-fees: a hub fee in the order is refused', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.fees.push({
      recipientChainId: 'base',
      recipient: '0x000000000000000000000000000000000000dead',
      currencyChainId: 'base',
      currency: FIXTURE.usdcBase,
      amount: '1000000',
    });
    reseal(input.quote);
    expect(failing(await verifyQuote(input))).toEqual(['no-calls-or-fees']);
  });

  it('min-output: an expected amount below the guaranteed minimum is refused', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.output.payments[0]!.expectedAmount = '0';
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['min-output']);
    expect(detailOf(verdict, 'min-output')).toContain('expectedAmount is below its minimumAmount');
  });
});

describe('verifyQuote: items a client could be tricked into skipping or mis-tracking', () => {
  it('no-unexpected-steps: a deposit item already marked complete is refused', async () => {
    const input = fixtureInput();
    input.quote.steps[DEPOSIT_AT.stepIndex]!.items[DEPOSIT_AT.itemIndex]!.status = 'complete';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['no-unexpected-steps']);
    expect(detailOf(verdict, 'no-unexpected-steps')).toContain('status is "complete"');
  });

  it('no-unexpected-steps: steps tracked under different request ids are refused', async () => {
    const input = fixtureInput();
    input.quote.steps[0]!.requestId = `0x${'11'.repeat(32)}`;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['no-unexpected-steps']);
    expect(detailOf(verdict, 'no-unexpected-steps')).toContain('one quote has one request');
  });
});
