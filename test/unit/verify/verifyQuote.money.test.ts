/**
 * Every field of a quote that can cost money has a rule: refunds (who, where, until when), deadline horizon,
 * extraData contracts, payment weight, and `details` that must agree with the signed order. Each mutation is
 * made the way a careful attacker would (order id and deposit calldata resealed, details kept in step), so
 * only the rule about the changed field can catch it.
 */
import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../../../src/verify/verifyQuote.ts';
import { FIXTURE, PUBLIC_V3_CONTRACTS } from '../../fixtures/relay.ts';
import { detailOf, failing, fixtureInput, reseal, v2Of } from '../../fixtures/quoteTamper.ts';

const STRANGER = '0x000000000000000000000000000000000000dead';
const OTHER_WALLET = '0x1111111111111111111111111111111111111111';
const padded = (address: string) => `0x${'0'.repeat(24)}${address.slice(2)}`;

describe('verifyQuote: refunds', () => {
  it('refund-recipient: a refund to another configured wallet of ours passes', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.inputs[0]!.refunds[1]!.recipient = OTHER_WALLET;
    reseal(input.quote);
    expect(failing(await verifyQuote(input))).toEqual(['refund-recipient']);
    input.expect.ourWallets = [OTHER_WALLET];
    expect(failing(await verifyQuote(input))).toEqual([]);
  });

  it('refund-terms: a refund in a currency that is neither the payment nor the output currency', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.inputs[0]!.refunds[0]!.currency = '0x4200000000000000000000000000000000000006';
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['refund-terms']);
    expect(detailOf(verdict, 'refund-terms')).toContain('inputs[0].refunds[0] refunds 0x4200000000000000000000000000000000000006 on "base"');
    expect(detailOf(verdict, 'refund-terms')).toContain('no refund pays our wallet on the payment chain');
  });

  it('refund-terms: no refund on the origin chain (only the destination leg)', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.inputs[0]!.refunds.splice(0, 1);
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['refund-terms']);
    expect(detailOf(verdict, 'refund-terms')).toContain(`no refund pays our wallet on the payment chain "base" in the payment currency ${FIXTURE.usdcBase}`);
  });

  it('refund-terms: a refund deadline before the output deadline', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.inputs[0]!.refunds[1]!.deadline = FIXTURE.outputDeadlineSec - 1;
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['refund-terms']);
    expect(detailOf(verdict, 'refund-terms')).toContain(`inputs[0].refunds[1].deadline ${FIXTURE.outputDeadlineSec - 1} is before output.deadline`);
  });

  it('payment-weight: a weight other than "1" is refused', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.inputs[0]!.payment.weight = '2';
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['payment-weight']);
    expect(detailOf(verdict, 'payment-weight')).toContain('inputs[0].payment.weight is "2", expected "1"');
  });
});

describe('verifyQuote: deadline horizon', () => {
  it('deadline-horizon: output and refund deadlines parked until 2106 are refused', async () => {
    const input = fixtureInput();
    const order = v2Of(input.quote).orderData;
    order.output.deadline = 4_294_967_295;
    for (const refund of order.inputs[0]!.refunds) refund.deadline = 4_294_967_295;
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['deadline-horizon']);
    expect(detailOf(verdict, 'deadline-horizon')).toContain('output.deadline 4294967295');
    expect(detailOf(verdict, 'deadline-horizon')).toContain('more than the allowed 86400 s');
  });

  it('deadline-horizon: the limit is configurable, and the genuine quote sits well inside 24 h', async () => {
    const input = fixtureInput();
    const ahead = FIXTURE.outputDeadlineSec - FIXTURE.nowSec;
    input.expect.maxDeadlineSec = ahead;
    expect(failing(await verifyQuote(input))).toEqual([]);
    input.expect.maxDeadlineSec = ahead - 1;
    expect(failing(await verifyQuote(input))).toEqual(['deadline-horizon']);
  });
});

describe('verifyQuote: extraData', () => {
  it('extra-data: output.extraData naming an address GET /chains does not list', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.output.extraData = padded(STRANGER);
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['extra-data']);
    expect(detailOf(verdict, 'extra-data')).toContain(`output.extraData names ${STRANGER}`);
  });

  it('extra-data: a refund extraData that is not an address word', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.inputs[0]!.refunds[0]!.extraData = `0x${'ff'.repeat(32)}`;
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['extra-data']);
    expect(detailOf(verdict, 'extra-data')).toContain('inputs[0].refunds[0].extraData is 0xffff');
  });

  it('extra-data: the router listed on the destination chain only does not cover the origin refund', async () => {
    const input = fixtureInput();
    delete input.chains.chains[0]!.contracts;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['extra-data']);
    expect(detailOf(verdict, 'extra-data')).toContain(`inputs[0].refunds[0].extraData names 0x${PUBLIC_V3_CONTRACTS.erc20Router.slice(2)}`);
    expect(detailOf(verdict, 'extra-data')).not.toContain('refunds[1]');
  });

  it('extra-data: empty extraData passes', async () => {
    const input = fixtureInput();
    const order = v2Of(input.quote).orderData;
    order.output.extraData = '0x';
    for (const refund of order.inputs[0]!.refunds) refund.extraData = '0x';
    reseal(input.quote);
    expect(failing(await verifyQuote(input))).toEqual([]);
  });
});

describe('verifyQuote: details must agree with the order', () => {
  it('details-consistency: an expectedAmount inflated ×10¹² in the order but not in details', async () => {
    const input = fixtureInput();
    const payment = v2Of(input.quote).orderData.output.payments[0]!;
    payment.expectedAmount = (BigInt(payment.expectedAmount) * 10n ** 12n).toString();
    reseal(input.quote);
    input.quote.details.currencyOut.amount = '99950900';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['details-consistency']);
    expect(detailOf(verdict, 'details-consistency')).toContain('details.currencyOut.amount is 99950900, but the order expects 99950900000000000000');
  });

  it('details-consistency: fee components understated while totalImpact stays honest', async () => {
    const input = fixtureInput();
    const expanded = input.quote.details.expandedPriceImpact!;
    expanded['swap']!.usd = '0';
    expanded['relay']!.usd = '0';
    expanded['execution']!.usd = '0';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['details-consistency']);
    expect(detailOf(verdict, 'details-consistency')).toContain('expandedPriceImpact components sum to 0 micro-USD');
  });

  it('details-consistency: totalImpact understated against the USD values in and out', async () => {
    const input = fixtureInput();
    const d = input.quote.details;
    d.totalImpact = { usd: '-0.000001', percent: '0' };
    d.expandedPriceImpact = { swap: { usd: '0' }, execution: { usd: '-0.000001' }, relay: { usd: '0' }, app: { usd: '0' } };
    d.currencyOut.amountUsd = '90.0';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['details-consistency']);
    expect(detailOf(verdict, 'details-consistency')).toContain('differs from currencyOut.amountUsd − currencyIn.amountUsd');
  });

  it('details-consistency: details that describe another payment amount or currency', async () => {
    const amount = fixtureInput();
    amount.quote.details.currencyIn.amount = '1000000';
    expect(failing(await verifyQuote(amount))).toEqual(['details-consistency']);
    const currency = fixtureInput();
    currency.quote.details.currencyOut.currency.address = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';
    const verdict = await verifyQuote(currency);
    expect(failing(verdict)).toEqual(['details-consistency']);
    expect(detailOf(verdict, 'details-consistency')).toContain(`but the order's currency is ${FIXTURE.usdtArbitrum}`);
  });

  it('details-consistency: differences within the tolerance pass', async () => {
    const input = fixtureInput();
    input.quote.details.totalImpact = { usd: '-0.055', percent: '-0.05' };
    expect(failing(await verifyQuote(input))).toEqual([]);
  });
});
