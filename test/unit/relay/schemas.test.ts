/**
 * Shapes the real API sends: `delayed` and statuses Ballast does not know are parsed (non-final), never a parse
 * failure; a chain of GET /chains with an unexpected shape is skipped without taking the others down.
 */
import { describe, expect, it } from 'vitest';
import {
  IntentStatusSchema,
  isKnownRequestStatus,
  isTerminalRequestStatus,
  parseChainsLeniently,
} from '../../../src/relay/schemas.ts';

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
    expect(['waiting', 'depositing', 'pending', 'submitted', 'delayed'].map(isTerminalRequestStatus)).toEqual([false, false, false, false, false]);
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

  it('refuses a body that is not {chains: [...]}', () => {
    expect(() => parseChainsLeniently({ chain: [] })).toThrow();
  });
});
