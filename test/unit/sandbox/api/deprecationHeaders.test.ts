/**
 * The sandbox sends Relay's documented deprecation headers on every /quote/v2 response (200, 400, 401, 405, 429,
 * 500) and on no other route (packages/sandbox/src/api/deprecationHeaders.ts,
 * https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3); Ballast's parser reads them back.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { readDeprecationNotice } from '../../../../packages/ballast/src/relay/deprecation.ts';
import { QUOTE_V3_MIGRATION_GUIDE_URL } from '../../../../packages/sandbox/src/api/deprecationHeaders.ts';
import { FaultState } from '../../../../packages/sandbox/src/api/faultState.ts';
import { RequestStore } from '../../../../packages/sandbox/src/api/requestStore.ts';
import { createSandboxApi, type SandboxApi } from '../../../../packages/sandbox/src/api/server.ts';
import type { SandboxState } from '../../../../packages/sandbox/src/api/state.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../../../packages/sandbox/src/quote/fees.ts';
import { GWEI, PRICES, SOLVER, TABLE, usdcRequest } from '../quote/fixtures.ts';

let api: SandboxApi | null = null;
afterEach(async () => {
  await api?.close();
  api = null;
});

async function start(apiKey?: string): Promise<{ url: string; state: SandboxState }> {
  const state: SandboxState = {
    chains: TABLE,
    prices: PRICES,
    pricing: DEFAULT_SANDBOX_PRICING,
    solver: SOLVER,
    apiKey,
    faults: new FaultState(),
    requests: new RequestStore(),
    io: { feeData: async () => ({ maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI / 10n }), balanceOf: async () => 10n ** 24n },
    indexer: null,
    logger: pino({ level: 'silent' }),
    nowMs: () => 1_800_000_000_000,
  };
  api = createSandboxApi(state);
  return { url: await api.listen(), state };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/quote/v2`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** Checks the exact documented headers and that Ballast's parser reads the documented dates and links from them. */
function expectDeprecationHeaders(res: Response, url: string): void {
  expect(res.headers.get('deprecation')).toBe('@1795564800');
  expect(res.headers.get('sunset')).toBe('Tue, 23 Feb 2027 00:00:00 GMT');
  expect(res.headers.get('access-control-expose-headers')).toBe('Deprecation, Sunset, Link');
  expect(res.headers.get('link')).toBe(
    `<${QUOTE_V3_MIGRATION_GUIDE_URL}>; rel="deprecation"; type="text/html", <${QUOTE_V3_MIGRATION_GUIDE_URL}>; rel="sunset"; type="text/html", <${url}/quote/v3>; rel="successor-version"`,
  );
  expect(readDeprecationNotice('POST /quote/v2', res.headers)).toEqual({
    endpoint: 'POST /quote/v2',
    deprecatedAtSec: 1795564800,
    sunsetAtSec: 1803340800,
    links: [
      { rel: 'deprecation', uri: QUOTE_V3_MIGRATION_GUIDE_URL, type: 'text/html' },
      { rel: 'sunset', uri: QUOTE_V3_MIGRATION_GUIDE_URL, type: 'text/html' },
      { rel: 'successor-version', uri: `${url}/quote/v3` },
    ],
    ignored: [],
  });
}

describe('sandbox /quote/v2 deprecation headers', () => {
  it('are on a 200 quote, on 400, 405 and 500 errors and on 429 / 503 bursts', async () => {
    const { url, state } = await start();
    const ok = await post(url, usdcRequest());
    expect(ok.status).toBe(200);
    expectDeprecationHeaders(ok, url);

    const bad = await post(url, { ...usdcRequest(), amount: '0' });
    expect(bad.status).toBe(400);
    expectDeprecationHeaders(bad, url);

    const wrongMethod = await fetch(`${url}/quote/v2`);
    expect(wrongMethod.status).toBe(405);
    expectDeprecationHeaders(wrongMethod, url);

    state.faults.set({ httpErrors: { status: 429, count: 1 } });
    const limited = await post(url, usdcRequest());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expectDeprecationHeaders(limited, url);

    state.faults.set({ httpErrors: { status: 503, count: 1 } });
    const busy = await post(url, usdcRequest());
    expect(busy.status).toBe(503);
    expectDeprecationHeaders(busy, url);

    state.io.feeData = async () => {
      throw new Error('node down');
    };
    const broken = await post(url, usdcRequest());
    expect(broken.status).toBe(500);
    expectDeprecationHeaders(broken, url);
  });

  it('are on a 401 for a missing API key', async () => {
    const { url } = await start('secret-key');
    const res = await post(url, usdcRequest());
    expect(res.status).toBe(401);
    expectDeprecationHeaders(res, url);
  });

  it('are not on other routes', async () => {
    const { url } = await start();
    for (const path of ['/chains', '/requests/v3?user=0x0000000000000000000000000000000000000001', '/quote/v3']) {
      const res = await fetch(`${url}${path}`);
      expect(res.headers.get('deprecation'), path).toBeNull();
      expect(res.headers.get('sunset'), path).toBeNull();
      expect(res.headers.get('link'), path).toBeNull();
    }
  });
});
