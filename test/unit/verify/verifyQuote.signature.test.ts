/**
 * The `order-signature` rule: an optional solver EIP-191 signature over the 32 raw order-id bytes must come
 * from an address in the payment chain's `solverAddresses` of GET /chains.
 */
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { signOrderId } from '../../../src/protocol/orderSignature.ts';
import { verifyQuote } from '../../../src/verify/verifyQuote.ts';
import type { VerifyQuoteInput } from '../../../src/verify/types.ts';
import { FIXTURE } from '../../fixtures/relay.ts';
import { detailOf, failing, fixtureInput, v2Of } from '../../fixtures/quoteTamper.ts';

// Throwaway keys generated for these tests; they hold nothing.
const SOLVER = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const INTRUDER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');

/** The fixture with /chains listing our test solver key on every chain. */
function withOurSolver(): VerifyQuoteInput {
  const input = fixtureInput();
  for (const chain of input.chains.chains) chain.solverAddresses = [SOLVER.address.toLowerCase()];
  return input;
}

describe('verifyQuote: order-signature', () => {
  it('passes a valid signature from a listed solver', async () => {
    const input = withOurSolver();
    v2Of(input.quote).orderSignature = await signOrderId(SOLVER, FIXTURE.orderId as Hex);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([]);
    expect(detailOf(verdict, 'order-signature')).toBe(`signed by solver ${SOLVER.address}`);
  });

  it('fails a signature from a key that is not a listed solver', async () => {
    const input = withOurSolver();
    v2Of(input.quote).orderSignature = await signOrderId(INTRUDER, FIXTURE.orderId as Hex);
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

  it('fails a malformed signature without throwing', async () => {
    const input = withOurSolver();
    v2Of(input.quote).orderSignature = '0x1234';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['order-signature']);
    expect(detailOf(verdict, 'order-signature')).toContain('does not recover a signer');
  });
});
