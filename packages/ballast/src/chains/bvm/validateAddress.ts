/**
 * Whether a text is a Bitcoin address of the configured network, as the adapter's `validateAddress` answers:
 * bitcoinjs `address.toOutputScript` on that network decides; the message says what the text is instead (an
 * EVM address, another network's address, upper-case bech32) so the operator knows what to fix. Pure.
 */
import { address as btcAddress } from 'bitcoinjs-lib';
import { BVM_NETWORK_PARAMS, describeBvmAddress, type BvmNetwork } from './wallet.ts';

/**
 * @param address candidate address (case-sensitive: bech32 must be written in lower case)
 * @param network the chain's network (`chains.<name>.network`)
 * @returns null when `address` pays a standard script on `network`, else why not
 * @example
 * validateBvmAddress('0x03508bb71268bba25ecacc8f620e01866650532c', 'mainnet') // "… is an EVM address, not a Bitcoin address …"
 */
export function validateBvmAddress(address: string, network: BvmNetwork): string | null {
  if (/^0x[0-9a-fA-F]*$/.test(address)) {
    return `${address} is an EVM address, not a Bitcoin address; a Bitcoin ${network} address looks like ${network === 'mainnet' ? 'bc1q… or bc1p…' : network === 'testnet' ? 'tb1q… or tb1p…' : 'bcrt1q… or bcrt1p…'}`;
  }
  const info = describeBvmAddress(address);
  if (info && !info.networks.includes(network)) {
    return `${address} is a Bitcoin ${info.networks.join('/')} address, but the chain is on ${network}`;
  }
  if (info && !info.canonicalCase) return `${address} is written in upper case; write the address in lower case`;
  try {
    btcAddress.toOutputScript(address, BVM_NETWORK_PARAMS[network]);
    return null;
  } catch {
    return `${address} is not a valid Bitcoin ${network} address`;
  }
}
