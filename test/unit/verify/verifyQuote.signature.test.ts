/**
 * The `order-signature` rule: an optional solver EIP-191 signature over the 32 raw order-id bytes must come
 * from the order's own solver, listed in the payment chain's `solverAddresses` of GET /chains; and the `solver`
 * rule: the order names a solver GET /chains lists for its solverChainId. Runs on every quote case.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { signOrderId } from '../../../packages/protocol/src/protocol/orderSignature.ts';
import { verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import type { VerifyQuoteInput } from '../../../packages/ballast/src/verify/types.ts';
import { OFFLINE_CASE } from '../../fixtures/offlineQuote.ts';
import { QUOTE_CASES, type QuoteCase } from '../../fixtures/quoteCase.ts';
import type { Hex } from 'viem';
import { caseInput, detailOf, failing, reseal, v2Of } from '../../fixtures/quoteTamper.ts';

// anvil's public dev keys 4 and 5: neither signs any test quote (the offline quote's solver is key 1).
const OUR_SOLVER = privateKeyToAccount('0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a');
const INTRUDER = privateKeyToAccount('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba');

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('verifyQuote: order-signature on the %s quote', (_name, c) => {
  const orderId = c.facts.orderId;

  /** The quote as an order of our test solver, listed by /chains on every chain; `id` is its order id. */
  function withOurSolver(qc: QuoteCase): VerifyQuoteInput & { id: Hex } {
    const input = caseInput(qc);
    for (const chain of input.chains.chains) chain.solverAddresses = [OUR_SOLVER.address.toLowerCase()];
    v2Of(input.quote).orderData.solver = OUR_SOLVER.address.toLowerCase();
    return { ...input, id: reseal(input) };
  }

  it('passes a valid signature from a listed solver', async () => {
    const input = withOurSolver(c);
    v2Of(input.quote).orderSignature = await signOrderId(OUR_SOLVER, input.id);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([]);
    expect(detailOf(verdict, 'order-signature')).toBe(`signed by solver ${OUR_SOLVER.address}`);
  });

  it('passes without a signature (it is optional)', async () => {
    const input = caseInput(c);
    delete v2Of(input.quote).orderSignature;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([]);
    expect(detailOf(verdict, 'order-signature')).toBe('absent (optional)');
  });

  it('fails a signature from a key that is not a listed solver', async () => {
    const input = withOurSolver(c);
    v2Of(input.quote).orderSignature = await signOrderId(INTRUDER, input.id);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['order-signature']);
    expect(detailOf(verdict, 'order-signature')).toContain(INTRUDER.address);
  });

  it('fails a listed solver signature over another order id', async () => {
    const input = withOurSolver(c);
    v2Of(input.quote).orderSignature = await signOrderId(OUR_SOLVER, `0x${'33'.repeat(32)}`);
    expect(failing(await verifyQuote(input))).toEqual(['order-signature']);
  });

  it('fails our solver signature when /chains lists only the quote solver', async () => {
    const input = caseInput(c);
    v2Of(input.quote).orderSignature = await signOrderId(OUR_SOLVER, orderId);
    expect(failing(await verifyQuote(input))).toEqual(['order-signature']);
  });

  it('fails a listed solver signing an order that names another solver', async () => {
    const input = caseInput(c);
    for (const chain of input.chains.chains) chain.solverAddresses = [c.facts.solver, OUR_SOLVER.address.toLowerCase()];
    v2Of(input.quote).orderSignature = await signOrderId(OUR_SOLVER, orderId);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['order-signature']);
    expect(detailOf(verdict, 'order-signature').toLowerCase()).toContain(`is not orderdata.solver ${c.facts.solver}`);
  });

  it('solver: an order naming a solver GET /chains does not list', async () => {
    const input = caseInput(c);
    v2Of(input.quote).orderData.solver = INTRUDER.address;
    reseal(input);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['solver']);
    expect(detailOf(verdict, 'solver')).toContain(`orderData.solver ${INTRUDER.address} is not in solverAddresses`);
  });

  it('solver: an order whose solverChainId is not a known chain', async () => {
    const input = caseInput(c);
    v2Of(input.quote).orderData.solverChainId = 'nowhere';
    reseal(input);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['solver']);
    expect(detailOf(verdict, 'solver')).toContain('"nowhere" is not a protocol.v2.chainId');
  });

  it('fails a malformed signature without throwing', async () => {
    const input = withOurSolver(c);
    v2Of(input.quote).orderSignature = '0x1234';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['order-signature']);
    expect(detailOf(verdict, 'order-signature')).toContain('does not recover a signer');
  });
});

describe('verifyQuote: order-signature on the offline quote as served', () => {
  it('the sandbox solver signature fails once /chains stops listing that solver', async () => {
    const input = caseInput(OFFLINE_CASE);
    for (const chain of input.chains.chains) chain.solverAddresses = [OUR_SOLVER.address.toLowerCase()];
    const verdict = await verifyQuote(input);
    // the order still names the sandbox solver, which /chains no longer lists
    expect(failing(verdict)).toEqual(['order-signature', 'solver']);
    expect(detailOf(verdict, 'order-signature').toLowerCase()).toContain(OFFLINE_CASE.facts.solver);
  });
});
