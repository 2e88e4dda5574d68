/**
 * verifyQuote on the genuine fixture and on copies tampered in the order itself (output, input, deadlines,
 * order id, depository, chain status). Each tamper must fail exactly the expected rules.
 */
import { describe, expect, it } from 'vitest';
import { VerifyInputError } from '../../../src/verify/errors.ts';
import { VERIFY_RULE_IDS, verifyQuote } from '../../../src/verify/verifyQuote.ts';
import { FIXTURE } from '../../fixtures/relay.ts';
import {
  detailOf,
  failing,
  fixtureInput,
  readDepositCall,
  reseal,
  v2Of,
  writeApprove,
  writeDepositCall,
} from '../../fixtures/quoteTamper.ts';

const STRANGER = '0x000000000000000000000000000000000000dead';

describe('verifyQuote: the genuine fixture', () => {
  it('passes every rule, in the documented order, and locates the deposit item', async () => {
    const verdict = await verifyQuote(fixtureInput());
    expect(failing(verdict)).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.rules.map((r) => r.rule)).toEqual([...VERIFY_RULE_IDS]);
    expect(verdict.orderId).toBe(FIXTURE.orderId);
    expect(verdict.depositItem).toEqual({ stepIndex: 1, itemIndex: 0 });
    expect(detailOf(verdict, 'order-signature')).toBe('absent (optional)');
  });

  it('passes with only the mandatory expectations (user, recipient)', async () => {
    const input = fixtureInput();
    input.expect = { user: FIXTURE.user.toUpperCase().replace('0X', '0x'), recipient: FIXTURE.recipient };
    expect(failing(await verifyQuote(input))).toEqual([]);
  });
});

describe('verifyQuote: output tampering', () => {
  it('recipient: an output payment to a stranger', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.output.payments[0]!.recipient = STRANGER;
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['recipient']);
    expect(detailOf(verdict, 'recipient')).toContain(STRANGER);
  });

  it('min-output: minimumAmount one below minOut (expectedAmount left high)', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.output.payments[0]!.minimumAmount = (FIXTURE.minOut - 1n).toString();
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['min-output']);
    expect(detailOf(verdict, 'min-output')).toContain('97951881');
  });

  it('min-output: a zero minimumAmount fails even without a minOut expectation', async () => {
    const input = fixtureInput();
    delete input.expect.minOut;
    v2Of(input.quote).orderData.output.payments[0]!.minimumAmount = '0';
    reseal(input.quote);
    expect(failing(await verifyQuote(input))).toEqual(['min-output']);
  });

  it('output-currency: paid in another token', async () => {
    const input = fixtureInput();
    const order = v2Of(input.quote).orderData;
    order.output.payments[0]!.currency = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';
    order.inputs[0]!.refunds[1]!.currency = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';
    reseal(input.quote);
    expect(failing(await verifyQuote(input))).toEqual(['output-currency']);
  });

  it('output-chain: paid on Base instead of Arbitrum', async () => {
    const input = fixtureInput();
    const order = v2Of(input.quote).orderData;
    order.output.chainId = 'base';
    order.inputs[0]!.refunds[1]!.chainId = 'base';
    input.quote.details.currencyOut.currency.chainId = 8453;
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['output-chain']);
    expect(detailOf(verdict, 'output-chain')).toContain('8453, expected 42161');
  });

  it('output-chain: a slug unknown to /chains also makes the order id uncomputable', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.output.chainId = 'nowhere';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['deposit-id', 'extra-data', 'order-id', 'output-chain', 'refund-terms']);
    expect(detailOf(verdict, 'deposit-id')).toBe('skipped: order-id failed');
    expect(detailOf(verdict, 'extra-data')).toContain('a chain GET /chains does not list');
    expect(verdict.orderId).toBeNull();
  });
});

describe('verifyQuote: input tampering', () => {
  it('input-payment: a consistent quote for a different amount', async () => {
    const input = fixtureInput();
    const v2 = v2Of(input.quote);
    v2.orderData.inputs[0]!.payment.amount = '99000000';
    v2.paymentDetails.amount = '99000000';
    // Deposit calldata amount follows, so only the expectation can catch it.
    reseal(input.quote);
    const call = readDepositCall(input.quote);
    if (call.functionName !== 'depositErc20') throw new Error('fixture deposit is depositErc20');
    writeDepositCall(input.quote, { functionName: 'depositErc20', args: [call.args[0], call.args[1], 99000000n, call.args[3]] });
    writeApprove(input.quote, FIXTURE.depository, 99000000n);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['input-payment']);
    expect(detailOf(verdict, 'input-payment')).toContain('99000000, expected 100000000');
  });

  it('input-payment: paymentDetails.amount disagrees with the order', async () => {
    const input = fixtureInput();
    v2Of(input.quote).paymentDetails.amount = '100000001';
    expect(failing(await verifyQuote(input))).toEqual(['input-payment']);
  });

  it('input-payment: origin chain expectation differs', async () => {
    const input = fixtureInput();
    input.expect.originChainId = 1;
    expect(failing(await verifyQuote(input))).toEqual(['input-payment']);
  });

  it('input-payment: two inputs; rules needing the single payment report it as the failed prerequisite', async () => {
    const input = fixtureInput();
    const order = v2Of(input.quote).orderData;
    order.inputs.push(structuredClone(order.inputs[0]!));
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([
      'approve',
      'approve-needed',
      'approve-spender',
      'chain-status',
      'deposit-call',
      'deposit-id',
      'deposit-kind',
      'depositor',
      'depository',
      'details-consistency',
      'input-payment',
      'no-unexpected-steps',
      'refund-terms',
    ]);
    expect(detailOf(verdict, 'deposit-call')).toBe('skipped: input-payment failed');
  });

  it('refund-recipient: a refund routed to a stranger', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.inputs[0]!.refunds[1]!.recipient = STRANGER;
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['refund-recipient']);
    expect(detailOf(verdict, 'refund-recipient')).toContain('inputs[0].refunds[1].recipient');
  });
});

describe('verifyQuote: deadlines and ids', () => {
  it('deadline: now at the output deadline', async () => {
    const input = fixtureInput();
    input.nowSec = FIXTURE.outputDeadlineSec;
    expect(failing(await verifyQuote(input))).toEqual(['deadline']);
  });

  it('deadline: output deadline in the past (resealed)', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.output.deadline = FIXTURE.nowSec - 1;
    reseal(input.quote);
    expect(failing(await verifyQuote(input))).toEqual(['deadline']);
  });

  it('deadline: a refund deadline in the past', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.inputs[0]!.refunds[0]!.deadline = FIXTURE.nowSec;
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    // A refund that lapses before the output deadline also breaks the refund terms.
    expect(failing(verdict)).toEqual(['deadline', 'refund-terms']);
    expect(detailOf(verdict, 'deadline')).toContain('inputs[0].refunds[0].deadline');
  });

  it('order-id: protocol.v2.orderId does not hash from orderData', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderId = `0x${'11'.repeat(32)}`;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['order-id']);
    expect(verdict.orderId).toBe(FIXTURE.orderId);
  });

  it('order-id: an upper-case orderId still matches', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderId = `0x${FIXTURE.orderId.slice(2).toUpperCase()}`;
    expect(failing(await verifyQuote(input))).toEqual([]);
  });
});

describe('verifyQuote: depository and chain status', () => {
  it('depository: paymentDetails names another depository', async () => {
    const input = fixtureInput();
    v2Of(input.quote).paymentDetails.depository = STRANGER;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['depository']);
    expect(detailOf(verdict, 'depository')).toContain(FIXTURE.depository);
  });

  it('depository: /chains names another depository, so the quote alone is not trusted', async () => {
    const input = fixtureInput();
    input.chains.chains[0]!.protocol!.v2!.depository = STRANGER;
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
    const input = fixtureInput();
    delete input.chains.chains[0]!.protocol!.v2!.depository;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([
      'approve',
      'approve-needed',
      'approve-spender',
      'deposit-call',
      'deposit-id',
      'deposit-kind',
      'depositor',
      'depository',
      'no-unexpected-steps',
    ]);
    expect(detailOf(verdict, 'approve')).toBe('skipped: depository failed');
  });

  it.each([
    ['disabled', (c: Record<string, unknown>) => (c['disabled'] = true), 'disabled'],
    ['depositEnabled false', (c: Record<string, unknown>) => (c['depositEnabled'] = false), 'depositEnabled false'],
  ])('chain-status: origin chain %s', async (_name, mutate, text) => {
    const input = fixtureInput();
    mutate(input.chains.chains[0]!);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['chain-status']);
    expect(detailOf(verdict, 'chain-status')).toContain(text);
  });

  it('chain-status: destination chain disabled', async () => {
    const input = fixtureInput();
    input.chains.chains[1]!.disabled = true;
    expect(failing(await verifyQuote(input))).toEqual(['chain-status']);
  });

  it('chain-status: an origin VM without deposit support is reported, deposit rules skipped', async () => {
    const input = fixtureInput();
    input.chains.chains[0]!.vmType = 'tvm';
    const verdict = await verifyQuote(input);
    expect(detailOf(verdict, 'chain-status')).toBe('origin chain 8453 vmType tvm not supported yet');
    expect(detailOf(verdict, 'deposit-call')).toBe('skipped: chain-status failed');
    expect(verdict.ok).toBe(false);
  });

  it('protocol-present: without protocol.v2 every rule fails, the others as skipped', async () => {
    const input = fixtureInput();
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

describe('verifyQuote: programmer errors', () => {
  it('throws VerifyInputError for a fractional nowSec or an empty user', async () => {
    const input = fixtureInput();
    await expect(verifyQuote({ ...input, nowSec: 1.5 })).rejects.toThrow(VerifyInputError);
    await expect(verifyQuote({ ...input, expect: { ...input.expect, user: '' } })).rejects.toThrow(/expect\.user/);
  });
});
