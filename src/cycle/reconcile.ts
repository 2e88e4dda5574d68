/**
 * Reconciles transfers whose origin transactions were left unconfirmed (status `prepared` or `broadcast`):
 * a receipt wait that timed out, a broadcast whose outcome was unknown, a crash between the write-ahead row and
 * the broadcast. Each recorded transaction is looked up on chain by the hash written before it was sent.
 *
 * Outcomes, per transfer:
 * - every verified item mined successfully → `deposited` (the status endpoint takes over);
 * - a transaction reverted → `origin_failed`;
 * - a transaction the node does not know whose nonce another transaction has used → `origin_failed` (it can
 *   never be mined);
 * - a transaction the node does not know, nonce still free, order deadline passed → `origin_failed` (were it
 *   mined now, the expired order would be refunded, not filled);
 * - the executor stopped after some items and the rest were never signed → `origin_failed`;
 * - otherwise (still pending, or unknown with time left) → unchanged, still in flight.
 */
import type { Hex, PublicClient } from 'viem';
import { QuoteResponseSchema } from '../relay/schemas.ts';
import { getQuote } from '../store/quotes.ts';
import { markTxConfirmed, markTxSent, transitionTransfer, type TransferRow } from '../store/transfers.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { collectExecutableItems } from '../executor/collectItems.ts';
import type { CycleContext } from './context.ts';

/** What the chain says about one recorded transaction (with the block of a mined one). */
type TxState =
  | { state: 'confirmed' | 'reverted'; blockNumber: bigint }
  | { state: 'pending' | 'dropped' | 'unknown' };

async function txState(client: PublicClient, row: TransferRow, tx: TransferRow['txs'][number]): Promise<TxState> {
  const hash = tx.txHash as Hex; // written by the executor from keccak256 of the signed bytes
  const receipt = await client.getTransactionReceipt({ hash }).catch(() => null);
  if (receipt) return { state: receipt.status === 'success' ? 'confirmed' : 'reverted', blockNumber: receipt.blockNumber };
  const pending = await client.getTransaction({ hash }).catch(() => null);
  if (pending) return { state: 'pending' };
  const nonce = Number((tx.request as { nonce?: number | string }).nonce); // signedTxRecord stores the nonce
  const latest = await client.getTransactionCount({ address: row.user as Hex, blockTag: 'latest' });
  return { state: Number.isInteger(nonce) && latest > nonce ? 'dropped' : 'unknown' };
}

/**
 * Where the verified quote's deposit is (its last item: approvals come first, spec "Step") and its order
 * deadline (unix seconds). The executor may skip an approval the allowance already covers, or add a reset to
 * zero before one, so the number of recorded transactions says nothing; whether the deposit was written does.
 */
function quoteFacts(ctx: CycleContext, row: TransferRow): { deposit: { stepId: string; itemIndex: number } | null; deadlineSec: number } | null {
  if (row.quoteId === null) return null;
  const parsed = QuoteResponseSchema.safeParse(getQuote(ctx.db, row.quoteId)?.raw);
  if (!parsed.success) return null;
  const deadlineSec = parsed.data.protocol?.v2?.orderData.output.deadline ?? 0;
  const last = collectExecutableItems(parsed.data).at(-1);
  return { deposit: last ? { stepId: last.stepId, itemIndex: last.itemIndex } : null, deadlineSec };
}

/**
 * Reconciles one transfer in `prepared` or `broadcast`.
 *
 * @returns the status after reconciliation
 */
export async function reconcileOrigin(ctx: CycleContext, row: TransferRow): Promise<TransferRow['status']> {
  const chain = ctx.chains.get(row.originChain);
  if (!chain) return row.status;
  const log = ctx.logger.child({ component: 'reconcile', transferId: row.id, requestId: row.requestId });
  let status = row.status;
  const move = (to: 'broadcast' | 'deposited' | 'origin_failed', detail: string) => {
    transitionTransfer(ctx.db, row.id, status, to, { nowMs: ctx.now(), detail, ...(to === 'origin_failed' ? { error: detail } : {}) });
    log.warn({ from: status, to, detail }, 'transfer reconciled');
    status = to;
  };
  const facts = quoteFacts(ctx, row);
  for (const tx of row.txs) {
    if (tx.status === 'reverted') {
      move('origin_failed', `${tx.stepId} ${tx.txHash} reverted`);
      return status;
    }
    if (tx.status === 'confirmed') continue;
    const found = await txState(chain.publicClient, row, tx);
    if (found.state === 'confirmed' || found.state === 'reverted') {
      if (tx.status === 'signed') markTxSent(ctx.db, tx.id, ctx.now());
      if (status === 'prepared') move('broadcast', `${tx.stepId} ${tx.txHash} found on chain`);
      markTxConfirmed(ctx.db, tx.id, { status: found.state, blockNumber: found.blockNumber, nowMs: ctx.now() });
      if (found.state === 'reverted') {
        move('origin_failed', `${tx.stepId} ${tx.txHash} reverted`);
        return status;
      }
      continue;
    }
    if (found.state === 'pending') return status;
    if (found.state === 'dropped') {
      move('origin_failed', `${tx.stepId} ${tx.txHash} was never mined: its nonce was used by another transaction`);
      return status;
    }
    if (facts && facts.deadlineSec * 1000 < ctx.now()) {
      move('origin_failed', `${tx.stepId} ${tx.txHash} unknown to the node and the order deadline has passed`);
    }
    return status;
  }
  // Every recorded transaction is mined and succeeded.
  const deposit = facts?.deposit;
  if (deposit && !row.txs.some((t) => t.stepId === deposit.stepId && t.itemIndex === deposit.itemIndex)) {
    move('origin_failed', `execution stopped after ${row.txs.length} transaction(s) before the deposit; the deposit was never signed`);
    return status;
  }
  if (status === 'prepared') move('broadcast', 'transactions found on chain');
  move('deposited', row.txs.map((t) => t.txHash).join(','));
  return status;
}

/**
 * Reconciles every transfer left `prepared` or `broadcast`; a chain that cannot be asked leaves its transfers
 * as they are (still in flight, still counted by the planner).
 */
export async function reconcileOrigins(ctx: CycleContext, rows: TransferRow[]): Promise<void> {
  for (const row of rows) {
    if (row.status !== 'prepared' && row.status !== 'broadcast') continue;
    try {
      await reconcileOrigin(ctx, row);
    } catch (error) {
      ctx.logger.warn({ transferId: row.id, err: shortErrorMessage(error) }, 'origin reconciliation failed; transfer stays in flight');
    }
  }
}
