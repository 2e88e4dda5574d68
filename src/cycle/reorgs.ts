/**
 * Re-checks mined origin transactions of in-flight transfers until they are final: `chains.<name>.confirmations`
 * blocks deep (the including block counted). A transaction a reorg removed loses its receipt in the store, and a
 * `deposited` transfer goes back to `broadcast`, so reconciliation (src/cycle/reconcile.ts) finds it again or
 * sends the exact recorded transaction again. Until then the planner stops counting the origin as settled.
 */
import type { Hex } from 'viem';
import { orNullIfNotFound } from '../chains/evm/orNullIfNotFound.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { markTxConfirmed, markTxReorged, transitionTransfer, type TransferRow } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';

/** Whether a transaction mined at `blockNumber` is still short of `confirmations` blocks under `head`. */
export function belowFinality(blockNumber: bigint, head: bigint, confirmations: number): boolean {
  return head - blockNumber + 1n < BigInt(confirmations);
}

/**
 * Re-checks the mined transactions of one in-flight transfer that are not final yet. A lookup that fails
 * changes nothing (the transfer stays in flight as it is); "not found" means the reorg removed it.
 *
 * @returns how many of its transactions a reorg removed or moved to another block
 * @throws the node's error when the head block cannot be read (the caller leaves the transfer as it is)
 */
export async function recheckUnfinal(ctx: CycleContext, row: TransferRow): Promise<number> {
  const chain = ctx.chains.get(row.originChain);
  const mined = row.txs.filter((t) => (t.status === 'confirmed' || t.status === 'reverted') && t.blockNumber !== null);
  if (!chain || mined.length === 0) return 0;
  const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  const log = ctx.logger.child({ component: 'reorg', transferId: row.id, requestId: row.requestId, chainId: row.originChainId });
  let changed = 0;
  for (const tx of mined) {
    if (!belowFinality(tx.blockNumber!, head, chain.confirmations)) continue; // filtered on non-null above
    let receipt;
    try {
      receipt = await orNullIfNotFound(chain.publicClient.getTransactionReceipt({ hash: tx.txHash as Hex })); // keccak of the signed bytes
    } catch (error) {
      log.warn({ txHash: tx.txHash, err: shortErrorMessage(error) }, 'receipt re-check failed; the transaction stays as recorded');
      continue;
    }
    const status = receipt?.status === 'success' ? 'confirmed' : 'reverted';
    if (receipt && receipt.blockNumber === tx.blockNumber && status === tx.status) continue;
    markTxReorged(ctx.db, tx.id);
    if (receipt) markTxConfirmed(ctx.db, tx.id, { status, blockNumber: receipt.blockNumber, nowMs: ctx.now() });
    changed += 1;
    ctx.metrics.originReorgsTotal.inc({ chain: row.originChain });
    log.warn(
      { txHash: tx.txHash, step: tx.stepId, wasBlock: String(tx.blockNumber), nowBlock: receipt ? String(receipt.blockNumber) : null },
      receipt ? 'reorg moved a mined origin transaction to another block' : 'reorg removed a mined origin transaction; it will be found or sent again',
    );
    if (!receipt && row.status === 'deposited') {
      transitionTransfer(ctx.db, row.id, 'deposited', 'broadcast', {
        nowMs: ctx.now(),
        detail: `reorg removed ${tx.stepId} ${tx.txHash} from block ${tx.blockNumber}; reconciling`,
      });
      row.status = 'broadcast'; // keep the row read at the start in step with the store
    }
  }
  return changed;
}

/**
 * {@link recheckUnfinal} for every in-flight transfer; a chain that cannot be asked leaves its transfers as
 * they are.
 */
export async function recheckReorgs(ctx: CycleContext, rows: TransferRow[]): Promise<void> {
  for (const row of rows) {
    try {
      await recheckUnfinal(ctx, row);
    } catch (error) {
      ctx.logger.warn({ transferId: row.id, err: shortErrorMessage(error) }, 'reorg re-check failed; transfer stays as recorded');
    }
  }
}
