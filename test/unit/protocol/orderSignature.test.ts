import { isAddressEqual, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { recoverOrderSigner, signOrderId } from '../../../packages/protocol/src/protocol/orderSignature.ts';
import { FIXTURE } from '../../fixtures/relay.ts';

// Throwaway keys generated for these tests; they hold nothing.
const SOLVER_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const OTHER_KEY: Hex = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

describe('order signatures (EIP-191 over the raw 32-byte order id)', () => {
  it('recovers the signer of signOrderId', async () => {
    const solver = privateKeyToAccount(SOLVER_KEY);
    const signature = await signOrderId(solver, FIXTURE.orderId);
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
    const recovered = await recoverOrderSigner(FIXTURE.orderId, signature);
    expect(isAddressEqual(recovered, solver.address)).toBe(true);
  });

  it('signs the raw bytes, not the hex text: same as signMessage({raw}) and unlike signMessage(text)', async () => {
    const solver = privateKeyToAccount(SOLVER_KEY);
    const overText = await solver.signMessage({ message: FIXTURE.orderId });
    const overRaw = await solver.signMessage({ message: { raw: FIXTURE.orderId } });
    expect(await signOrderId(solver, FIXTURE.orderId)).toBe(overRaw);
    expect(overRaw).not.toBe(overText);
  });

  it('does not recover the solver from another key or another order id', async () => {
    const solver = privateKeyToAccount(SOLVER_KEY);
    const other = privateKeyToAccount(OTHER_KEY);
    const byOther = await signOrderId(other, FIXTURE.orderId);
    expect(isAddressEqual(await recoverOrderSigner(FIXTURE.orderId, byOther), solver.address)).toBe(false);

    const bySolver = await signOrderId(solver, FIXTURE.orderId);
    const otherId: Hex = `0x${'00'.repeat(31)}01`;
    expect(isAddressEqual(await recoverOrderSigner(otherId, bySolver), solver.address)).toBe(false);
  });

  it('rejects a malformed signature', async () => {
    await expect(recoverOrderSigner(FIXTURE.orderId, '0x1234')).rejects.toThrow();
  });
});
