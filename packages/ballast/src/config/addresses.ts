/**
 * Address and currency text checks per VM family, for configuration messages: each function returns undefined
 * when the text is acceptable, else a message saying what the text is (an EVM address where a Solana one
 * belongs, a testnet address on a mainnet wallet, …) and how to fix it. Pure; decoding is delegated to
 * `src/chains/<vm>/wallet.ts` and viem.
 *
 * Native currency identifiers (docs/relay-contract.md "Currency"): EVM the zero address, Solana
 * `11111111111111111111111111111111`, Bitcoin `bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8`.
 */
import { isAddress } from 'viem';
import { describeBvmAddress, type BvmAddressType, type BvmNetwork } from '../chains/bvm/wallet.ts';
import { parseSvmAddress } from '../chains/svm/wallet.ts';

/** Native SOL currency identifier. */
export const SVM_NATIVE_CURRENCY = '11111111111111111111111111111111';
/** Native BTC currency identifier. */
export const BVM_NATIVE_CURRENCY = 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8';

const EVM_LIKE_RE = /^0x[0-9a-fA-F]*$/;

/** What family an address text seems to belong to, for "X where Y belongs" messages. */
function familyOf(text: string): 'an EVM address' | 'a Bitcoin address' | 'a Solana address' | undefined {
  if (EVM_LIKE_RE.test(text)) return 'an EVM address';
  if (describeBvmAddress(text) !== undefined) return 'a Bitcoin address';
  if (parseSvmAddress(text) !== undefined) return 'a Solana address';
  return undefined;
}

/**
 * Checks a Solana address (wallet address or token mint).
 *
 * @param text the configured value
 * @param what what the value is, for the message (`a Solana address`, `a Solana token mint`)
 * @returns undefined when `text` is a canonical base58 Solana address, else the problem and fix
 */
export function svmAddressProblem(text: string, what = 'a Solana address'): string | undefined {
  const family = familyOf(text); // a Bitcoin or EVM address first: bech32 text can also be valid base58
  if (family === 'a Solana address') return undefined;
  if (family !== undefined) {
    return `"${text}" is ${family}, not ${what}; write the base58 Solana address (case-sensitive)`;
  }
  return `"${text}" is not ${what}: expected base58 of 32 bytes (case-sensitive, no 0x)`;
}

/**
 * Checks a configured Bitcoin wallet address against the wallet's network and address type (not against the
 * key: see {@link bvmAddressMismatch}).
 *
 * @param text the configured address
 * @param network the wallet's network
 * @param addressType the wallet's address type
 * @returns undefined when the address has the right network and type, else the problem and fix
 */
export function bvmAddressProblem(text: string, network: BvmNetwork, addressType: BvmAddressType): string | undefined {
  const info = describeBvmAddress(text);
  if (info === undefined) {
    const family = familyOf(text);
    return family !== undefined
      ? `"${text}" is ${family}, not a Bitcoin address; write the wallet's ${addressType} address`
      : `"${text}" is not a Bitcoin address (bech32 such as bc1q… for p2wpkh or bc1p… for p2tr)`;
  }
  if (!info.networks.includes(network)) {
    return `"${text}" is a ${info.networks.join('/')} address but network is ${network}; fix the address or set network: ${info.networks[0]}`;
  }
  if (info.kind !== addressType) {
    const fix =
      info.kind === 'p2wpkh' || info.kind === 'p2tr'
        ? `set addressType: ${info.kind} or fix the address`
        : `Ballast derives ${addressType} addresses only; write that address`;
    return `"${text}" is a ${info.kind} address but addressType is ${addressType}; ${fix}`;
  }
  return undefined;
}

/**
 * Message for a configured address that differs from the derived one, pointing out a case-only difference.
 *
 * @param configured the configured address
 * @param derived the address of the key
 * @param caseSensitiveNote how the family treats case (e.g. "Solana addresses are case-sensitive")
 * @returns the message
 */
export function addressMismatch(configured: string, derived: string, caseSensitiveNote: string): string {
  if (configured.toLowerCase() === derived.toLowerCase()) {
    return `"${configured}" differs from ${derived}, the address of the configured key, only in letter case; ${caseSensitiveNote}: write ${derived}`;
  }
  return `${configured} differs from ${derived}, the address of the configured key; fix the address or the key`;
}

/**
 * Checks the `currency` of an asset entry on a chain of the given VM family.
 *
 * @param text the configured currency
 * @param vm the chain's VM family
 * @returns undefined when acceptable, else the problem and fix
 */
export function currencyProblem(text: string, vm: 'evm' | 'svm' | 'bvm'): string | undefined {
  switch (vm) {
    case 'evm':
      return isAddress(text)
        ? undefined
        : `"${text}" is not an EVM token address (0x + 40 hex digits, valid EIP-55 checksum if mixed case; 0x0000000000000000000000000000000000000000 for the native token)`;
    case 'svm': {
      if (text === SVM_NATIVE_CURRENCY) return undefined;
      const problem = svmAddressProblem(text, 'a Solana token mint');
      return problem === undefined ? undefined : `${problem}; native SOL is ${SVM_NATIVE_CURRENCY}`;
    }
    case 'bvm':
      return text === BVM_NATIVE_CURRENCY
        ? undefined
        : `"${text}" is not a Bitcoin currency: Bitcoin chains hold native BTC only, written ${BVM_NATIVE_CURRENCY}`;
  }
}
