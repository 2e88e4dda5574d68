/**
 * The sandbox's non-EVM chains (docs/relay-contract.md "What the service does" 4, "Currency"): Solana (id 792703809, vmType
 * `svm`, native SOL 9 decimals, the node's test USDC mint 6 decimals, depository = the program id) and Bitcoin
 * (id 8253038, vmType `bvm`, native BTC 8 decimals, depository = a regtest address the sandbox controls), next
 * to the EVM chain table of `chainTable.ts`. Addresses here are the chain's own text form (base58, bech32),
 * compared exactly: they are case-sensitive (docs/relay-contract.md "POST /quote/v2").
 */
import type { SlugVmTypes } from '@ballast/protocol/protocol/vmTypes.ts';
import { SYSTEM_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import type { SandboxChainInfo, SandboxChainTable, SandboxCurrency } from './chainTable.ts';

/** Numeric id of Solana (docs/relay-contract.md "What the service does" 4). */
export const SOLANA_CHAIN_ID = 792703809;
/** Numeric id of Bitcoin (docs/relay-contract.md "What the service does" 4). */
export const BITCOIN_CHAIN_ID = 8253038;
/** Native BTC identifier (docs/relay-contract.md "Currency"). */
export const BTC_NATIVE_ADDRESS = 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8';

/**
 * A currency of any sandbox chain. `address` is the chain's identifier in its own text form: 0x hex (EVM,
 * lower-case), a base58 mint or the system program (Solana), the BTC identifier (Bitcoin).
 */
export interface SandboxVmCurrency {
  /** Short id as GET /chains shows it (`sol`, `usdc`, `btc`). */
  id: string;
  symbol: string;
  name: string;
  address: string;
  decimals: number;
  isNative: boolean;
}

/** The Solana chain of the sandbox. `depository` is the depository PROGRAM id (base58). */
export interface SandboxSvmChainInfo {
  vmType: 'svm';
  chainId: number;
  slug: string;
  displayName: string;
  rpcUrl: string;
  wsUrl: string;
  depository: string;
  native: SandboxVmCurrency;
  tokens: SandboxVmCurrency[];
}

/** The Bitcoin chain of the sandbox. `depository` is a regtest address whose key the sandbox holds. */
export interface SandboxBvmChainInfo {
  vmType: 'bvm';
  chainId: number;
  slug: string;
  displayName: string;
  /** Esplora base URL of the node. */
  rpcUrl: string;
  depository: string;
  native: SandboxVmCurrency;
  tokens: SandboxVmCurrency[];
}

/** A non-EVM sandbox chain. */
export type SandboxNonEvmChain = SandboxSvmChainInfo | SandboxBvmChainInfo;
/** Any sandbox chain: an EVM chain of the chain table, or a non-EVM one. */
export type SandboxAnyChain = SandboxChainInfo | SandboxNonEvmChain;
/** API `vmType` of a sandbox chain. */
export type SandboxVmType = 'evm' | 'svm' | 'bvm';

/** Native SOL (9 decimals, the system program id; docs/relay-contract.md "Currency"). */
export const SANDBOX_SOL: SandboxVmCurrency = {
  id: 'sol',
  symbol: 'SOL',
  name: 'Solana',
  address: SYSTEM_PROGRAM_ID,
  decimals: 9,
  isNative: true,
};
/** Native BTC (8 decimals; docs/relay-contract.md "Currency"). */
export const SANDBOX_BTC: SandboxVmCurrency = {
  id: 'btc',
  symbol: 'BTC',
  name: 'Bitcoin',
  address: BTC_NATIVE_ADDRESS,
  decimals: 8,
  isNative: true,
};

/**
 * The Solana chain entry.
 *
 * @param node RPC and websocket URLs, depository program id and the test USDC mint (base58)
 */
export function sandboxSolanaChain(node: {
  rpcUrl: string;
  wsUrl: string;
  depositoryProgramId: string;
  usdcMint: string;
}): SandboxSvmChainInfo {
  return {
    vmType: 'svm',
    chainId: SOLANA_CHAIN_ID,
    slug: 'solana',
    displayName: 'Solana',
    rpcUrl: node.rpcUrl,
    wsUrl: node.wsUrl,
    depository: node.depositoryProgramId,
    native: SANDBOX_SOL,
    tokens: [{ id: 'usdc', symbol: 'USDC', name: 'USD Coin', address: node.usdcMint, decimals: 6, isNative: false }],
  };
}

/**
 * The Bitcoin chain entry.
 *
 * @param esploraUrl the node's Esplora base URL
 * @param depository the regtest depository address (`bcrt1…`)
 */
export function sandboxBitcoinChain(esploraUrl: string, depository: string): SandboxBvmChainInfo {
  return {
    vmType: 'bvm',
    chainId: BITCOIN_CHAIN_ID,
    slug: 'bitcoin',
    displayName: 'Bitcoin',
    rpcUrl: esploraUrl,
    depository,
    native: SANDBOX_BTC,
    tokens: [],
  };
}

/** The API `vmType` of a sandbox chain (EVM chains carry no `vmType` field). */
export function vmTypeOf(chain: SandboxAnyChain): SandboxVmType {
  return 'vmType' in chain ? chain.vmType : 'evm';
}

/** Narrows to an EVM chain of the chain table. */
export function isEvmChain(chain: SandboxAnyChain): chain is SandboxChainInfo {
  return vmTypeOf(chain) === 'evm';
}

/** Every currency of a chain, native first. */
export function chainCurrencies(chain: SandboxAnyChain): SandboxVmCurrency[] {
  return isEvmChain(chain) ? [chain.native, ...chain.erc20] : [chain.native, ...chain.tokens];
}

/**
 * Finds a chain by numeric id among the EVM table and the non-EVM chains.
 *
 * @returns the chain, or undefined when the sandbox does not serve it
 */
export function findAnyChain(
  table: SandboxChainTable,
  vmChains: readonly SandboxNonEvmChain[],
  chainId: number,
): SandboxAnyChain | undefined {
  return table.find((c) => c.chainId === chainId) ?? vmChains.find((c) => c.chainId === chainId);
}

/**
 * Finds a currency on a chain: EVM case-insensitively (0x hex), other VMs exactly (base58 and bech32 are
 * case-sensitive).
 */
export function findAnyCurrency(chain: SandboxAnyChain, address: string): SandboxVmCurrency | undefined {
  if (isEvmChain(chain)) {
    const a = address.toLowerCase();
    return chainCurrencies(chain).find((c) => c.address === a);
  }
  return chainCurrencies(chain).find((c) => c.address === address);
}

/** The EVM form of a currency of an EVM chain, or undefined when `currency` is not one of its currencies. */
export function evmCurrencyOf(chain: SandboxChainInfo, currency: SandboxVmCurrency): SandboxCurrency | undefined {
  return [chain.native, ...chain.erc20].find((c) => c.address === currency.address);
}

/**
 * Protocol chain slug → protocol VM type over every sandbox chain (docs/relay-contract.md "Local quote verification" 3): EVM
 * chains `ethereum-vm`, Solana `solana-vm`, Bitcoin `bitcoin-vm`.
 */
export function anySlugVmTypes(table: SandboxChainTable, vmChains: readonly SandboxNonEvmChain[]): SlugVmTypes {
  return {
    ...Object.fromEntries(table.map((c) => [c.slug, 'ethereum-vm' as const])),
    ...Object.fromEntries(vmChains.map((c) => [c.slug, c.vmType === 'svm' ? ('solana-vm' as const) : ('bitcoin-vm' as const)])),
  };
}
