import { describe, expect, it } from 'vitest';
import { nativeCurrencyOf, sameAddress } from '../../../packages/ballast/src/verify/addresses.ts';
import { depositoryOf, indexChains, listedContracts } from '../../../packages/ballast/src/verify/chainsIndex.ts';
import { QUOTE_CASES } from '../../fixtures/quoteCase.ts';
import { OFFLINE_CASE } from '../../fixtures/offlineQuote.ts';
import { GENUINE_V3_CONTRACTS, loadChainsFixture, relayFixturesPresent, ROUTER_32_CONTRACTS as ROUTER_32 } from '../../fixtures/relay.ts';

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

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('chainsIndex on the %s /chains document', (_name, c) => {
  const f = c.facts;

  it('looks chains up by protocol slug and numeric id and reads the depository', () => {
    const index = indexChains(c.load().chains);
    expect(index.bySlug(f.destinationSlug)?.id).toBe(f.destinationChainId);
    expect(index.byId(f.originChainId)?.protocol?.v2?.chainId).toBe(f.originSlug);
    expect(index.bySlug('nowhere')).toBeUndefined();
    expect(depositoryOf(index.bySlug(f.originSlug)!)).toBe(f.depository);
    expect(index.slugVmTypes).toEqual({ [f.originSlug]: 'ethereum-vm', [f.destinationSlug]: 'ethereum-vm' });
  });

  it('lists every contract GET /chains names, nested groups included, then the depository', () => {
    const chain = c.load().chains.chains[0]!;
    chain.contracts = { multicall3: '0xaa', v3: { erc20Router: '0xbb', approvalProxy: '0xcc' }, list: ['0xdd'], empty: '' };
    const depository = { name: 'protocol.v2.depository', address: depositoryOf(chain)! };
    expect(listedContracts(chain)).toEqual([
      { name: 'contracts.multicall3', address: '0xaa' },
      { name: 'contracts.v3.erc20Router', address: '0xbb' },
      { name: 'contracts.v3.approvalProxy', address: '0xcc' },
      { name: 'contracts.list[0]', address: '0xdd' },
      depository,
    ]);
    delete chain.contracts;
    expect(listedContracts(chain)).toEqual([depository]);
  });

  it('lists both router generations, v3 and v3.2 (Router 3.2), under unambiguous names', () => {
    const chain = c.load().chains.chains[0]!;
    chain.contracts = {
      erc20Router: ROUTER_32.erc20Router,
      approvalProxy: ROUTER_32.approvalProxy,
      v3: { erc20Router: '0xbb', approvalProxy: '0xcc' },
      'v3.2': { ...ROUTER_32 },
    };
    expect(listedContracts(chain)).toEqual([
      { name: 'contracts.erc20Router', address: ROUTER_32.erc20Router },
      { name: 'contracts.approvalProxy', address: ROUTER_32.approvalProxy },
      { name: 'contracts.v3.erc20Router', address: '0xbb' },
      { name: 'contracts.v3.approvalProxy', address: '0xcc' },
      { name: 'contracts["v3.2"].erc20Router', address: ROUTER_32.erc20Router },
      { name: 'contracts["v3.2"].approvalProxy', address: ROUTER_32.approvalProxy },
      { name: 'protocol.v2.depository', address: depositoryOf(chain)! },
    ]);
  });
});

describe('chainsIndex on the sandbox /chains document', () => {
  it('lists the sandbox\'s v3 pair and its Router 3.2 pair (top level and contracts["v3.2"]), each deployed address once per name', () => {
    const chain = OFFLINE_CASE.load().chains.chains[0]!;
    const contracts = chain.contracts as { erc20Router: string; approvalProxy: string; v3: Record<string, string> }; // the sandbox lists both groups
    const byName = Object.fromEntries(listedContracts(chain).map((x) => [x.name, x.address]));
    expect(byName['contracts["v3.2"].erc20Router']).toBe(contracts.erc20Router);
    expect(byName['contracts["v3.2"].approvalProxy']).toBe(contracts.approvalProxy);
    expect(byName['contracts.v3.erc20Router']).toBe(contracts.v3['erc20Router']);
    expect(byName['contracts.v3.erc20Router']).not.toBe(byName['contracts["v3.2"].erc20Router']);
    expect(Object.keys(byName)).toHaveLength(8); // multicall3, top-level pair, v3 pair, v3.2 pair, depository
  });
});

describe.skipIf(!relayFixturesPresent)('chainsIndex on the genuine /chains document', () => {
  it('lists the v3 router and approval proxy real GET /chains names on Base', () => {
    const base = indexChains(loadChainsFixture()).byId(8453)!;
    expect(listedContracts(base).map((x) => x.address)).toEqual([
      GENUINE_V3_CONTRACTS.erc20Router,
      GENUINE_V3_CONTRACTS.approvalProxy,
      depositoryOf(base),
    ]);
  });
});
