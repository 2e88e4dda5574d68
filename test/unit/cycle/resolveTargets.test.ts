import { describe, expect, it } from 'vitest';
import { decimalsFromChains } from '../../../packages/ballast/src/cycle/resolveTargets.ts';
import { QUOTE_CASES } from '../../fixtures/quoteCase.ts';

const upper = (address: string) => `0x${address.slice(2).toUpperCase()}`;

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('decimalsFromChains on the %s /chains document', (_name, c) => {
  const f = c.facts;

  it('finds ERC-20 and native decimals of the right chain, case-insensitively', () => {
    const { chains } = c.load();
    expect(decimalsFromChains(chains, f.originChainId, upper(f.originCurrency))).toBe(f.originDecimals);
    expect(decimalsFromChains(chains, f.originChainId, '0x0000000000000000000000000000000000000000')).toBe(18);
    expect(decimalsFromChains(chains, f.destinationChainId, f.destinationCurrency)).toBe(f.destinationDecimals);
  });

  it('returns null for a token listed only on another chain, or an unknown chain', () => {
    const { chains } = c.load();
    const destination = chains.chains.find((x) => x.id === f.destinationChainId)!; // every case lists its destination
    destination.erc20Currencies = [];
    destination.solverCurrencies = [];
    expect(decimalsFromChains(chains, f.destinationChainId, f.originCurrency)).toBeNull();
    expect(decimalsFromChains(chains, f.originChainId, f.originCurrency)).toBe(f.originDecimals);
    expect(decimalsFromChains(chains, 1, f.originCurrency)).toBeNull();
  });
});
