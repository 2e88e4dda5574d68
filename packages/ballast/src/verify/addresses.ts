/**
 * Address and currency comparison per VM family. EVM-style hex (vmType `evm`, `hypevm`) is case-insensitive
 * (EIP-55 case is only a checksum); Solana, Bitcoin and the other families are case-sensitive (docs/relay-contract.md
 * "POST /quote/v2": "case sensitive on Solana and Bitcoin").
 */
import { API_TO_PROTOCOL_VM, NATIVE_CURRENCY_BY_VM } from '@ballast/protocol/protocol/vmTypes.ts';

const HEX_VM_TYPES: ReadonlySet<string> = new Set(['evm', 'hypevm']);
const HEX_RE = /^0x[0-9a-fA-F]*$/;

/**
 * Compares two addresses (or currency identifiers) of one chain.
 *
 * @param a first address
 * @param b second address
 * @param vmType API `vmType` of the chain both live on; when unknown (undefined), hex strings compare
 *   case-insensitively and anything else exactly
 * @returns true when they denote the same address
 */
export function sameAddress(a: string, b: string, vmType: string | undefined): boolean {
  if (a === b) return true;
  const hexVm = vmType === undefined ? true : HEX_VM_TYPES.has(vmType);
  return hexVm && HEX_RE.test(a) && HEX_RE.test(b) && a.toLowerCase() === b.toLowerCase();
}

/**
 * Native currency identifier of an API `vmType` (docs/relay-contract.md "Currency": EVM zero address, Solana system program,
 * Bitcoin `bc1qqq…mql8k8`), or undefined when Ballast does not know it.
 */
export function nativeCurrencyOf(vmType: string): string | undefined {
  const protocolVm = API_TO_PROTOCOL_VM[vmType];
  return protocolVm ? NATIVE_CURRENCY_BY_VM[protocolVm] : undefined;
}
