/**
 * Records a deposit for a transfer's order that reconciliation found on chain (src/cycle/reconcile.ts): an
 * operator's speed-up of our deposit, or a deposit a lagging backend did not show, whose hash we never signed.
 * It becomes the transfer's deposit (`<step>:replacement`) with its block. Found again later (a reorg removed it
 * and it was mined again), the row already recorded for it is marked mined again instead of a second row; a
 * different deposit found after that (a second speed-up) gets the next step id (`<step>:replacement:2`, …), since
 * step ids are unique per transfer and item.
 */
import type { FoundDeposit } from '../chains/adapter.ts';
import { sameTxId } from '../core/txId.ts';
import { REPLACEMENT_STEP_MARKER } from '../store/transferRows.ts';
import { addTransferTx, markTxConfirmed, markTxSent, type TransferRow } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';

/**
 * Records `found` as the deposit of `row` (see the module doc), mined at its block.
 *
 * @param at the quote's deposit item (step id and item index)
 * @param replaces the hash of our own deposit it took the place of
 */
export async function recordFoundDeposit(
  ctx: Pick<CycleContext, 'db' | 'now'>,
  row: TransferRow,
  at: { stepId: string; itemIndex: number },
  found: FoundDeposit,
  replaces: string,
): Promise<void> {
  const mined = { status: 'confirmed' as const, blockNumber: found.blockNumber, blockHash: found.blockHash, nowMs: ctx.now() };
  const known = row.txs.find((t) => sameTxId(t.txHash, found.txHash));
  if (known) {
    if (known.status === 'confirmed') return;
    if (known.status === 'signed') await markTxSent(ctx.db, known.id, ctx.now());
    await markTxConfirmed(ctx.db, known.id, mined);
    return;
  }
  const base = `${at.stepId}${REPLACEMENT_STEP_MARKER}`;
  const taken = new Set(row.txs.filter((t) => t.itemIndex === at.itemIndex).map((t) => t.stepId));
  let stepId = base;
  for (let n = 2; taken.has(stepId); n++) stepId = `${base}:${n}`;
  const id = await addTransferTx(ctx.db, row.id, {
    stepId,
    itemIndex: at.itemIndex,
    chainId: row.originChainId,
    request: { source: 'depository event', replaces },
    txHash: found.txHash,
    rawTx: '0x',
    nowMs: ctx.now(),
  });
  await markTxSent(ctx.db, id, ctx.now());
  await markTxConfirmed(ctx.db, id, mined);
}
