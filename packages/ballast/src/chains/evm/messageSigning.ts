/**
 * EIP-191 `personal_sign` of a text with an EVM private key (https://eips.ethereum.org/EIPS/eip-191), through
 * viem: how `ballast approve --key-file` signs an approval request for an EVM approver (docs/approvals.md). The
 * key is an approver's own, never a configured wallet's; it is used once and not kept.
 */
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';

/**
 * Signs `message` (UTF-8 text) with `privateKey`.
 *
 * @param privateKey `0x` + 64 hex digits
 * @returns the signer's address (checksummed) and the 65-byte signature as 0x-hex
 */
export async function signEip191(privateKey: Hex, message: string): Promise<{ address: string; signature: string }> {
  const account = privateKeyToAccount(privateKey);
  return { address: account.address, signature: await account.signMessage({ message }) };
}
