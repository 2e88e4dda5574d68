/**
 * Every field of a quote that can cost money has a rule: refunds (who, where, until when), deadline horizon,
 * extraData contracts, payment weight, and `details` that must agree with the signed order. Each mutation is
 * made the way a careful attacker would (order id and deposit calldata resealed, details kept in step), so
 * only the rule about the changed field can catch it. Runs on every quote case (`QUOTE_CASES`).
 */
import { describe, expect, it } from 'vitest';
import { formatUsdMicros, parseUsdMicros } from '../../../packages/protocol/src/core/units.ts';
import type { VerifyQuoteInput } from '../../../packages/ballast/src/verify/types.ts';
import { verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import { QUOTE_CASES, type QuoteCase } from '../../fixtures/quoteCase.ts';
import { caseInput, chainById, detailOf, failing, reseal, v2Of } from '../../fixtures/quoteTamper.ts';
import { ROUTER_32_CONTRACTS } from '../../fixtures/relay.ts';

const STRANGER = '0x000000000000000000000000000000000000dead';
const OTHER_WALLET = '0x1111111111111111111111111111111111111111';
const OTHER_TOKEN = '0x4200000000000000000000000000000000000006';
const padded = (address: string) => `0x${'0'.repeat(24)}${address.slice(2)}`;

/** Index of the refund on the origin chain and of the one on the destination chain. */
function refundLegs(input: VerifyQuoteInput, c: QuoteCase) {
  const refunds = v2Of(input.quote).orderData.inputs[0]!.refunds;
  const origin = refunds.findIndex((r) => r.chainId === c.facts.originSlug);
  const destination = refunds.findIndex((r) => r.chainId === c.facts.destinationSlug);
  if (origin < 0 || destination < 0) throw new Error(`${c.name} quote lacks a refund per chain`);
  return { refunds, origin, destination };
}

/** Sets `details` USD figures: `totalImpact`, the four cost components (all on one), and USD out = in + total. */
function setUsd(input: VerifyQuoteInput, total: string, components: string) {
  const d = input.quote.details;
  d.totalImpact = { usd: total, percent: '0' };
  const platform = Object.keys(d.expandedPriceImpact ?? {}).find((k) => ['relay', 'service', 'platform'].includes(k)) ?? 'relay';
  d.expandedPriceImpact = { execution: { usd: components }, swap: { usd: '0' }, [platform]: { usd: '0' }, app: { usd: '0' } };
  d.currencyOut.amountUsd = formatUsdMicros(parseUsdMicros(d.currencyIn.amountUsd!) + parseUsdMicros(total)); // both quotes give amountUsd
}

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('verifyQuote on the %s quote: fields that cost money', (_name, c) => {
  const f = c.facts;

  describe('refunds', () => {
    it('refund-recipient: a refund to another configured wallet of ours passes', async () => {
      const input = caseInput(c);
      const { refunds, destination } = refundLegs(input, c);
      refunds[destination]!.recipient = OTHER_WALLET;
      reseal(input);
      expect(failing(await verifyQuote(input))).toEqual(['refund-recipient']);
      input.expect.ourWallets = [OTHER_WALLET];
      expect(failing(await verifyQuote(input))).toEqual([]);
    });

    it('refund-terms: a refund in a currency that is neither the payment nor the output currency', async () => {
      const input = caseInput(c);
      const { refunds, origin } = refundLegs(input, c);
      refunds[origin]!.currency = OTHER_TOKEN;
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['refund-terms']);
      expect(detailOf(verdict, 'refund-terms')).toContain(`inputs[0].refunds[${origin}] refunds ${OTHER_TOKEN} on "${f.originSlug}"`);
      expect(detailOf(verdict, 'refund-terms')).toContain('no refund pays our wallet on the payment chain');
    });

    it('refund-terms: no refund on the origin chain (only the destination leg)', async () => {
      const input = caseInput(c);
      const { refunds, origin } = refundLegs(input, c);
      refunds.splice(origin, 1);
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['refund-terms']);
      expect(detailOf(verdict, 'refund-terms')).toContain(
        `no refund pays our wallet on the payment chain "${f.originSlug}" in the payment currency ${f.originCurrency}`,
      );
    });

    it('refund-terms: a refund deadline before the output deadline', async () => {
      const input = caseInput(c);
      const { refunds, destination } = refundLegs(input, c);
      refunds[destination]!.deadline = f.outputDeadlineSec - 1;
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['refund-terms']);
      expect(detailOf(verdict, 'refund-terms')).toContain(
        `inputs[0].refunds[${destination}].deadline ${f.outputDeadlineSec - 1} is before output.deadline`,
      );
    });

    it('refund-terms with refundTo: the untampered quote, whose origin refund pays the user, passes', async () => {
      const input = caseInput(c);
      input.expect.refundTo = f.user;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual([]);
      expect(detailOf(verdict, 'refund-terms')).toContain(`origin refunds pay refundTo ${f.user}`);
    });

    it('refund-terms with refundTo: an origin refund to another wallet of ours is refused', async () => {
      const input = caseInput(c);
      const { refunds, origin } = refundLegs(input, c);
      refunds[origin]!.recipient = OTHER_WALLET;
      reseal(input);
      input.expect.ourWallets = [OTHER_WALLET];
      // without refundTo any wallet of ours will do
      expect(failing(await verifyQuote(input))).toEqual([]);
      input.expect.refundTo = f.user;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['refund-terms']);
      expect(detailOf(verdict, 'refund-terms')).toContain(
        `inputs[0].refunds[${origin}].recipient is ${OTHER_WALLET}; the origin refund must pay the refundTo we asked for, ${f.user}`,
      );
      expect(detailOf(verdict, 'refund-terms')).toContain(`no refund pays refundTo ${f.user} on the payment chain`);
    });

    it('refund-terms with refundTo: the native-currency "refund to depositor" sentinel is refused', async () => {
      const input = caseInput(c);
      const { refunds, origin } = refundLegs(input, c);
      refunds[origin]!.recipient = '0x0000000000000000000000000000000000000000';
      reseal(input);
      input.expect.refundTo = f.user;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['refund-recipient', 'refund-terms']);
    });

    it('payment-weight: a weight other than "1" is refused', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.inputs[0]!.payment.weight = '2';
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['payment-weight']);
      expect(detailOf(verdict, 'payment-weight')).toContain('inputs[0].payment.weight is "2", expected "1"');
    });
  });

  describe('deadline horizon', () => {
    it('deadline-horizon: output and refund deadlines parked until 2106 are refused', async () => {
      const input = caseInput(c);
      const order = v2Of(input.quote).orderData;
      order.output.deadline = 4_294_967_295;
      for (const refund of order.inputs[0]!.refunds) refund.deadline = 4_294_967_295;
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['deadline-horizon']);
      expect(detailOf(verdict, 'deadline-horizon')).toContain('output.deadline 4294967295');
      expect(detailOf(verdict, 'deadline-horizon')).toContain('more than the allowed 86400 s');
    });

    it('deadline-horizon: the limit is configurable, and the quote sits inside 24 h', async () => {
      const input = caseInput(c);
      const ahead = f.outputDeadlineSec - f.nowSec;
      input.expect.maxDeadlineSec = ahead;
      expect(failing(await verifyQuote(input))).toEqual([]);
      input.expect.maxDeadlineSec = ahead - 1;
      expect(failing(await verifyQuote(input))).toEqual(['deadline-horizon']);
    });
  });

  describe('extraData', () => {
    it('extra-data: output.extraData naming an address GET /chains does not list', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.output.extraData = padded(STRANGER);
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['extra-data']);
      expect(detailOf(verdict, 'extra-data')).toContain(`output.extraData names ${STRANGER}`);
    });

    it('extra-data: a refund extraData that is not an address word', async () => {
      const input = caseInput(c);
      const { refunds, origin } = refundLegs(input, c);
      refunds[origin]!.extraData = `0x${'ff'.repeat(32)}`;
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['extra-data']);
      expect(detailOf(verdict, 'extra-data')).toContain(`inputs[0].refunds[${origin}].extraData is 0xffff`);
    });

    it('extra-data: contracts listed on the destination chain only do not cover the origin refund', async () => {
      const input = caseInput(c);
      const originChain = chainById(input, f.originChainId);
      delete originChain.contracts;
      const { origin, destination } = refundLegs(input, c);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['extra-data']);
      expect(detailOf(verdict, 'extra-data')).toContain(`inputs[0].refunds[${origin}].extraData names`);
      expect(detailOf(verdict, 'extra-data')).not.toContain(`refunds[${destination}]`);
    });

    it('extra-data: Router 3.2 named by every extraData passes where GET /chains lists contracts["v3.2"] beside v3', async () => {
      const input = caseInput(c);
      for (const chain of input.chains.chains) chain.contracts = { ...chain.contracts, 'v3.2': { ...ROUTER_32_CONTRACTS } };
      const order = v2Of(input.quote).orderData;
      order.output.extraData = padded(ROUTER_32_CONTRACTS.erc20Router);
      for (const refund of order.inputs[0]!.refunds) refund.extraData = padded(ROUTER_32_CONTRACTS.erc20Router);
      reseal(input);
      expect(failing(await verifyQuote(input))).toEqual([]);
    });

    it('extra-data: with both groups listed, the v3 router and the 3.2 approval proxy may be named side by side', async () => {
      const input = caseInput(c);
      for (const chain of input.chains.chains) chain.contracts = { ...chain.contracts, 'v3.2': { ...ROUTER_32_CONTRACTS } };
      const { refunds, origin } = refundLegs(input, c);
      refunds[origin]!.extraData = padded(ROUTER_32_CONTRACTS.approvalProxy); // the other legs keep the v3 router
      reseal(input);
      expect(failing(await verifyQuote(input))).toEqual([]);
    });

    it('extra-data: Router 3.2 is refused on a chain whose GET /chains entry does not list it', async () => {
      const input = caseInput(c);
      chainById(input, f.destinationChainId).contracts = { 'v3.2': { ...ROUTER_32_CONTRACTS } }; // origin lists v3 only
      const { refunds, origin, destination } = refundLegs(input, c);
      refunds[origin]!.extraData = padded(ROUTER_32_CONTRACTS.erc20Router);
      refunds[destination]!.extraData = padded(ROUTER_32_CONTRACTS.erc20Router);
      v2Of(input.quote).orderData.output.extraData = padded(ROUTER_32_CONTRACTS.erc20Router);
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['extra-data']);
      expect(detailOf(verdict, 'extra-data')).toBe(
        `inputs[0].refunds[${origin}].extraData names ${ROUTER_32_CONTRACTS.erc20Router}, which GET /chains does not list as a contract of chain ${f.originChainId}`,
      );
    });

    it('extra-data: empty extraData passes', async () => {
      const input = caseInput(c);
      const order = v2Of(input.quote).orderData;
      order.output.extraData = '0x';
      for (const refund of order.inputs[0]!.refunds) refund.extraData = '0x';
      reseal(input);
      expect(failing(await verifyQuote(input))).toEqual([]);
    });
  });

  describe('details must agree with the order', () => {
    it('details-consistency: an expectedAmount inflated ×10¹² in the order but not in details', async () => {
      const input = caseInput(c);
      const before = input.quote.details.currencyOut.amount;
      const payment = v2Of(input.quote).orderData.output.payments[0]!;
      payment.expectedAmount = (BigInt(payment.expectedAmount) * 10n ** 12n).toString();
      reseal(input);
      input.quote.details.currencyOut.amount = before;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['details-consistency']);
      expect(detailOf(verdict, 'details-consistency')).toContain(
        `details.currencyOut.amount is ${before}, but the order expects ${payment.expectedAmount}`,
      );
    });

    it('details-consistency: fee components understated against an honest totalImpact', async () => {
      const input = caseInput(c);
      setUsd(input, '-5', '0');
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['details-consistency']);
      expect(detailOf(verdict, 'details-consistency')).toContain('expandedPriceImpact components sum to 0 micro-USD');
    });

    it('details-consistency: totalImpact understated against the USD values in and out', async () => {
      const input = caseInput(c);
      setUsd(input, '-5', '-5');
      input.quote.details.totalImpact = { usd: '-0.000001', percent: '0' };
      input.quote.details.expandedPriceImpact!['execution'] = { usd: '-0.000001' };
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['details-consistency']);
      expect(detailOf(verdict, 'details-consistency')).toContain('differs from currencyOut.amountUsd − currencyIn.amountUsd');
    });

    it('details-consistency: consistent USD figures pass, and small differences are tolerated', async () => {
      const input = caseInput(c);
      setUsd(input, '-5', '-5');
      expect(failing(await verifyQuote(input))).toEqual([]);
      input.quote.details.totalImpact = { usd: '-5.009', percent: '0' };
      expect(failing(await verifyQuote(input))).toEqual([]);
    });

    it('details-consistency: details that describe another payment amount or output currency', async () => {
      const amount = caseInput(c);
      amount.quote.details.currencyIn.amount = (f.amount / 2n).toString();
      expect(failing(await verifyQuote(amount))).toEqual(['details-consistency']);
      const currency = caseInput(c);
      currency.quote.details.currencyOut.currency.address = OTHER_TOKEN;
      const verdict = await verifyQuote(currency);
      expect(failing(verdict)).toEqual(['details-consistency']);
      expect(detailOf(verdict, 'details-consistency')).toContain(`but the order's currency is ${f.destinationCurrency}`);
    });
  });
});
