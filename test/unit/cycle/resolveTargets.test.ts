import { describe, expect, it } from 'vitest';
import { decimalsFromChains } from '../../../src/cycle/resolveTargets.ts';
import { loadChainsFixture } from '../../fixtures/relay.ts';

const chains = loadChainsFixture();

describe('decimalsFromChains', () => {
  it('finds ERC-20 and native decimals of the right chain, case-insensitively', () => {
    expect(decimalsFromChains(chains, 8453, '0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913')).toBe(6);
    expect(decimalsFromChains(chains, 8453, '0x0000000000000000000000000000000000000000')).toBe(18);
    expect(decimalsFromChains(chains, 42161, '0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9')).toBe(6);
  });

  it('returns null for a token listed only on another chain, or an unknown chain', () => {
    expect(decimalsFromChains(chains, 42161, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913')).toBeNull();
    expect(decimalsFromChains(chains, 1, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913')).toBeNull();
  });
});
