/**
 * Turns a verified EVM step item into a locally signed transaction whose hash is known before broadcast,
 * so the executor can write it ahead (docs/design.md "Write the intent row before broadcasting").
 *
 * Gas limit and fee caps come from our own node, not from the quote: a quote's `maxFeePerGas` is advisory and
 * must not let a tampered response set what the hot wallet pays for gas.
 */
import { getAddress, isAddressEqual, keccak256, type Hex, type LocalAccount, type PublicClient } from 'viem';
import type { EvmTxData } from '@ballast/protocol/relay/schemas.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';

/** A signed EVM transaction ready to broadcast. Amount and gas fields are bigint (wei / gas units). */
export interface SignedEvmTransaction {
  chainId: number;
  from: Hex;
  to: Hex;
  data: Hex;
  value: bigint;
  nonce: number;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** Serialized signed transaction (EIP-2718 type 2). */
  rawTx: Hex;
  /** keccak256 of `rawTx`: the transaction hash the chain will report. */
  txHash: Hex;
}

/** Raised when a step item cannot be signed by this wallet on this chain. `code` is stable. */
export class EvmSignError extends BallastError {
  readonly code = 'EVM_SIGN_REFUSED';
}

/** Safety margin on our own gas estimate, in percent. */
export const GAS_LIMIT_MARGIN_PERCENT = 20n;

/**
 * Signs one EVM step item with `account`.
 *
 * @param client public client of the item's chain (nonce, gas and fee estimates)
 * @param account hot-wallet account; must equal the item's `from`
 * @param item parsed step item `data` (docs/relay-contract.md "Step item", EVM fields)
 * @param nonceOverride nonce to use instead of the node's pending count (sequential items)
 * @returns the signed transaction, its raw bytes and hash
 * @throws EvmSignError when `from` or `chainId` do not match; viem errors when estimation fails (e.g. the call reverts)
 */
export async function signEvmStepItem(
  client: PublicClient,
  account: LocalAccount,
  item: EvmTxData,
  nonceOverride?: number,
): Promise<SignedEvmTransaction> {
  const chainId = await client.getChainId();
  if (item.chainId !== chainId) {
    throw new EvmSignError(`step item chainId ${item.chainId} differs from the RPC's chain ${chainId}; check chains.<name>.rpcUrl`);
  }
  if (!isAddressEqual(getAddress(item.from), account.address)) {
    throw new EvmSignError(`step item from ${item.from} is not our wallet ${account.address}`);
  }
  const to = getAddress(item.to);
  const data = item.data as Hex; // schema checked hex
  const value = BigInt(item.value);
  const nonce = nonceOverride ?? (await client.getTransactionCount({ address: account.address, blockTag: 'pending' }));
  const estimate = await client.estimateGas({ account: account.address, to, data, value });
  const gas = estimate + (estimate * GAS_LIMIT_MARGIN_PERCENT) / 100n;
  const fees = await client.estimateFeesPerGas();
  const tx = {
    type: 'eip1559' as const,
    chainId,
    to,
    data,
    value,
    nonce,
    gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  };
  if (!account.signTransaction) throw new EvmSignError('account cannot sign transactions');
  const rawTx = await account.signTransaction(tx);
  return { ...tx, from: account.address, rawTx, txHash: keccak256(rawTx) };
}

/**
 * JSON-safe view of a signed transaction for the write-ahead row (bigints as decimal strings).
 */
export function signedTxRecord(tx: SignedEvmTransaction): Record<string, string | number> {
  return {
    chainId: tx.chainId,
    from: tx.from,
    to: tx.to,
    data: tx.data,
    value: tx.value.toString(),
    nonce: tx.nonce,
    gas: tx.gas.toString(),
    maxFeePerGas: tx.maxFeePerGas.toString(),
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString(),
  };
}
