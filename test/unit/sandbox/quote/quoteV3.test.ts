/**
 * The sandbox's /quote/v3 body (packages/sandbox/src/quote/quoteV3.ts) from the offline /quote/v2 body: flat steps, no
 * `from`, GET /requests/v3-style fees in the input currency; Ballast's v3 mapping turns it back into a quote the
 * real verifier passes, with the same fee breakdown.
 */
import { describe, expect, it } from 'vitest';
import { extractFees } from '../../../../packages/ballast/src/policy/feeBreakdown.ts';
import { mapQuoteV3 } from '../../../../packages/ballast/src/relay/quoteApi/v3.ts';
import { toQuoteV3 } from '../../../../packages/sandbox/src/quote/quoteV3.ts';
import type { AnyStepDataJson, SandboxQuoteResponse } from '../../../../packages/sandbox/src/quote/types.ts';
import { verifyQuote } from '../../../../packages/ballast/src/verify/verifyQuote.ts';
import { offlineQuote, offlineQuoteJson, OFFLINE_CASE } from '../../../fixtures/offlineQuote.ts';
import { caseInput } from '../../../fixtures/quoteTamper.ts';

const v2 = () => offlineQuoteJson().quote as SandboxQuoteResponse<AnyStepDataJson>; // the sandbox's own v2 body

describe('toQuoteV3', () => {
  it('serves flat steps and requests/v3 fees that map back to a verifiable quote', async () => {
    const body = toQuoteV3(v2(), OFFLINE_CASE.facts.user);
    expect(body.steps.map((s) => s.id)).toEqual(['approve', 'deposit']);
    expect(body.steps.every((s) => !('items' in s) && !('from' in (s.data as object)) && s.status === 'incomplete')).toBe(true);
    expect(Object.keys(body.fees.quoted).sort()).toEqual(['app', 'execution', 'platform', 'sponsored', 'swap']);
    expect(body.fees.currency.address).toBe(v2().details.currencyIn.currency.address);
    // 1000 USDC at 1 USD: a component's amount is its USD value in USDC base units.
    const execution = body.fees.quoted.execution;
    expect(BigInt(execution.amount)).toBe(-BigInt(Math.round(Number(execution.usd) * 1e6)));
    expect(body.protocol?.v2.orderId).toBe(v2().protocol?.v2.orderId);

    const { quote } = mapQuoteV3(JSON.parse(JSON.stringify(body)), { user: OFFLINE_CASE.facts.user });
    expect(extractFees(quote.details).breakdown).toEqual(extractFees(offlineQuote().quote.details).breakdown);
    const verdict = await verifyQuote({ ...caseInput(OFFLINE_CASE), quote });
    expect(verdict.rules.filter((r) => !r.ok)).toEqual([]);
  });

  it('leaves protocol out when the v2 body has none (request without includeProtocolData)', () => {
    const { protocol: _p, ...noProtocol } = v2();
    const body = toQuoteV3(noProtocol, OFFLINE_CASE.facts.user);
    expect('protocol' in body).toBe(false);
    expect(() => mapQuoteV3(JSON.parse(JSON.stringify(body)), { user: OFFLINE_CASE.facts.user })).toThrow(/has no protocol\.v2/);
  });
});
