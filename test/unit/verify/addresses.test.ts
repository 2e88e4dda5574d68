import { describe, expect, it } from 'vitest';
import { nativeCurrencyOf, sameAddress } from '../../../src/verify/addresses.ts';
import { contractAddresses, depositoryOf, indexChains } from '../../../src/verify/chainsIndex.ts';
import { loadChainsFixture } from '../../fixtures/relay.ts';

describe('sameAddress', () => {
  it('ignores hex case on EVM and Hyperliquid, and when the VM is unknown', () => {
    const a = '0x8B5E4dB198FfC7f69f8F11F6592f682717dF1D92';
    expect(sameAddress(a, a.toLowerCase(), 'evm')).toBe(true);
    expect(sameAddress(a, a.toLowerCase(), 'hypevm')).toBe(true);
    expect(sameAddress(a, a.toLowerCase(), undefined)).toBe(true);
    expect(sameAddress(a, '0x8b5e4db198ffc7f69f8f11f6592f682717df1d93', 'evm')).toBe(false);
  });

  it('is case-sensitive on Solana and Bitcoin', () => {
    expect(sameAddress('7EaP2zkxDLo86x4rnNwwLhB593PsbMva41dqfrfxhsb1', '7eap2zkxdlo86x4rnnwwlhb593psbmva41dqfrfxhsb1', 'svm')).toBe(false);
    expect(sameAddress('7EaP2zkxDLo86x4rnNwwLhB593PsbMva41dqfrfxhsb1', '7EaP2zkxDLo86x4rnNwwLhB593PsbMva41dqfrfxhsb1', 'svm')).toBe(true);
    expect(sameAddress('0xABCD', '0xabcd', 'svm')).toBe(false);
  });

  it('knows native currencies per API vmType', () => {
    expect(nativeCurrencyOf('evm')).toBe('0x0000000000000000000000000000000000000000');
    expect(nativeCurrencyOf('svm')).toBe('11111111111111111111111111111111');
    expect(nativeCurrencyOf('tonvm')).toBeUndefined();
  });
});

describe('chainsIndex', () => {
  it('looks chains up by protocol slug and numeric id and reads the depository', () => {
    const index = indexChains(loadChainsFixture());
    expect(index.bySlug('arbitrum')?.id).toBe(42161);
    expect(index.byId(8453)?.protocol?.v2?.chainId).toBe('base');
    expect(index.bySlug('nowhere')).toBeUndefined();
    expect(depositoryOf(index.bySlug('base')!)).toBe('0x4cd00e387622c35bddb9b4c962c136462338bc31');
    expect(index.slugVmTypes).toEqual({ base: 'ethereum-vm', arbitrum: 'ethereum-vm' });
  });

  it('collects contract addresses from nested groups, leaving out the generic multicall contracts', () => {
    const chain = loadChainsFixture().chains[0]!;
    chain.contracts = {
      multicall3: '0xaa',
      multicaller: '0xa1',
      onlyOwnerMulticaller: '0xa2',
      v3: { erc20Router: '0xbb', approvalProxy: '0xcc' },
      list: ['0xdd'],
    };
    expect(contractAddresses(chain)).toEqual(['0xbb', '0xcc', '0xdd']);
    delete chain.contracts;
    expect(contractAddresses(chain)).toEqual([]);
  });
});
