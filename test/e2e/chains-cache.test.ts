/**
 * GET /chains and token decimals on the sandbox: an idle daemon-like run of many cycles fetches the chain list
 * once and reads each token's decimals once; the list is fetched again after `relay.chainsCacheSec`; a quote
 * naming a depository the cached list does not know causes exactly one refresh and is judged on the fresh list.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Ballast } from '../../packages/ballast/src/app/createBallast.ts';
import type { ChainAdapter } from '../../packages/ballast/src/chains/adapter.ts';
import { createChainsCache } from '../../packages/ballast/src/relay/chainsCache.ts';
import type { ChainsResponse } from '../../packages/protocol/src/relay/schemas.ts';
import { DEMO_BALANCES } from '../../packages/sandbox/src/chains/localChains.ts';
import { ballastOnSandbox, sandboxPerTest, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-chains-cache-');
afterAll(() => tmp.cleanup());
const sandboxes = sandboxPerTest();

/** GET /chains requests the instance sent (its own HTTP counter, every attempt and status). */
async function chainsRequests(ballast: Ballast): Promise<number> {
  const metric = await ballast.metrics.relayHttpRequestsTotal.get();
  return metric.values.filter((v) => v.labels.endpoint === 'GET /chains').reduce((n, v) => n + v.value, 0);
}

/** Counts the currencies each adapter is asked the decimals of, per `chain:currency`. */
function countDecimalReads(ballast: Ballast): Map<string, number> {
  const reads = new Map<string, number>();
  for (const adapter of ballast.ctx.chains.values()) {
    const original = adapter.readDecimals.bind(adapter);
    (adapter as { readDecimals: ChainAdapter['readDecimals'] }).readDecimals = async (currencies) => {
      for (const c of currencies)
        reads.set(`${adapter.name}:${c.toLowerCase()}`, (reads.get(`${adapter.name}:${c.toLowerCase()}`) ?? 0) + 1);
      return original(currencies);
    };
  }
  return reads;
}

const IN_BAND = {
  ...DEMO_BALANCES,
  alpha: { ...DEMO_BALANCES.alpha, treasury: { ...DEMO_BALANCES.alpha!.treasury, usdc: '50000' } },
  beta: { ...DEMO_BALANCES.beta, treasury: { ...DEMO_BALANCES.beta!.treasury, usdc: '30000' } },
};
const TWO_TOKENS = {
  USDC: [
    { chain: 'alpha', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
    { chain: 'beta', currency: '${SANDBOX_USDC}', wallet: 'treasury', min: '20000', target: '30000', max: '45000' },
  ],
  USDT: [
    { chain: 'alpha', currency: '${SANDBOX_USDT}', wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
    { chain: 'beta', currency: '${SANDBOX_USDT}', wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
  ],
};

describe('GET /chains cache and decimals cache on the sandbox', () => {
  it('20 idle cycles: one GET /chains and one decimals read per token; again after chainsCacheSec', async () => {
    const sandbox = await sandboxes.start({ balances: IN_BAND });
    let nowMs = Date.now();
    const { ballast } = ballastOnSandbox(
      sandbox,
      tmp.dir,
      { assets: TWO_TOKENS, relay: { chainsCacheSec: 300 } },
      {},
      { now: () => nowMs },
    );
    sandboxes.closeAfter(() => ballast.close());
    const decimalReads = countDecimalReads(ballast);
    for (let i = 0; i < 20; i++) {
      const report = await ballast.runCycle('daemon');
      expect(report.outcome).toBe('ok');
      expect(report.plan.transfers).toEqual([]);
      expect(report.targets).toHaveLength(4);
      nowMs += 10_000; // 20 cycles 10 s apart: 200 s, inside the 300 s TTL
    }
    expect(await chainsRequests(ballast)).toBe(1);
    const alpha = sandbox.chains.find((c) => c.def.slug === 'alpha')!;
    const beta = sandbox.chains.find((c) => c.def.slug === 'beta')!;
    expect(Object.fromEntries(decimalReads)).toEqual({
      [`alpha:${alpha.usdc.toLowerCase()}`]: 1,
      [`alpha:${alpha.usdt.toLowerCase()}`]: 1,
      [`beta:${beta.usdc.toLowerCase()}`]: 1,
      [`beta:${beta.usdt.toLowerCase()}`]: 1,
    });
    nowMs += 100_000; // 300 s after the fetch: the list is fetched again, decimals are not read again
    expect((await ballast.runCycle('daemon')).outcome).toBe('ok');
    expect(await chainsRequests(ballast)).toBe(2);
    expect([...decimalReads.values()]).toEqual([1, 1, 1, 1]);
  });

  it('chainsCacheSec 0 fetches the list every cycle', async () => {
    const sandbox = await sandboxes.start({ balances: IN_BAND });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { assets: TWO_TOKENS, relay: { chainsCacheSec: 0 } });
    sandboxes.closeAfter(() => ballast.close());
    for (let i = 0; i < 3; i++) expect((await ballast.runCycle('daemon')).outcome).toBe('ok');
    expect(await chainsRequests(ballast)).toBe(3);
  });

  it('a cached list that does not know the quote depository: one refresh, the quote verified on the fresh list and executed', async () => {
    const sandbox = await sandboxes.start();
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    sandboxes.closeAfter(() => ballast.close());
    const alpha = sandbox.chains.find((c) => c.def.slug === 'alpha')!;
    // The first list fetched is one from before alpha's depository changed; every later fetch is the sandbox's own.
    let fetched = 0;
    ballast.ctx.chainsCache = createChainsCache({
      ttlMs: 300_000,
      fetch: async () => {
        const { chains } = await ballast.relay.getChains();
        return fetched++ === 0 ? withDepository(chains, alpha.def.chainId, '0x000000000000000000000000000000000000dEaD') : chains;
      },
    });
    const report = await ballast.runCycle('once');
    expect(report.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect(report.attempts[0]!.verdict?.rules.find((r) => r.rule === 'depository')?.detail).toContain(alpha.depository.toLowerCase());
    expect(await chainsRequests(ballast)).toBe(2);
    expect(await usdcBalance(sandbox, 'alpha')).toBe(70_000n * 1_000_000n);
  });

  it('a quote naming an unknown depository: one refresh, refused on the fresh list, nothing signed; no refetch after', async () => {
    const sandbox = await sandboxes.start({ faults: { tamper: 'depository', tamperCount: 1 } });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    sandboxes.closeAfter(() => ballast.close());
    const nonce = await treasuryNonce(sandbox, 'alpha');
    const refused = await ballast.runCycle('once');
    expect(refused.attempts.map((a) => a.outcome)).toEqual(['refused_verification']);
    expect(refused.attempts[0]!.verdict?.rules.filter((r) => !r.ok).map((r) => r.rule)).toContain('depository');
    expect(await chainsRequests(ballast)).toBe(2);
    expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce);
    const next = await ballast.runCycle('once'); // an honest quote: judged on the refreshed list, no request
    expect(next.attempts.map((a) => a.outcome)).toEqual(['success']);
    expect(await chainsRequests(ballast)).toBe(2);
  });
});

/** `chains` with chain `id`'s `protocol.v2.depository` replaced. */
function withDepository(chains: ChainsResponse, id: number, depository: string): ChainsResponse {
  const copy = structuredClone(chains);
  copy.chains.find((c) => c.id === id)!.protocol!.v2!.depository = depository; // the sandbox lists protocol.v2 for its chains
  return copy;
}
