/**
 * The sandbox's table of chains and currencies: what GET /chains serves and what POST /quote/v2 accepts
 * (docs/relay-contract.md "Chain object", "Currency") for the EVM chains: native ETH, a 6-decimal test USDC and a 6-decimal
 * Tether-style USDT at the same addresses everywhere (plus an 8-decimal WBTC when Bitcoin is served), and the
 * Relay router contracts. The non-EVM chains (Solana, Bitcoin) are in `vmChains.ts`.
 */
import type { SandboxContractAddresses } from '../chains/setupChain.ts';
import { getAddress, pad, type Address, type Hex } from 'viem';
import type { SlugVmTypes } from '@ballast/protocol/protocol/vmTypes.ts';

/** EVM native currency identifier (docs/relay-contract.md "Currency": the zero address). */
export const EVM_NATIVE_ADDRESS: Address = '0x0000000000000000000000000000000000000000';

/** A currency a sandbox chain supports. `address` is lower-case 0x hex; native uses {@link EVM_NATIVE_ADDRESS}. */
export interface SandboxCurrency {
  /** Short id as GET /chains shows it (`eth`, `usdc`). */
  id: string;
  symbol: string;
  name: string;
  address: Address;
  decimals: number;
  isNative: boolean;
}

/**
 * The router contracts of a chain (docs/relay-contract.md "Chain object": `contracts.erc20Router`, `contracts.approvalProxy`
 * and the `v3` group). Lower-case 0x addresses of deployed contracts. The top-level pair is the sandbox's Router 3.2
 * pair: GET /chains lists it both at the top level and as `contracts["v3.2"]` (docs/design.md "Router 3.2").
 */
export interface SandboxRouterContracts {
  /** Router 3.2 (GET /chains `contracts.erc20Router` and `contracts["v3.2"].erc20Router`). */
  erc20Router: Address;
  /** Approval proxy over {@link erc20Router} (`contracts.approvalProxy` and `contracts["v3.2"].approvalProxy`). */
  approvalProxy: Address;
  /** The previous generation, still live during the transition (`contracts.v3`). */
  v3: { erc20Router: Address; approvalProxy: Address };
}

/** One sandbox chain. `slug` is the protocol chain slug (`chains[].protocol.v2.chainId`). */
export interface SandboxChainInfo extends SandboxRouterContracts {
  chainId: number;
  slug: string;
  displayName: string;
  rpcUrl: string;
  depository: Address;
  multicall3: Address;
  native: SandboxCurrency;
  erc20: SandboxCurrency[];
}

/** The sandbox chain table, in GET /chains order. */
export type SandboxChainTable = readonly SandboxChainInfo[];

/** Native ETH record used on every sandbox chain (18 decimals). */
export const SANDBOX_ETH: SandboxCurrency = {
  id: 'eth',
  symbol: 'ETH',
  name: 'Ether',
  address: EVM_NATIVE_ADDRESS,
  decimals: 18,
  isNative: true,
};

/**
 * Builds the test-USDC record for a token address (6 decimals, as the chains module deploys it).
 *
 * @param address deployed stablecoin address (any case)
 */
export function sandboxUsdc(address: Address): SandboxCurrency {
  return { id: 'usdc', symbol: 'USDC', name: 'USD Coin', address: lower(address), decimals: 6, isNative: false };
}

/**
 * Builds the Tether-style test-USDT record for a token address (6 decimals, as the chains module deploys it).
 *
 * @param address deployed token address (any case)
 */
export function sandboxUsdt(address: Address): SandboxCurrency {
  return { id: 'usdt', symbol: 'USDT', name: 'Tether USD', address: lower(address), decimals: 6, isNative: false };
}

/**
 * Builds the wrapped-bitcoin record for a token address (8 decimals, as the chains module deploys it).
 *
 * @param address deployed WBTC address (any case)
 */
export function sandboxWbtc(address: Address): SandboxCurrency {
  return { id: 'wbtc', symbol: 'WBTC', name: 'Wrapped BTC', address: lower(address), decimals: 8, isNative: false };
}

/**
 * The `extraData` of a chain's orderData refund and output entries: the chain's v3 `erc20Router` address
 * left-padded to 32 bytes, as real quotes carry it (fixture `quote-v2-base-usdc-to-arbitrum-usdt.json`).
 *
 * @returns 0x + 64 lower-case hex digits
 */
export function routerExtraData(chain: SandboxChainInfo): Hex {
  return pad(lower(chain.v3.erc20Router), { size: 32 });
}

/** Lower-cases an EVM address after checking it (viem `getAddress` throws on a malformed address). */
export function lower(address: string): Address {
  return getAddress(address).toLowerCase() as Address; // getAddress validated it; lower-case keeps the bytes
}

/**
 * Finds a chain by numeric chain id.
 *
 * @returns the chain, or undefined when the sandbox does not serve it
 */
export function findChain(table: SandboxChainTable, chainId: number): SandboxChainInfo | undefined {
  return table.find((c) => c.chainId === chainId);
}

/**
 * Finds a currency on a chain by address, case-insensitively (native = zero address).
 *
 * @returns the currency, or undefined when the chain does not support it
 */
export function findCurrency(chain: SandboxChainInfo, address: string): SandboxCurrency | undefined {
  const a = address.toLowerCase();
  if (a === chain.native.address) return chain.native;
  return chain.erc20.find((c) => c.address === a);
}

/**
 * Protocol chain slug → protocol VM type for every sandbox chain (all `ethereum-vm`), the table order-id
 * hashing needs (docs/relay-contract.md "Local quote verification" 3).
 */
export function sandboxSlugVmTypes(table: SandboxChainTable): SlugVmTypes {
  return Object.fromEntries(table.map((c) => [c.slug, 'ethereum-vm' as const]));
}

/**
 * The chain table entry of a sandbox chain: native ETH, the test USDC and USDT (and WBTC when asked),
 * Multicall3, the depository and the router contracts, all addresses lower-case.
 *
 * @param def the chain's slug, display name and EIP-155 id
 * @param rpcUrl its JSON-RPC URL
 * @param contracts where the sandbox contracts are (the same on every chain)
 * @param opts.wbtc list the chain's WBTC token (when the sandbox serves Bitcoin; default false)
 */
export function sandboxChainInfo(
  def: { slug: string; displayName: string; chainId: number },
  rpcUrl: string,
  contracts: SandboxContractAddresses,
  opts: { wbtc?: boolean } = {},
): SandboxChainInfo {
  return {
    chainId: def.chainId,
    slug: def.slug,
    displayName: def.displayName,
    rpcUrl,
    depository: lower(contracts.depository),
    multicall3: contracts.multicall3,
    erc20Router: lower(contracts.erc20Router),
    approvalProxy: lower(contracts.approvalProxy),
    v3: { erc20Router: lower(contracts.v3.erc20Router), approvalProxy: lower(contracts.v3.approvalProxy) },
    native: SANDBOX_ETH,
    erc20: [sandboxUsdc(contracts.usdc), sandboxUsdt(contracts.usdt), ...(opts.wbtc ? [sandboxWbtc(contracts.wbtc)] : [])],
  };
}
