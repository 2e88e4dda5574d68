/**
 * Mapping between the API's `vmType` values and the settlement SDK's VM type names, and the table from
 * protocol chain slug to VM type that order-id hashing needs (docs/relay-contract.md "Local quote verification" 3).
 */
import type { ChainsResponse } from '../relay/schemas.ts';

/** VM type names used by the settlement protocol when encoding addresses (settlement SDK `VmType`). */
export type ProtocolVmType = 'ethereum-vm' | 'solana-vm' | 'bitcoin-vm' | 'tron-vm' | 'ton-vm' | 'hyperliquid-vm' | 'lighter-vm' | 'xrp-vm';

/** Protocol chain slug (`chains[].protocol.v2.chainId`, e.g. "base") → protocol VM type. */
export type SlugVmTypes = Readonly<Record<string, ProtocolVmType>>;

/** API `vmType` → protocol VM type (docs/relay-contract.md "Local quote verification" 3). */
export const API_TO_PROTOCOL_VM: Readonly<Record<string, ProtocolVmType>> = {
  evm: 'ethereum-vm',
  svm: 'solana-vm',
  bvm: 'bitcoin-vm',
  tvm: 'tron-vm',
  tonvm: 'ton-vm',
  hypevm: 'hyperliquid-vm',
  lvm: 'lighter-vm',
  xrpvm: 'xrp-vm',
};

/**
 * Builds the slug → VM type table from a GET /chains response. Chains without `protocol.v2.chainId` have no
 * slug and are left out; chains with an unknown `vmType` are left out too (an order touching them then
 * fails to hash with a clear "unknown chain" error rather than being encoded wrongly).
 *
 * @param chains parsed GET /chains response
 * @returns slug → protocol VM type
 */
export function slugVmTypesFromChains(chains: ChainsResponse): SlugVmTypes {
  const out: Record<string, ProtocolVmType> = {};
  for (const chain of chains.chains) {
    const slug = chain.protocol?.v2?.chainId;
    const vm = API_TO_PROTOCOL_VM[chain.vmType];
    if (slug && vm) out[slug] = vm;
  }
  return out;
}

/**
 * Native currency identifier per protocol VM type (docs/relay-contract.md "Currency": EVM zero address, Solana system
 * program id, Bitcoin `bc1qqq…mql8k8`). Used to decide between a native and a token deposit (docs/relay-contract.md "Local
 * quote verification" 7).
 */
export const NATIVE_CURRENCY_BY_VM: Readonly<Partial<Record<ProtocolVmType, string>>> = {
  'ethereum-vm': '0x0000000000000000000000000000000000000000',
  'hyperliquid-vm': '0x00000000000000000000000000000000',
  'solana-vm': '11111111111111111111111111111111',
  'bitcoin-vm': 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8',
};
