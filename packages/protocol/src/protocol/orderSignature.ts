/**
 * Solver order signatures: ECDSA over the 32 raw order-id bytes with the EIP-191 personal-message prefix
 * (`\x19Ethereum Signed Message:\n32`) (docs/relay-contract.md "Local quote verification", onchain alternative).
 */
import { recoverMessageAddress, type Hex, type LocalAccount } from 'viem';

/**
 * Recovers the address that signed an order id.
 *
 * @param orderId 32-byte order id (0x hex)
 * @param signature 65-byte 0x hex signature
 * @returns checksummed signer address
 * @throws viem errors when the signature is malformed
 */
export async function recoverOrderSigner(orderId: Hex, signature: Hex): Promise<Hex> {
  return recoverMessageAddress({ message: { raw: orderId }, signature });
}

/**
 * Signs an order id as a solver does (used by the local sandbox).
 *
 * @param account local account holding the solver key
 * @param orderId 32-byte order id (0x hex)
 * @returns 65-byte 0x hex signature
 */
export async function signOrderId(account: LocalAccount, orderId: Hex): Promise<Hex> {
  return account.signMessage({ message: { raw: orderId } });
}
