/**
 * Records of the transactions the solver sends for a request (GET /requests/v3 `data.outTxs`): sent, then
 * completed from the mined receipt with its block, block timestamp, fee and outcome.
 */
import type { TransactionReceipt } from 'viem';
import type { OutTx } from '../api/requestStore.ts';

/** The one read {@link minedOutTx} needs (a viem public client satisfies it). */
export interface BlockSource {
  getBlock(args: { blockNumber: bigint }): Promise<{ timestamp: bigint }>;
}

/**
 * A just-broadcast transaction (EVM hash, Solana signature or Bitcoin txid) paying `amount` (base units) to its
 * recipient: nothing known about its outcome yet.
 */
export function sentOutTx(txHash: string, chainId: number, kind: OutTx['kind'], amount: bigint | null = null): OutTx {
  return { txHash, chainId, kind, amount, block: null, timestampSec: null, feeWei: null, status: null };
}

/**
 * Completes a sent transaction's record from its mined receipt: block number, the block's timestamp (unix
 * seconds; null when the block cannot be read), fee = gasUsed × effectiveGasPrice (wei) and the outcome.
 *
 * @throws never: a failed block read only leaves `timestampSec` null
 */
export async function minedOutTx(client: BlockSource, sent: OutTx, receipt: TransactionReceipt): Promise<OutTx> {
  let timestampSec: number | null = null;
  try {
    timestampSec = Number((await client.getBlock({ blockNumber: receipt.blockNumber })).timestamp);
  } catch {
    // the outcome is already known from the receipt; the timestamp is informational only
  }
  return {
    ...sent,
    block: Number(receipt.blockNumber),
    timestampSec,
    feeWei: receipt.gasUsed * receipt.effectiveGasPrice,
    status: receipt.status === 'success' ? 'success' : 'failure',
  };
}
