/**
 * verifyQuote on the test quotes and on copies tampered in the order itself (output, input, deadlines, order id,
 * depository, chain status). Each tamper must fail exactly the expected rules. The tampering runs on every quote
 * case (`QUOTE_CASES`: the offline quote, plus the genuine one when its files are present).
 */
import { describe, expect, it } from 'vitest';
import { VerifyInputError } from '../../../packages/ballast/src/verify/errors.ts';
import { VERIFY_RULE_IDS, verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import { OFFLINE_CASE } from '../../fixtures/offlineQuote.ts';
import { QUOTE_CASES } from '../../fixtures/quoteCase.ts';
import {
  caseInput,
  chainById,
  detailOf,
  failing,
  readDepositCall,
  reseal,
  v2Of,
  writeApprove,
  writeDepositCall,
} from '../../fixtures/quoteTamper.ts';
import { FIXTURE, GENUINE_CASE, relayFixturesPresent } from '../../fixtures/relay.ts';

const STRANGER = '0x000000000000000000000000000000000000dead';
const OTHER_TOKEN = '0x000000000000000000000000000000000000beef';

describe.skipIf(!relayFixturesPresent)('verifyQuote: the genuine fixture', () => {
  it('passes every rule, in the documented order, and locates the deposit item', async () => {
    const verdict = await verifyQuote(caseInput(GENUINE_CASE));
    expect(failing(verdict)).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.rules.map((r) => r.rule)).toEqual([...VERIFY_RULE_IDS]);
    expect(verdict.orderId).toBe(FIXTURE.orderId);
    expect(verdict.depositItem).toEqual({ stepIndex: 1, itemIndex: 0 });
    expect(detailOf(verdict, 'order-signature')).toBe('absent (optional)');
  });
});

describe('verifyQuote: the offline quote', () => {
  it('passes every rule, in the documented order, with its solver signature checked', async () => {
    const f = OFFLINE_CASE.facts;
    const verdict = await verifyQuote(caseInput(OFFLINE_CASE));
    expect(failing(verdict)).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.rules.map((r) => r.rule)).toEqual([...VERIFY_RULE_IDS]);
    expect(verdict.orderId).toBe(f.orderId);
    expect(verdict.depositItem).toEqual(f.depositAt);
    expect(detailOf(verdict, 'order-signature').toLowerCase()).toBe(`signed by solver ${f.solver}`);
  });
});

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('verifyQuote on the %s quote', (_name, c) => {
  const f = c.facts;

  describe('untampered', () => {
    it('passes with only the mandatory expectations (user, recipient)', async () => {
      const input = caseInput(c);
      input.expect = { user: f.user.toUpperCase().replace('0X', '0x'), recipient: f.recipient };
      expect(failing(await verifyQuote(input))).toEqual([]);
    });
  });

  describe('output tampering', () => {
    it('recipient: an output payment to a stranger', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.output.payments[0]!.recipient = STRANGER;
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['recipient']);
      expect(detailOf(verdict, 'recipient')).toContain(STRANGER);
    });

    it('min-output: minimumAmount one below minOut (expectedAmount left high)', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.output.payments[0]!.minimumAmount = (f.minOut - 1n).toString();
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['min-output']);
      expect(detailOf(verdict, 'min-output')).toContain((f.minOut - 1n).toString());
    });

    it('min-output: a zero minimumAmount fails even without a minOut expectation', async () => {
      const input = caseInput(c);
      delete input.expect.minOut;
      v2Of(input.quote).orderData.output.payments[0]!.minimumAmount = '0';
      reseal(input);
      expect(failing(await verifyQuote(input))).toEqual(['min-output']);
    });

    it('output-currency: paid in another token', async () => {
      const input = caseInput(c);
      const order = v2Of(input.quote).orderData;
      order.output.payments[0]!.currency = OTHER_TOKEN;
      // a careful attacker moves the destination refund to the new currency too (refund-terms would catch it)
      for (const r of order.inputs[0]!.refunds) if (r.chainId === f.destinationSlug) r.currency = OTHER_TOKEN;
      reseal(input);
      expect(failing(await verifyQuote(input))).toEqual(['output-currency']);
    });

    it('output-chain: paid on the origin chain instead of the destination', async () => {
      const input = caseInput(c);
      const order = v2Of(input.quote).orderData;
      order.output.chainId = f.originSlug;
      // keep the rest consistent: the destination refund and the details name the origin chain too
      for (const r of order.inputs[0]!.refunds) if (r.chainId === f.destinationSlug) r.chainId = f.originSlug;
      input.quote.details.currencyOut.currency.chainId = f.originChainId;
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['output-chain']);
      expect(detailOf(verdict, 'output-chain')).toContain(`${f.originChainId}, expected ${f.destinationChainId}`);
    });

    it('output-chain: a slug unknown to /chains also makes the order id uncomputable', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.output.chainId = 'nowhere';
      delete v2Of(input.quote).orderSignature; // an attacker drops the optional signature that would betray the change
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['deposit-id', 'extra-data', 'order-id', 'output-chain', 'refund-terms']);
      expect(detailOf(verdict, 'deposit-id')).toBe('skipped: order-id failed');
      expect(detailOf(verdict, 'extra-data')).toContain('a chain GET /chains does not list');
      expect(verdict.orderId).toBeNull();
    });
  });

  describe('input tampering', () => {
    it('input-payment: a consistent quote for a different amount', async () => {
      const input = caseInput(c);
      const less = f.amount - 1_000_000n;
      const v2 = v2Of(input.quote);
      v2.orderData.inputs[0]!.payment.amount = less.toString();
      v2.paymentDetails.amount = less.toString();
      // Deposit calldata amount follows, so only the expectation can catch it.
      reseal(input);
      const call = readDepositCall(input.quote, f.depositAt);
      if (call.functionName !== 'depositErc20') throw new Error('test quote deposit is depositErc20');
      writeDepositCall(input.quote, f.depositAt, { functionName: 'depositErc20', args: [call.args[0], call.args[1], less, call.args[3]] });
      writeApprove(input.quote, f.approveAt, f.depository, less);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['input-payment']);
      expect(detailOf(verdict, 'input-payment')).toContain(`${less}, expected ${f.amount}`);
    });

    it('input-payment: paymentDetails.amount disagrees with the order', async () => {
      const input = caseInput(c);
      v2Of(input.quote).paymentDetails.amount = (f.amount + 1n).toString();
      expect(failing(await verifyQuote(input))).toEqual(['input-payment']);
    });

    it('input-payment: origin chain expectation differs', async () => {
      const input = caseInput(c);
      input.expect.originChainId = 1;
      expect(failing(await verifyQuote(input))).toEqual(['input-payment']);
    });

    it('input-payment: two inputs; rules needing the single payment report it as the failed prerequisite', async () => {
      const input = caseInput(c);
      const order = v2Of(input.quote).orderData;
      order.inputs.push(structuredClone(order.inputs[0]!));
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual([
        'approve',
        'approve-needed',
        'approve-spender',
        'chain-status',
        'change',
        'deposit-call',
        'deposit-id',
        'deposit-kind',
        'depositor',
        'depository',
        'details-consistency',
        'fee-cap',
        'fee-floor',
        'input-payment',
        'locktime',
        'miner-fee-cap',
        'no-unexpected-steps',
        'origin-inputs',
        'rbf-signal',
        'refund-terms',
        'tx-size',
      ]);
      expect(detailOf(verdict, 'deposit-call')).toBe('skipped: input-payment failed');
    });

    it('refund-recipient: a refund routed to a stranger', async () => {
      const input = caseInput(c);
      const refunds = v2Of(input.quote).orderData.inputs[0]!.refunds;
      const last = refunds.length - 1;
      refunds[last]!.recipient = STRANGER;
      reseal(input);
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['refund-recipient']);
      expect(detailOf(verdict, 'refund-recipient')).toContain(`inputs[0].refunds[${last}].recipient`);
    });
  });

  describe('deadlines and ids', () => {
    it('deadline: now at the output deadline', async () => {
      const input = caseInput(c);
      input.nowSec = f.outputDeadlineSec;
      expect(failing(await verifyQuote(input))).toEqual(['deadline']);
    });

    it('deadline: output deadline in the past (resealed)', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.output.deadline = f.nowSec - 1;
      reseal(input);
      expect(failing(await verifyQuote(input))).toEqual(['deadline']);
    });

    it('deadline: a refund deadline in the past', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderData.inputs[0]!.refunds[0]!.deadline = f.nowSec;
      reseal(input);
      const verdict = await verifyQuote(input);
      // a refund that lapses before the output deadline also breaks the refund terms
      expect(failing(verdict)).toEqual(['deadline', 'refund-terms']);
      expect(detailOf(verdict, 'deadline')).toContain('inputs[0].refunds[0].deadline');
    });

    it('order-id: protocol.v2.orderId does not hash from orderData', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderId = `0x${'11'.repeat(32)}`;
      delete v2Of(input.quote).orderSignature; // signed over the real id; this test is about the id alone
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['order-id']);
      expect(verdict.orderId).toBe(f.orderId);
    });

    it('order-id: an upper-case orderId still matches', async () => {
      const input = caseInput(c);
      v2Of(input.quote).orderId = `0x${f.orderId.slice(2).toUpperCase()}`;
      expect(failing(await verifyQuote(input))).toEqual([]);
    });
  });

  describe('depository and chain status', () => {
    it('depository: paymentDetails names another depository', async () => {
      const input = caseInput(c);
      v2Of(input.quote).paymentDetails.depository = STRANGER;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['depository']);
      expect(detailOf(verdict, 'depository')).toContain(f.depository);
    });

    it('depository: /chains names another depository, so the quote alone is not trusted', async () => {
      const input = caseInput(c);
      chainById(input, f.originChainId).protocol!.v2!.depository = STRANGER;
      expect(failing(await verifyQuote(input))).toEqual([
        'approve-spender',
        'deposit-call',
        'deposit-id',
        'deposit-kind',
        'depositor',
        'depository',
        'no-unexpected-steps',
      ]);
    });

    it('depository: /chains lists none; deposit rules name it as the failed prerequisite', async () => {
      const input = caseInput(c);
      delete chainById(input, f.originChainId).protocol!.v2!.depository;
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual([
        'approve',
        'approve-needed',
        'approve-spender',
        'change',
        'deposit-call',
        'deposit-id',
        'deposit-kind',
        'depositor',
        'depository',
        'fee-cap',
        'fee-floor',
        'locktime',
        'miner-fee-cap',
        'no-unexpected-steps',
        'origin-inputs',
        'rbf-signal',
        'tx-size',
      ]);
      expect(detailOf(verdict, 'approve')).toBe('skipped: depository failed');
    });

    it.each([
      ['disabled', (ch: Record<string, unknown>) => (ch['disabled'] = true), 'disabled'],
      ['depositEnabled false', (ch: Record<string, unknown>) => (ch['depositEnabled'] = false), 'depositEnabled false'],
    ])('chain-status: origin chain %s', async (_name, mutate, text) => {
      const input = caseInput(c);
      mutate(chainById(input, f.originChainId));
      const verdict = await verifyQuote(input);
      expect(failing(verdict)).toEqual(['chain-status']);
      expect(detailOf(verdict, 'chain-status')).toContain(text);
    });

    it('chain-status: destination chain disabled', async () => {
      const input = caseInput(c);
      chainById(input, f.destinationChainId).disabled = true;
      expect(failing(await verifyQuote(input))).toEqual(['chain-status']);
    });

    it('chain-status: an origin VM without deposit support is reported, deposit rules skipped', async () => {
      const input = caseInput(c);
      chainById(input, f.originChainId).vmType = 'tvm';
      const verdict = await verifyQuote(input);
      expect(detailOf(verdict, 'chain-status')).toBe(`origin chain ${f.originChainId} vmType tvm not supported yet`);
      expect(detailOf(verdict, 'deposit-call')).toBe('skipped: chain-status failed');
      expect(verdict.ok).toBe(false);
    });

    it('protocol-present: without protocol.v2 every rule fails, the others as skipped', async () => {
      const input = caseInput(c);
      delete input.quote.protocol;
      const verdict = await verifyQuote(input);
      expect(verdict.ok).toBe(false);
      expect(verdict.rules).toHaveLength(VERIFY_RULE_IDS.length);
      expect(detailOf(verdict, 'protocol-present')).toContain('includeProtocolData');
      for (const r of verdict.rules.filter((x) => x.rule !== 'protocol-present')) {
        expect(r).toEqual({ rule: r.rule, ok: false, detail: 'skipped: protocol-present failed' });
      }
    });
  });

  describe('programmer errors', () => {
    it('throws VerifyInputError for a fractional nowSec or an empty user', async () => {
      const input = caseInput(c);
      await expect(verifyQuote({ ...input, nowSec: 1.5 })).rejects.toThrow(VerifyInputError);
      await expect(verifyQuote({ ...input, expect: { ...input.expect, user: '' } })).rejects.toThrow(/expect\.user/);
    });
  });
});
