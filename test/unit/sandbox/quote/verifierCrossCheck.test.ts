/**
 * Cross-check with Ballast's verifier: an untampered sandbox quote passes every rule, and each tamper kind is
 * refused on its matching rule (docs/relay-contract.md "Local quote verification").
 */
import { describe, expect, it } from 'vitest';
import { ChainsResponseSchema, QuoteResponseSchema } from '../../../../packages/protocol/src/relay/schemas.ts';
import { buildChainsDocument } from '../../../../packages/sandbox/src/api/chainsDocument.ts';
import { TAMPER_KINDS, type TamperKind } from '../../../../packages/sandbox/src/faults.ts';
import { tamperQuote } from '../../../../packages/sandbox/src/quote/tamper.ts';
import { verifyQuote, type VerifyRuleId } from '../../../../packages/ballast/src/verify/verifyQuote.ts';
import { build, counterRandom, NOW_SEC, RECIPIENT, SOLVER, TABLE, USDC, USER, usdcRequest, ZERO } from './fixtures.ts';

const RULE_OF: Record<TamperKind, VerifyRuleId> = {
  recipient: 'recipient',
  minimumAmount: 'min-output',
  outputCurrency: 'output-currency',
  outputChain: 'output-chain',
  paymentAmount: 'input-payment',
  expiredDeadline: 'deadline',
  orderId: 'order-id',
  depository: 'depository',
  depositor: 'depositor',
  depositId: 'deposit-id',
  nativeValue: 'deposit-kind',
  approveAmount: 'approve',
  approveSpender: 'approve-spender',
  approveToken: 'approve-needed',
  approveRouter: 'approve-spender',
  extraStep: 'no-unexpected-steps',
  orderSignature: 'order-signature',
  refundRecipient: 'refund-recipient',
  refundCurrency: 'refund-terms',
  farDeadline: 'deadline-horizon',
  extraData: 'extra-data',
  solver: 'solver',
  paymentWeight: 'payment-weight',
  detailsOutAmount: 'details-consistency',
};

const chains = ChainsResponseSchema.parse(JSON.parse(JSON.stringify(buildChainsDocument(TABLE, SOLVER.address))));

async function verdictFor(native: boolean, kind: TamperKind | null) {
  const amount = native ? 10n ** 18n : 1_000_000_000n;
  const currency = native ? ZERO : USDC;
  const built = await build(usdcRequest({ originCurrency: currency, destinationCurrency: currency, amount: amount.toString() }));
  const served = kind
    ? (await tamperQuote(built.response, kind, { chains: TABLE, solver: SOLVER, nowSec: NOW_SEC, random: counterRandom })).response
    : built.response;
  return verifyQuote({
    quote: QuoteResponseSchema.parse(JSON.parse(JSON.stringify(served))),
    chains,
    expect: {
      user: USER,
      recipient: RECIPIENT,
      originChainId: 31001,
      originCurrency: currency,
      amount,
      destinationChainId: 31002,
      destinationCurrency: currency,
      minOut: built.order.minimumOut,
    },
    nowSec: NOW_SEC,
  });
}

describe('sandbox quotes against Ballast verifier', () => {
  it.each([[false], [true]])('untampered quote passes every rule (native=%s)', async (native) => {
    const v = await verdictFor(native, null);
    expect(v.rules.filter((r) => !r.ok)).toEqual([]);
    expect(v.ok).toBe(true);
  });

  it.each(TAMPER_KINDS.map((k) => [k]))('ERC-20 quote tampered with %s is refused on its rule', async (kind: TamperKind) => {
    const v = await verdictFor(false, kind);
    expect(v.ok).toBe(false);
    expect(v.rules.filter((r) => !r.ok).map((r) => r.rule)).toContain(RULE_OF[kind]);
  });

  it.each(TAMPER_KINDS.filter((k) => !k.startsWith('approve')).map((k) => [k]))(
    'native quote tampered with %s is refused on its rule',
    async (kind: TamperKind) => {
      const v = await verdictFor(true, kind);
      expect(v.ok).toBe(false);
      expect(v.rules.filter((r) => !r.ok).map((r) => r.rule)).toContain(RULE_OF[kind]);
    },
  );
});
