/**
 * The real quotes gathered in `real/` beside the genuine fixtures (its README gives each one's verdict): the one
 * it marks verified still verifies under every rule, and those it marks refused stay refused on the rules that
 * describe why (origin swaps through the v3 ApprovalProxy, deposit-address flows). GET /chains is the assembled
 * public-facts document plus the v3 router and approval proxy real GET /chains lists. Skipped when absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChainsResponseSchema, QuoteResponseSchema, type ChainsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { verifyQuote } from '../../../packages/ballast/src/verify/verifyQuote.ts';
import { failing } from '../../fixtures/quoteTamper.ts';
import { GENUINE_V3_CONTRACTS, relayFixturesDir, relayFixturesPresent } from '../../fixtures/relay.ts';

const REAL = path.join(relayFixturesDir, 'real');
const present = relayFixturesPresent && existsSync(path.join(REAL, 'chains-ASSEMBLED-public-facts.json'));

function read(name: string): unknown {
  return JSON.parse(readFileSync(path.join(REAL, name), 'utf8'));
}

function chains(): ChainsResponse {
  const doc = ChainsResponseSchema.parse(read('chains-ASSEMBLED-public-facts.json'));
  for (const chain of doc.chains) if (chain.vmType === 'evm') chain.contracts = { v3: { ...GENUINE_V3_CONTRACTS } };
  return doc;
}

async function verdictOf(name: string, nowSec: number, opts: { refundToUser?: boolean } = {}) {
  const quote = QuoteResponseSchema.parse(read(name));
  const order = quote.protocol!.v2!.orderData;
  const recipient = order.output.payments[0]!.recipient;
  const user = quote.details.sender ?? recipient;
  return verifyQuote({ quote, chains: chains(), expect: { user, recipient, ...(opts.refundToUser ? { refundTo: user } : {}) }, nowSec });
}

describe.skipIf(!present)('real quotes from real/', () => {
  it('the price-stabilization quote (README: verified) passes every rule', async () => {
    const verdict = await verdictOf('relay-docs-price-stabilization-L696-base-usdc-to-arbitrum-usdt.json', 1777339000);
    expect(failing(verdict)).toEqual([]);
    expect(verdict.ok).toBe(true);
  });

  it('the price-stabilization quote also passes when Ballast expects refundTo = the user (its origin refund pays the user)', async () => {
    const verdict = await verdictOf('relay-docs-price-stabilization-L696-base-usdc-to-arbitrum-usdt.json', 1777339000, {
      refundToUser: true,
    });
    expect(failing(verdict)).toEqual([]);
    expect(verdict.rules.find((r) => r.rule === 'refund-terms')?.detail).toContain('origin refunds pay refundTo');
  });

  it('the origin swap through the v3 ApprovalProxy (README: refused) is refused, its approval among the reasons', async () => {
    const verdict = await verdictOf('UNATTRIBUTED-base-nvdac-to-robinhood-musegod-originswap-v3router.json', 1791639000);
    expect(verdict.ok).toBe(false);
    expect(failing(verdict)).toEqual(expect.arrayContaining(['approve-spender', 'deposit-call', 'no-unexpected-steps']));
  });

  it.each([
    'relay-docs-deposit-addresses-L94-base-eth-to-optimism-depositaddress.json',
    'relay-docs-deposit-addresses-L489-base-eth-to-optimism-depositaddress.json',
  ])('the deposit-address quote %s (README: refused, not verifiable) is refused', async (name) => {
    const quote = QuoteResponseSchema.parse(read(name));
    const verdict = await verdictOf(name, quote.protocol!.v2!.orderData.output.deadline - 60);
    expect(verdict.ok).toBe(false);
    expect(failing(verdict)).toEqual(expect.arrayContaining(['deposit-call', 'no-unexpected-steps']));
  });
});
