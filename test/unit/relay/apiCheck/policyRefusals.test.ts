/**
 * How api-check tells a working endpoint whose quotes a cycle would skip (src/relay/apiCheck/apiCheck.ts): the endpoint
 * line stays `usable` and counts the skipped routes; one warning per route and kind lists the endpoints that quoted
 * it, naming the config key for a cap and saying no setting helps when the quote cannot be priced.
 */
import { describe, expect, it } from 'vitest';
import { renderApiCheckLine, renderPolicyRefusals, type EndpointReport } from '../../../../packages/ballast/src/relay/apiCheck/apiCheck.ts';

const CAP = "total fee 1.10235 USD (110.23 bps of 100 USD) exceeds cap 30 bps; raise policy.maxFees.totalBps or the route's minTransfer";
const UNPRICED = 'the origin cost of this quote is unknown (the quote has no fees.gas (origin gas estimate))';

function endpoint(name: string, refusals: EndpointReport['policyRefusals']): EndpointReport {
  return {
    endpoint: name,
    usable: true,
    reachable: true,
    keyAccepted: true,
    parsed: { ok: 2, of: 2 },
    verified: { ok: 2, of: 2 },
    headers: {},
    ...(refusals ? { policyRefusals: refusals } : {}),
  };
}

describe('api-check policy refusals', () => {
  it('keeps the endpoint usable, counts the routes, and warns once per route with every endpoint that quoted it', () => {
    const v2 = endpoint('POST /quote/v2', [{ label: 'USDC alpha→beta', kind: 'caps', detail: CAP }]);
    const v3 = endpoint('POST /quote/v3', [
      { label: 'USDC alpha→beta', kind: 'caps', detail: CAP },
      { label: 'USDC beta→alpha', kind: 'unpriced', detail: UNPRICED },
    ]);
    expect(renderApiCheckLine(v3)).toBe(
      'POST /quote/v3: usable; reachable yes; key accepted; schema parsed 2/2; verification 2/2 verified; Deprecation -; Sunset -; a cycle would skip 2 of 2 verified routes (below)',
    );
    expect(renderPolicyRefusals([endpoint('GET /chains', undefined), v2, v3])).toEqual([
      `warning: your policy refuses USDC alpha→beta on POST /quote/v2, POST /quote/v3 (the endpoints work): ${CAP}`,
      `warning: a cycle on POST /quote/v3 would skip USDC beta→alpha whatever the caps (the endpoint works, but the quote lacks what the fee policy needs): ${UNPRICED}`,
    ]);
    expect(renderPolicyRefusals([v2].map((e) => ({ ...e, policyRefusals: undefined })))).toEqual([]);
  });
});
