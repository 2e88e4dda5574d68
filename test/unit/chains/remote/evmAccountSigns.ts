/**
 * What every EVM account backed by a key service must do (docs/keys.md): sign EIP-1559 transactions, one per
 * nonce, and an EIP-191 message, each recovering the wallet's address.
 */
import {
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  type Address,
  type LocalAccount,
  type TransactionSerialized,
} from 'viem';
import { expect } from 'vitest';

/**
 * Signs `count` transactions (nonces 0..count-1) and one message with `account`; each must recover `address`.
 *
 * @param count how many transactions: enough that some signatures came back with a high s
 */
export async function expectEvmAccountSigns(account: LocalAccount, address: Address, count: number): Promise<void> {
  for (let nonce = 0; nonce < count; nonce++) {
    const raw = await account.signTransaction({
      chainId: 31001,
      type: 'eip1559',
      nonce,
      to: address,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    });
    expect(parseTransaction(raw).nonce).toBe(nonce);
    expect(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized })).toBe(address);
  }
  const signature = await account.signMessage({ message: 'withdraw 5' });
  expect(await recoverMessageAddress({ message: 'withdraw 5', signature })).toBe(address);
}
