/**
 * A quote judged on a cached GET /chains list that does not know its depository is judged once more on a
 * fresh list (one refresh, never a loop), and the fresh list alone decides.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createChainsCache } from '../../../packages/ballast/src/relay/chainsCache.ts';
import type { ChainsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { refusalMayBeStaleChains, verifyWithFreshChains } from '../../../packages/ballast/src/cycle/chainsRefresh.ts';
import { OFFLINE_CASE } from '../../fixtures/offlineQuote.ts';

const STRANGER = '0x000000000000000000000000000000000000dead';
const log = pino({ level: 'silent' });

/** `chains` with the origin chain's depository replaced (a list from before the depository changed). */
function withDepository(chains: ChainsResponse, depository: string): ChainsResponse {
  const copy = structuredClone(chains);
  const origin = copy.chains.find((c) => c.id === OFFLINE_CASE.facts.originChainId)!;
  origin.protocol!.v2!.depository = depository; // the offline case's origin chain lists protocol.v2
  return copy;
}

function setup(lists: ChainsResponse[]) {
  let fetches = 0;
  const cache = createChainsCache({
    ttlMs: 300_000,
    fetch: async () => lists[Math.min(fetches++, lists.length - 1)]!,
  });
  return { cache, fetches: () => fetches };
}

describe('verifyWithFreshChains', () => {
  const { quote, chains: current } = OFFLINE_CASE.load();
  const stale = withDepository(current, STRANGER);
  const input = (chains: ChainsResponse) => ({
    quote,
    chains,
    expect: { user: OFFLINE_CASE.facts.user, recipient: OFFLINE_CASE.facts.recipient },
    nowSec: OFFLINE_CASE.facts.nowSec,
  });

  it('an unknown depository on the cached list: one refresh, verified on the fresh list', async () => {
    const { cache, fetches } = setup([stale, current]);
    const cached = await cache.get();
    const r = await verifyWithFreshChains(input(cached), cache, log, { requestId: null });
    expect(r.refreshed).toBe(true);
    expect(r.verdict.ok).toBe(true);
    expect(r.chains).toBe(current);
    expect(fetches()).toBe(2);
    expect(cache.current()).toBe(current);
  });

  it('still unknown on the fresh list: refused on the fresh list, exactly one refresh', async () => {
    const { cache, fetches } = setup([stale, withDepository(current, '0x000000000000000000000000000000000000beef')]);
    const cached = await cache.get();
    const r = await verifyWithFreshChains(input(cached), cache, log, { requestId: null });
    expect(r.refreshed).toBe(true);
    expect(r.verdict.ok).toBe(false);
    expect(r.verdict.rules.find((x) => x.rule === 'depository')?.ok).toBe(false);
    expect(r.verdict.rules.find((x) => x.rule === 'depository')?.detail).toContain('0x000000000000000000000000000000000000beef');
    expect(fetches()).toBe(2);
  });

  it('a quote the cached list accepts fetches nothing', async () => {
    const { cache, fetches } = setup([current]);
    const r = await verifyWithFreshChains(input(await cache.get()), cache, log, { requestId: null });
    expect(r).toMatchObject({ refreshed: false });
    expect(r.verdict.ok).toBe(true);
    expect(fetches()).toBe(1);
  });

  it('a refusal no list can explain (recipient) fetches nothing', async () => {
    const { cache, fetches } = setup([current]);
    const cached = await cache.get();
    const r = await verifyWithFreshChains(
      { ...input(cached), expect: { user: OFFLINE_CASE.facts.user, recipient: STRANGER } },
      cache,
      log,
      { requestId: null },
    );
    expect(r.verdict.ok).toBe(false);
    expect(refusalMayBeStaleChains(r.verdict)).toBe(false);
    expect(r.refreshed).toBe(false);
    expect(fetches()).toBe(1);
  });

  it('a failed refresh keeps the refusal of the cached list', async () => {
    let n = 0;
    const cache = createChainsCache({
      ttlMs: 300_000,
      fetch: async () => {
        if (n++ > 0) throw new Error('unreachable');
        return stale;
      },
    });
    const r = await verifyWithFreshChains(input(await cache.get()), cache, log, { requestId: null });
    expect(r.refreshed).toBe(false);
    expect(r.verdict.ok).toBe(false);
    expect(n).toBe(2);
  });

  it('without a cache the given list decides', async () => {
    const r = await verifyWithFreshChains(input(stale), undefined, log, { requestId: null });
    expect(r.verdict.ok).toBe(false);
    expect(r.refreshed).toBe(false);
  });
});
