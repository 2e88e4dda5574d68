/**
 * The `order-signature` rule: an optional solver EIP-191 signature over the 32 raw order-id bytes must come
 * from the order's own solver, listed in the payment chain's `solverAddresses` of GET /chains; and the
 * `solver` rule: the order names a solver GET /chains lists for its solverChainId.
 */
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { signOrderId } from '../../../src/protocol/orderSignature.ts';
import { verifyQuote } from '../../../src/verify/verifyQuote.ts';
import type { VerifyQuoteInput } from '../../../src/verify/types.ts';
import { FIXTURE } from '../../fixtures/relay.ts';
import { detailOf, failing, fixtureInput, reseal, v2Of } from '../../fixtures/quoteTamper.ts';

// Throwaway keys generated for these tests; they hold nothing.
const SOLVER = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const INTRUDER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');

/** The fixture as an order of our test solver, listed by /chains on every chain; `id` is its order id. */
function withOurSolver(): VerifyQuoteInput & { id: Hex } {
  const input = fixtureInput();
  for (const chain of input.chains.chains) chain.solverAddresses = [SOLVER.address.toLowerCase()];
  v2Of(input.quote).orderData.solver = SOLVER.address.toLowerCase();
  const id = reseal(input.quote, input.chains);
  return { ...input, id };
}

describe('verifyQuote: order-signature', () => {
  it('passes a valid signature from a listed solver', async () => {
    const input = withOurSolver();
    v2Of(input.quote).orderSignature = await signOrderId(SOLVER, input.id);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([]);
    expect(detailOf(verdict, 'order-signature')).toBe(`signed by solver ${SOLVER.address}`);
  });

  it('fails a signature from a key that is not a listed solver', async () => {
    const input = withOurSolver();
    v2Of(input.quote).orderSignature = await signOrderId(INTRUDER, input.id);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['order-signature']);
    expect(detailOf(verdict, 'order-signature')).toContain(INTRUDER.address);
  });

  it('fails a genuine solver signature over another order id', async () => {
    const input = withOurSolver();
    v2Of(input.quote).orderSignature = await signOrderId(SOLVER, `0x${'33'.repeat(32)}`);
    expect(failing(await verifyQuote(input))).toEqual(['order-signature']);
  });

  it('fails our solver signature when /chains lists the real solver only', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderSignature = await signOrderId(SOLVER, FIXTURE.orderId as Hex);
    expect(failing(await verifyQuote(input))).toEqual(['order-signature']);
  });

  it('fails a listed solver signing an order that names another solver', async () => {
    const input = fixtureInput();
    for (const chain of input.chains.chains) chain.solverAddresses = [FIXTURE.solver, SOLVER.address];
    v2Of(input.quote).orderSignature = await signOrderId(SOLVER, FIXTURE.orderId as Hex);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['order-signature']);
    expect(detailOf(verdict, 'order-signature')).toContain(`is not orderData.solver ${FIXTURE.solver}`);
  });

  it('fails a malformed signature without throwing', async () => {
    const input = withOurSolver();
    v2Of(input.quote).orderSignature = '0x1234';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['order-signature']);
    expect(detailOf(verdict, 'order-signature')).toContain('does not recover a signer');
  });
});

describe('verifyQuote: solver', () => {
  it('refuses an order naming a solver GET /chains does not list', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.solver = INTRUDER.address;
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['solver']);
    expect(detailOf(verdict, 'solver')).toContain(`orderData.solver ${INTRUDER.address} is not in solverAddresses`);
  });

  it('refuses an order whose solverChainId is not a known chain', async () => {
    const input = fixtureInput();
    v2Of(input.quote).orderData.solverChainId = 'nowhere';
    reseal(input.quote);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['solver']);
    expect(detailOf(verdict, 'solver')).toContain('"nowhere" is not a protocol.v2.chainId');
  });
});
