import { describe, expect, it } from 'vitest';
import { TAMPER_KINDS, type TamperKind } from '../../../../packages/sandbox/src/faults.ts';
import { STRANGER_ADDRESS, STRANGER_TOKEN, tamperQuote } from '../../../../packages/sandbox/src/quote/tamper.ts';
import { brokenRules, type Expectation } from './ruleCheck.ts';
import { build, counterRandom, NOW_SEC, RECIPIENT, SOLVER, TABLE, USDC, USER, usdcRequest, ZERO } from './fixtures.ts';

const ctx = { chains: TABLE, solver: SOLVER, nowSec: NOW_SEC, random: counterRandom };

async function usdcCase(): Promise<{ q: Awaited<ReturnType<typeof build>>; e: Expectation }> {
  const q = await build();
  const e: Expectation = {
    user: USER,
    recipient: RECIPIENT,
    outSlug: 'beta',
    outCurrency: USDC,
    inCurrency: USDC,
    amountIn: 1_000_000_000n,
    minOutFloor: q.order.minimumOut,
    nowSec: NOW_SEC,
    solver: SOLVER.address,
    chains: TABLE,
    inSlug: 'alpha',
  };
  return { q, e };
}

describe('tamperQuote', () => {
  it('an untampered quote breaks no rule', async () => {
    const { q, e } = await usdcCase();
    expect(await brokenRules(q.response, e)).toEqual([]);
  });

  it.each(TAMPER_KINDS.map((k) => [k]))('ERC-20 input: %s breaks exactly its own rule', async (kind: TamperKind) => {
    const { q, e } = await usdcCase();
    const before = JSON.stringify(q.response);
    const t = await tamperQuote(q.response, kind, ctx);
    expect(t.applied).toBe(true);
    expect(await brokenRules(t.response, e)).toEqual([kind]);
    expect(JSON.stringify(q.response)).toBe(before); // the original is not modified
  });

  it.each(TAMPER_KINDS.filter((k) => !k.startsWith('approve')).map((k) => [k]))(
    'native input: %s breaks exactly its own rule',
    async (kind: TamperKind) => {
      const amount = 10n ** 18n;
      const q = await build(usdcRequest({ originCurrency: ZERO, destinationCurrency: ZERO, amount: amount.toString() }));
      const e: Expectation = {
        user: USER,
        recipient: RECIPIENT,
        outSlug: 'beta',
        outCurrency: ZERO,
        inCurrency: ZERO,
        amountIn: amount,
        minOutFloor: q.order.minimumOut,
        nowSec: NOW_SEC,
        solver: SOLVER.address,
        chains: TABLE,
        inSlug: 'alpha',
      };
      const t = await tamperQuote(q.response, kind, ctx);
      expect(t.applied).toBe(true);
      expect(await brokenRules(t.response, e)).toEqual([kind]);
    },
  );

  it('approve tampers do not apply to native input and say why', async () => {
    const q = await build(usdcRequest({ originCurrency: ZERO, destinationCurrency: ZERO, amount: (10n ** 18n).toString() }));
    const t = await tamperQuote(q.response, 'approveAmount', ctx);
    expect(t.applied).toBe(false);
    expect(t.reason).toMatch(/ERC-20 input/);
    expect(t.response).toEqual(q.response);
  });

  it('changes the named fields to the stranger values', async () => {
    const { q } = await usdcCase();
    const r = (await tamperQuote(q.response, 'recipient', ctx)).response;
    expect(r.protocol!.v2.orderData.output.payments[0]!.recipient).toBe(STRANGER_ADDRESS);
    expect(r.details.recipient).toBe(STRANGER_ADDRESS);
    expect(r.protocol!.v2.orderId).not.toBe(q.response.protocol!.v2.orderId);
    const c = (await tamperQuote(q.response, 'outputCurrency', ctx)).response;
    expect(c.protocol!.v2.orderData.output.payments[0]!.currency).toBe(STRANGER_TOKEN);
    const d = (await tamperQuote(q.response, 'depository', ctx)).response;
    expect(d.protocol!.v2.paymentDetails.depository).toBe(STRANGER_ADDRESS);
    expect(d.steps[1]!.items[0]!.data.to).toBe(STRANGER_ADDRESS);
    expect(d.steps[0]!.items[0]!.data).toEqual(q.response.steps[0]!.items[0]!.data);
    const x = (await tamperQuote(q.response, 'expiredDeadline', ctx)).response;
    expect(x.protocol!.v2.orderData.output.deadline).toBe(NOW_SEC - 60);
  });

  it('reports quotes without protocol.v2 as not tamperable', async () => {
    const q = await build(usdcRequest({ includeProtocolData: false }));
    expect((await tamperQuote(q.response, 'recipient', ctx)).applied).toBe(false);
  });
});
