/**
 * verifyQuote on Solana-origin quotes, routed by the deposit registry to the Solana checker: every rule passes on
 * a valid native and token quote with `origin.lookupTables`, and deposit tampering is reported in the verdict.
 */
import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import { failing, detailOf } from '../../fixtures/quoteTamper.ts';
import {
  depositInstruction,
  readInstructions,
  SVM_LOOKUP_TABLE,
  SVM_STRANGER,
  svmQuoteInput,
  writeInstructions,
} from '../../fixtures/svmQuote.ts';

describe.each(['native', 'token'] as const)('verifyQuote on a Solana-origin %s quote', (kind) => {
  it('passes every rule', async () => {
    const { input, facts } = svmQuoteInput(kind);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.orderId).toBe(facts.orderId);
    expect(verdict.depositItem).toEqual({ stepIndex: 0, itemIndex: 0 });
    expect(detailOf(verdict, 'deposit-call')).toContain(`deposit_${kind}`);
  });

  it('refuses a deposit crediting a stranger (depositor only)', async () => {
    const { input, facts } = svmQuoteInput(kind);
    const ixs = readInstructions(input.quote);
    const at = ixs.findIndex((ix) => ix.data.length === 48);
    ixs[at] = depositInstruction({ kind, amount: facts.amount, id: facts.orderId, depositor: SVM_STRANGER });
    writeInstructions(input.quote, ixs);
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['depositor']);
    expect(verdict.ok).toBe(false);
  });

  it('refuses when the lookup tables were not read on chain (tx-size)', async () => {
    const { input } = svmQuoteInput(kind);
    delete input.origin;
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(['tx-size']);
    expect(detailOf(verdict, 'tx-size')).toContain(SVM_LOOKUP_TABLE);
  });

  it('takes the caps from input.limits (fee-cap)', async () => {
    const { input } = svmQuoteInput(kind);
    input.limits = { svmMaxComputeUnits: 100_000 };
    const verdict = await verifyQuote(input);
    expect(failing(verdict)).toEqual(kind === 'token' ? ['fee-cap'] : []);
  });
});
