/**
 * Ends an unwanted deposit provably (never pay twice): a Bitcoin transaction never expires, so a deposit
 * still unmined after its order deadline could land at any later time from any node's mempool, after the need
 * was planned and paid again. Instead of reading the passed deadline as proof, Ballast replaces the deposit with
 * a transaction of its own spending the same inputs back to our wallet at a higher fee (the adapter's `cancel`,
 * BIP-125), written ahead like every signature, broadcast, and re-broadcast while unknown to the node. The
 * transfer stays in flight; reconciliation fails it only once `lookup` answers `dropped` (the replacement, or any
 * other spend of an input, mined at the chain's reorg depth) and no deposit for the order is proven twice.
 *
 * Nothing is signed or sent while the kill switch is engaged, nor by a replica that no longer leads.
 */
import type { ChainAdapter, SignedOriginTx } from '../chains/adapter.ts';
import { depositCancellerOf } from '../chains/capabilities.ts';
import { crashPoint } from '../core/crashPoints.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { CANCEL_STEP_SUFFIX } from '../store/transferRows.ts';
import { addTransferTx, markTxConfirmed, markTxReorged, markTxSent, type TransferRow } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';
import { killSwitchVerdict } from './spendingGate.ts';

/** What ending an unwanted deposit uses: the store, the kill switch config, the leader check, metrics and the clock. */
export type EndDepositDeps = Pick<CycleContext, 'db' | 'config' | 'leading' | 'metrics' | 'now'>;

type Tx = TransferRow['txs'][number];

/**
 * Makes sure a replacement ending `deposit` is signed, recorded and known to the node: signs and broadcasts one
 * when the transfer has none; otherwise looks the recorded one up, marks it mined when it is, and sends it again
 * exactly as signed when the node does not know it. Errors are logged and leave the transfer in flight (the next
 * cycle tries again); an error never fails a transfer.
 *
 * @param deposit the transfer's unmined deposit transaction
 * @param detail what the lookup of the deposit said, for the log
 * @returns what was done: `signed` (a new replacement written ahead and sent), `resent`, `waiting` (recorded
 *   and known to the node, or mined), `halted` (kill switch or lost lead) or `failed` (see the log)
 */
export async function endUnwantedDeposit(
  ctx: EndDepositDeps,
  chain: ChainAdapter,
  row: TransferRow,
  deposit: Tx,
  log: CycleContext['logger'],
  detail?: string,
): Promise<'signed' | 'resent' | 'waiting' | 'halted' | 'failed'> {
  const labels = { chain: row.originChain };
  const halted = killSwitchVerdict(ctx);
  if (halted) {
    log.warn({ txHash: deposit.txHash, reason: halted.reason }, `deposit unmined past its order deadline; not replaced: ${halted.detail}`);
    return 'halted';
  }
  const recorded = row.cancels.at(-1);
  if (recorded) return await keepAlive(ctx, chain, row, recorded, log);
  const canceller = depositCancellerOf(chain);
  if (!canceller) return 'failed';
  if (ctx.leading && !ctx.leading()) return 'halted';
  let signed: SignedOriginTx;
  try {
    signed = await canceller.cancel(row.user, deposit);
  } catch (error) {
    log.error(
      { txHash: deposit.txHash, err: shortErrorMessage(error) },
      'deposit unmined past its order deadline; replacing it failed, tried again next cycle',
    );
    ctx.metrics.originReplacementsTotal.inc({ ...labels, outcome: 'sign_failed' });
    return 'failed';
  }
  const id = await addTransferTx(ctx.db, row.id, {
    stepId: `${deposit.stepId}${CANCEL_STEP_SUFFIX}`,
    itemIndex: deposit.itemIndex,
    chainId: signed.chainId,
    request: signed.request,
    txHash: signed.txHash,
    rawTx: signed.rawTx,
    nowMs: ctx.now(),
  });
  crashPoint('cancel:written');
  if (ctx.leading && !ctx.leading()) return 'halted'; // the leader reconciles the written row and sends it
  log.warn(
    { txHash: deposit.txHash, replacement: signed.txHash, detail },
    'deposit unmined past its order deadline; replaced by a transaction returning its inputs to our wallet',
  );
  try {
    await chain.broadcast(signed.rawTx);
  } catch (error) {
    log.warn(
      { replacement: signed.txHash, err: shortErrorMessage(error) },
      'sending the replacement failed; outcome unknown, looked up next cycle',
    );
  }
  await markTxSent(ctx.db, id, ctx.now());
  ctx.metrics.originReplacementsTotal.inc({ ...labels, outcome: 'sent' });
  return 'signed';
}

/** Looks a recorded replacement up: mined → recorded; unknown → sent again exactly as signed; else nothing. */
async function keepAlive(ctx: EndDepositDeps, chain: ChainAdapter, row: TransferRow, cancel: Tx, log: CycleContext['logger']) {
  let found; // looked up even when recorded as mined: a reorg may have removed it since

  try {
    found = await chain.lookup(cancel, row.user);
  } catch (error) {
    log.warn({ replacement: cancel.txHash, err: shortErrorMessage(error) }, 'looking up the replacement failed; transfer stays in flight');
    return 'failed' as const;
  }
  if (found.state === 'mined') {
    if (cancel.status === 'confirmed') return 'waiting' as const;
    if (cancel.status === 'signed') await markTxSent(ctx.db, cancel.id, ctx.now());
    await markTxConfirmed(ctx.db, cancel.id, {
      status: found.status,
      blockNumber: found.blockNumber,
      blockHash: found.blockHash,
      nowMs: ctx.now(),
    });
    return 'waiting' as const;
  }
  if (found.state !== 'unknown') return 'waiting' as const;
  if (ctx.leading && !ctx.leading()) return 'halted' as const;
  if (cancel.status === 'confirmed') await markTxReorged(ctx.db, cancel.id); // a reorg took it out of the chain
  ctx.metrics.originRebroadcastsTotal.inc({ chain: row.originChain, kind: 'replacement' });
  try {
    await chain.broadcast(cancel.rawTx);
  } catch (error) {
    log.warn({ replacement: cancel.txHash, err: shortErrorMessage(error) }, 'sending the replacement again failed; outcome unknown');
  }
  if (cancel.status === 'signed') await markTxSent(ctx.db, cancel.id, ctx.now());
  log.warn({ replacement: cancel.txHash }, 'replacement unknown to the node; sent again exactly as signed');
  return 'resent' as const;
}

/**
 * Records the receipt of every replacement of `row` the chain has mined and the store does not know of yet:
 * reconciliation calls it when the deposit is proven dead (`dropped`), which may be the first look after the
 * replacement was mined (Ballast down for the reorg depth or longer), so the transfer's record names the
 * transaction that ended its deposit, with its block. A lookup error is logged; nothing else is sent or signed.
 */
export async function recordReplacementsMined(
  ctx: EndDepositDeps,
  chain: ChainAdapter,
  row: TransferRow,
  log: CycleContext['logger'],
): Promise<void> {
  for (const cancel of row.cancels) {
    if (cancel.status === 'confirmed') continue;
    try {
      const found = await chain.lookup(cancel, row.user);
      if (found.state !== 'mined') continue;
      if (cancel.status === 'signed') await markTxSent(ctx.db, cancel.id, ctx.now());
      await markTxConfirmed(ctx.db, cancel.id, {
        status: found.status,
        blockNumber: found.blockNumber,
        blockHash: found.blockHash,
        nowMs: ctx.now(),
      });
    } catch (error) {
      log.warn(
        { replacement: cancel.txHash, err: shortErrorMessage(error) },
        'looking up the replacement failed; its receipt is recorded later',
      );
    }
  }
}
