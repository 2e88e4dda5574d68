/**
 * Shapes the real API sends: `delayed` and statuses Ballast does not know are parsed (non-final), never a parse
 * failure; a chain of GET /chains with an unexpected shape is skipped without taking the others down; contract
 * groups of every router generation (`v3`, `v3.2`) are kept.
 */
import { describe, expect, it } from 'vitest';
import {
  ChainsResponseSchema,
  IntentStatusSchema,
  isKnownRequestStatus,
  isTerminalRequestStatus,
  parseChainsLeniently,
} from '../../../packages/protocol/src/relay/schemas.ts';
import { GENUINE_V3_CONTRACTS, ROUTER_32_CONTRACTS } from '../../fixtures/relay.ts';

function chain(id: number, name: string) {
  return {
    id,
    name,
    vmType: 'evm',
    currency: { symbol: 'ETH', address: '0x0000000000000000000000000000000000000000', decimals: 18 },
    protocol: { v2: { chainId: name, depository: '0x4cd00e387622c35bddb9b4c962c136462338bc31' } },
  };
}

describe('IntentStatusSchema', () => {
  it.each(['delayed', 'fallback', 'some-future-status'])('parses status %s with extra fields kept, as non-final', (status) => {
    const parsed = IntentStatusSchema.parse({
      status,
      inTxHashes: ['0xa'],
      txHashes: [],
      updatedAt: 1,
      failReason: 'N/A',
      refundFailReason: 'N/A',
      somethingNew: { nested: true },
    });
    expect(parsed.status).toBe(status);
    expect(parsed.failReason).toBe('N/A');
    expect(parsed['somethingNew']).toEqual({ nested: true });
    expect(isTerminalRequestStatus(parsed.status)).toBe(false);
  });

  it('knows the spec statuses and delayed; only success, failure and refund are terminal', () => {
    expect(['waiting', 'depositing', 'pending', 'submitted', 'delayed'].map(isTerminalRequestStatus)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(['success', 'failure', 'refund'].map(isTerminalRequestStatus)).toEqual([true, true, true]);
    expect(isKnownRequestStatus('delayed')).toBe(true);
    expect(isKnownRequestStatus('fallback')).toBe(false);
  });

  it('still refuses an empty or missing status', () => {
    expect(IntentStatusSchema.safeParse({ status: '' }).success).toBe(false);
    expect(IntentStatusSchema.safeParse({ inTxHashes: [] }).success).toBe(false);
  });
});

describe('parseChainsLeniently', () => {
  it('skips a chain with an unexpected shape and keeps the others', () => {
    const broken = { ...chain(2, 'broken'), currency: { symbol: 'X' } };
    const { chains, skipped } = parseChainsLeniently({ chains: [chain(1, 'one'), broken, 'not a chain', chain(3, 'three')] });
    expect(chains.chains.map((c) => c.id)).toEqual([1, 3]);
    expect(skipped.map((s) => [s.index, s.id])).toEqual([
      [1, 2],
      [2, undefined],
    ]);
    expect(skipped[0]!.reason).toContain('currency.address');
  });

  it('keeps both router generations of a chain, contracts.v3 and contracts["v3.2"] (Router 3.2), as sent', () => {
    const contracts = {
      multicall3: '0xca11bde05977b3631167028862be2a173976ca11',
      erc20Router: ROUTER_32_CONTRACTS.erc20Router,
      approvalProxy: ROUTER_32_CONTRACTS.approvalProxy,
      v3: { ...GENUINE_V3_CONTRACTS },
      'v3.2': { ...ROUTER_32_CONTRACTS },
    };
    const body = { chains: [{ ...chain(8453, 'base'), contracts }, chain(42161, 'arbitrum')] };
    const { chains, skipped } = parseChainsLeniently(body);
    expect(skipped).toEqual([]);
    expect(chains.chains[0]!.contracts).toEqual(contracts);
    expect(ChainsResponseSchema.parse(body).chains[0]!.contracts?.['v3.2']).toEqual(ROUTER_32_CONTRACTS);
  });

  it('refuses a body that is not {chains: [...]}', () => {
    expect(() => parseChainsLeniently({ chain: [] })).toThrow();
  });
});
