/**
 * Re-checks mined origin transactions of in-flight transfers until a re-check itself sees them final under the
 * chain's policy (EVM: in their recorded block, `chains.<name>.confirmations` blocks deep, the including block
 * counted; the adapter decides, src/chains/adapter.ts `recheck`). Then they are marked
 * final and never re-checked. A transaction a reorg removed loses its receipt in the store, and a `deposited`
 * transfer goes back to `broadcast`, so reconciliation (src/cycle/reconcile.ts) finds it again or sends the
 * exact recorded transaction again; until then the planner stops counting the origin as settled.
 *
 * A missing receipt alone is not a reorg (a load-balanced node may answer from a backend that lags): it counts
 * as one only when the recorded block is no longer the chain's block at that height (its hash differs). A
 * lookup that fails, or a node that does not have the block yet, changes nothing this cycle.
 */
import type { Recheck } from '../chains/adapter.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { lockTransferStatus } from '../store/requestStatus.ts';
import { markTxConfirmed, markTxFinal, markTxReorged, transitionTransfer, type TransferRow } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';

/** What re-checking unfinal origin transactions uses: the store, the chain adapters, the logger, metrics and the clock. */
export type ReorgDeps = Pick<CycleContext, 'db' | 'chains' | 'logger' | 'metrics' | 'now'>;

/**
 * Re-checks the mined, not yet final transactions of one in-flight transfer.
 *
 * @returns how many of its transactions a reorg removed or moved to another block
 * @throws the node's error when the head block cannot be read (the caller leaves the transfer as it is)
 */
export async function recheckUnfinal(ctx: ReorgDeps, row: TransferRow): Promise<number> {
  const chain = ctx.chains.get(row.originChain);
  const mined = row.txs.filter(
    (t) => (t.status === 'confirmed' || t.status === 'reverted') && t.blockNumber !== null && t.finalAtMs === null,
  );
  if (!chain || mined.length === 0) return 0;
  const head = await chain.head();
  const log = ctx.logger.child({ component: 'reorg', transferId: row.id, requestId: row.requestId, chainId: row.originChainId });
  let changed = 0;
  for (const tx of mined) {
    let found: Recheck;
    try {
      // Mined rows carry their block (the filter above) and a status of confirmed or reverted.
      found = await chain.recheck(
        { ...tx, status: tx.status as 'confirmed' | 'reverted', blockNumber: tx.blockNumber!, amountIn: row.amountIn },
        head,
      );
    } catch (error) {
      found = { kind: 'unknown', why: shortErrorMessage(error) };
    }
    if (found.kind === 'unknown') {
      log.warn({ txHash: tx.txHash, why: found.why }, 'receipt re-check inconclusive; the transaction stays as recorded');
      continue;
    }
    if (found.kind === 'same') {
      if (found.final) await markTxFinal(ctx.db, tx.id, ctx.now());
      continue;
    }
    // One transaction: the receipt's loss and the step back to `broadcast` are stored together, decided on the
    // transfer's status as locked now (a webhook event may have closed it since it was read).
    const reopened = await ctx.db.transaction(async () => {
      await markTxReorged(ctx.db, tx.id);
      if (found.kind === 'moved') {
        await markTxConfirmed(ctx.db, tx.id, {
          status: found.status,
          blockNumber: found.blockNumber,
          blockHash: found.blockHash,
          nowMs: ctx.now(),
        });
        return false;
      }
      if (row.status !== 'deposited' || (await lockTransferStatus(ctx.db, row.id)) !== 'deposited') return false;
      await transitionTransfer(ctx.db, row.id, 'deposited', 'broadcast', {
        nowMs: ctx.now(),
        detail: `reorg removed ${tx.stepId} ${tx.txHash} from block ${tx.blockNumber}; reconciling`,
      });
      return true;
    });
    if (reopened) row.status = 'broadcast'; // keep the row read at the start in step with the store
    changed += 1;
    ctx.metrics.originReorgsTotal.inc({ chain: row.originChain });
    log.warn(
      {
        txHash: tx.txHash,
        step: tx.stepId,
        wasBlock: String(tx.blockNumber),
        nowBlock: found.kind === 'moved' ? String(found.blockNumber) : null,
      },
      found.kind === 'moved'
        ? 'reorg moved a mined origin transaction to another block'
        : 'reorg removed a mined origin transaction; it will be found or broadcast again',
    );
  }
  return changed;
}

/**
 * {@link recheckUnfinal} for every in-flight transfer; a chain that cannot be asked leaves its transfers as
 * they are.
 */
export async function recheckReorgs(ctx: ReorgDeps, rows: TransferRow[]): Promise<void> {
  for (const row of rows) {
    try {
      await recheckUnfinal(ctx, row);
    } catch (error) {
      ctx.logger.warn({ transferId: row.id, err: shortErrorMessage(error) }, 'reorg re-check failed; transfer stays as recorded');
    }
  }
}
