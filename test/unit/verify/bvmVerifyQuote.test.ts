/**
 * verifyQuote end to end on Bitcoin-origin quotes: routed by the deposit registry to the bvm checker, an
 * honest quote passes every rule of the verdict (order rules included), and tampering in the PSBT, missing
 * origin facts or a tighter fee cap are refused through the same entry point callers use.
 */
import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import { failing } from '../../fixtures/quoteTamper.ts';
import { buildPsbt, bvmCase, bvmQuote, standardSpec, strangerAddress, testWallet, verifyInput } from '../../fixtures/bvmQuote.ts';

const WALLETS = [testWallet('p2wpkh', 'regtest'), testWallet('p2tr', 'bitcoin')];

describe.each(WALLETS.map((w) => [w.name, w] as const))('verifyQuote on a Bitcoin-origin quote, %s wallet', (_name, wallet) => {
  const c = bvmCase(wallet);
  const honest = () => verifyInput(c, bvmQuote(c, buildPsbt(c, standardSpec(c)).toHex()));

  it('the honest quote passes every rule', async () => {
    const verdict = await verifyQuote(honest());
    expect(failing(verdict)).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.orderId).toBe(c.orderId);
    expect(verdict.depositItem).toEqual({ stepIndex: 0, itemIndex: 0 });
  });

  it('change sent to a stranger is refused by change alone', async () => {
    const spec = standardSpec(c);
    spec.outputs[2] = { ...spec.outputs[2]!, script: strangerAddress(wallet.network).script };
    const verdict = await verifyQuote(verifyInput(c, bvmQuote(c, buildPsbt(c, spec).toHex())));
    expect(failing(verdict)).toEqual(['change']);
  });

  it('without our unspent outputs the quote is refused by origin-inputs', async () => {
    const input = honest();
    delete input.origin;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['origin-inputs']);
  });

  it('limits given to verifyQuote reach the checker (fee cap of 5 sat/vB)', async () => {
    const verdict = await verifyQuote({ ...honest(), limits: { bvmMaxFeeRateSatPerVb: 5 } });
    expect(failing(verdict)).toEqual(['fee-cap']);
  });

  it('an order re-pointed at another recipient fails order-id and deposit-id (the PSBT names the old order)', async () => {
    const input = honest();
    input.quote.protocol!.v2!.orderData.output.payments[0]!.recipient = '0x000000000000000000000000000000000000dead';
    input.expect.recipient = '0x000000000000000000000000000000000000dead';
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['deposit-id', 'order-id']);
  });
});
