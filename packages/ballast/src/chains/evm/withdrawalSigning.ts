/**
 * Withdrawal signing for EVM owners (docs/relay-contract.md "Withdrawal endpoints", Signing by chain family: EVM /
 * Hyperliquid sign a personal message over the raw digest bytes) and the signed `ready` transaction the owner
 * broadcasts (docs/relay-contract.md "Withdrawal job status").
 */
import { isHex, type Hex, type LocalAccount, type PublicClient } from 'viem';
import type { SignedOriginTx, WithdrawalTransaction } from '../adapter.ts';
import { EvmTxDataSchema } from '@ballast/protocol/relay/schemas.ts';
import { EvmSignError, signEvmStepItem, signedTxRecord } from './signTransaction.ts';

/**
 * EIP-191 personal-message signature over the 32 raw bytes of a withdrawal digest (viem `signMessage` with
 * `{raw}`: the signed hash is keccak256("\x19Ethereum Signed Message:\n32" ‖ digest)).
 *
 * @param digestHex 64 hex digits without 0x (src/protocol/withdrawalDigest.ts)
 * @returns the 65-byte signature, 0x hex
 * @throws EvmSignError when the digest is not 32 bytes of hex
 */
export async function signEvmWithdrawalDigest(account: LocalAccount, digestHex: string): Promise<Hex> {
  const raw = `0x${digestHex}`;
  if (!/^[0-9a-f]{64}$/i.test(digestHex) || !isHex(raw)) {
    throw new EvmSignError(`a withdrawal digest is 64 hex digits without 0x; got ${JSON.stringify(digestHex.slice(0, 80))}`);
  }
  return account.signMessage({ message: { raw } });
}

/**
 * Signs a verified `ready` withdrawal transaction with `account` as sender, gas and fees from our own node (as
 * for quote items), so its hash is known before broadcast.
 *
 * @throws EvmSignError when `tx.chainId` is not the node's chain; viem errors when gas estimation fails (the call
 *   would revert: expired, already executed, wrong allocator signature)
 */
export async function signEvmWithdrawalTx(client: PublicClient, account: LocalAccount, tx: WithdrawalTransaction): Promise<SignedOriginTx> {
  const item = EvmTxDataSchema.parse({ from: account.address, to: tx.to, data: tx.data, value: tx.value, chainId: tx.chainId });
  const signed = await signEvmStepItem(client, account, item);
  return { chainId: signed.chainId, txHash: signed.txHash, rawTx: signed.rawTx, request: signedTxRecord(signed) };
}
