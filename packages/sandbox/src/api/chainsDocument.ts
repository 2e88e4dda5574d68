/**
 * GET /chains document of the sandbox (docs/relay-contract.md "Chain object (GET /chains, array `chains`)"): one EVM chain
 * object per sandbox chain with its native ETH, the test USDC and USDT (and WBTC with Bitcoin), its contracts
 * (`multicall3`, `erc20Router`, `approvalProxy`, the `v3` and `v3.2` groups, every one deployed on the chain;
 * see {@link routerGroups}), the solver address and protocol.v2 (slug and depository; the depository is listed
 * there only, as in real responses); then Solana (`svm`, depository = the program id) and Bitcoin (`bvm`,
 * depository = a regtest address) when served. Every chain lists the one EVM solver in `solverAddresses`
 * (docs/relay-contract.md "Local quote verification": the solver's EVM wallet, the same on every chain).
 */
import type { Address } from 'viem';
import type { SandboxChainTable, SandboxRouterContracts } from '../quote/chainTable.ts';
import type { SandboxNonEvmChain, SandboxVmCurrency } from '../quote/vmChains.ts';

function chainCurrency(c: SandboxVmCurrency) {
  return { id: c.id, symbol: c.symbol, name: c.name, address: c.address, decimals: c.decimals, supportsBridging: true };
}

/** What differs between the chain objects of one document (everything else is the same sandbox default). */
interface ChainObjectFields {
  chainId: number;
  slug: string;
  displayName: string;
  rpcUrl: string;
  wsRpcUrl: string;
  vmType: 'evm' | 'svm' | 'bvm';
  native: SandboxVmCurrency;
  tokens: readonly SandboxVmCurrency[];
  contracts: Record<string, unknown>;
  depository: string;
}

/** One chain object (docs/relay-contract.md "Chain object") with the sandbox's fixed flags, fees and tags. */
function chainObject(c: ChainObjectFields, solver: Address) {
  return {
    id: c.chainId,
    name: c.slug,
    displayName: c.displayName,
    httpRpcUrl: c.rpcUrl,
    wsRpcUrl: c.wsRpcUrl,
    explorerUrl: '',
    explorerName: '',
    vmType: c.vmType,
    depositEnabled: true,
    tokenSupport: 'All',
    disabled: false,
    partialDisableLimit: 0,
    blockProductionLagging: false,
    currency: chainCurrency(c.native),
    withdrawalFee: 0,
    depositFee: 0,
    surgeEnabled: false,
    featuredTokens: [],
    erc20Currencies: c.tokens.map(chainCurrency),
    solverCurrencies: [c.native, ...c.tokens].map(chainCurrency),
    contracts: c.contracts,
    solverAddresses: [solver.toLowerCase()],
    tags: ['sandbox'],
    protocol: { v2: { chainId: c.slug, depository: c.depository } },
  };
}

/**
 * The router contracts of a sandbox chain as GET /chains lists them since Router 3.2
 * (https://docs.relay.link/llms-full.txt, changelog entry "Router 3.2"): `v3.2` holds the new pair, and from
 * 2026-10-26 the top-level `erc20Router`/`approvalProxy` point at it too, while `v3` keeps the old pair (both
 * generations stay live during the transition). Key names inside `v3.2` are not documented; they mirror `v3`.
 * The sandbox's 3.2 pair is its own deployment of the same contracts on anvil (the chain's top-level pair,
 * src/sandbox/chains/setupChain.ts), not the mainnet addresses (router 0x0729e2a4716d9f7dd17858d5d504426d228697f7,
 * approval proxy 0x5567954cd026cebfe486062cb75848e0f1c12e58 on most chains), which hold no code here.
 *
 * @param c the chain's router contracts (lower-case 0x addresses)
 * @returns `{erc20Router, approvalProxy, v3: {erc20Router, approvalProxy}, "v3.2": {erc20Router, approvalProxy}}`
 */
export function routerGroups(c: SandboxRouterContracts) {
  return {
    erc20Router: c.erc20Router,
    approvalProxy: c.approvalProxy,
    v3: { erc20Router: c.v3.erc20Router, approvalProxy: c.v3.approvalProxy },
    'v3.2': { erc20Router: c.erc20Router, approvalProxy: c.approvalProxy },
  };
}

/**
 * Builds the GET /chains body.
 *
 * @param table sandbox chains
 * @param solver solver address, listed in every chain's `solverAddresses`
 * @param vmChains the Solana and Bitcoin chains, when served (default none)
 * @returns `{chains: [...]}`, accepted by `ChainsResponseSchema`
 */
export function buildChainsDocument(table: SandboxChainTable, solver: Address, vmChains: readonly SandboxNonEvmChain[] = []) {
  const evm = table.map((c) =>
    chainObject(
      {
        ...c,
        wsRpcUrl: '',
        vmType: 'evm',
        tokens: c.erc20,
        contracts: {
          multicall3: c.multicall3,
          ...routerGroups(c),
        },
      },
      solver,
    ),
  );
  const others = vmChains.map((c) => chainObject({ ...c, wsRpcUrl: c.vmType === 'svm' ? c.wsUrl : '', contracts: {} }, solver));
  return { chains: [...evm, ...others] };
}
