/**
 * Ends an unwanted deposit provably (never pay twice): a Bitcoin transaction never expires, so a deposit
 * still unmined after its order deadline could land at any later time from any node's mempool, after the need
 * was planned and paid again. Instead of reading the passed deadline as proof, Ballast replaces the deposit with
 * a cancel of its own spending the same inputs back to our wallet (the adapter's `depositCanceller`, BIP-125),
 * written ahead like every signature and sent. The transfer stays in flight; reconciliation fails it only once
 * `lookup` answers `dropped` (the cancel, or any other spend of an input, mined at the chain's reorg depth) and
 * no deposit for the order is proven twice.
 *
 * A cancel is priced for the market (the node's estimate for the next one to two blocks) and never above its
 * caps. Each cycle, what became of the cancels signed so far decides what is done:
 * - one is mined: its receipt is recorded; nothing more is signed (a mined cancel a reorg removed is marked so);
 * - the last one is in the node's mempool: it is re-priced once it has stayed unmined
 *   `chains.<name>.cancelRepriceAfterBlocks` blocks (a new cancel out-paying it, written ahead and sent);
 * - the node does not know the last one: it is sent again exactly as signed, and re-priced when the node
 *   refuses it (an insufficient fee for BIP-125, the mempool's minimum fee);
 * - no cancel fits under the caps, or one pays its cap: the transfer is flagged stalled (history event,
 *   `transfer_stalled` notification, `ballast_origin_replacements_total{outcome="at_cap"}`) and stays in flight,
 *   visible, with its last cancel kept alive; nothing loops silently.
 * A cancel counts `sent` only when the node accepted it.
 *
 * Nothing is signed or sent while the kill switch is engaged, nor by a replica that no longer leads.
 */
import type { ChainAdapter, RecordedTx, TxLookup } from '../chains/adapter.ts';
import { depositCancellerOf, type CancelResult, type DepositCanceller } from '../chains/capabilities.ts';
import { crashPoint } from '../core/crashPoints.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { notify } from '../notify/notify.ts';
import { cancelAtCapEvent } from '../notify/eventOf.ts';
import { cancelStepId } from '../store/transferRows.ts';
import { addTransferTx, markTransferStalled, markTxConfirmed, markTxReorged, markTxSent, type TransferRow } from '../store/transfers.ts';
import type { CycleContext } from './context.ts';
import { killSwitchVerdict } from './spendingGate.ts';

/** What ending an unwanted deposit uses: the store, the kill switch and notify config, the leader check, metrics and the clock. */
export type EndDepositDeps = Pick<CycleContext, 'db' | 'config' | 'leading' | 'metrics' | 'now'>;

type Tx = TransferRow['txs'][number];
type Log = CycleContext['logger'];

/**
 * What {@link endUnwantedDeposit} did: `signed` (a new cancel written ahead and sent), `resent`, `waiting`
 * (a cancel is mined, pending, or the deposit's parent decides first), `at_cap` (no cancel fits under the caps;
 * the transfer is flagged), `halted` (kill switch or lost lead) or `failed` (see the log).
 */
export type EndDepositOutcome = 'signed' | 'resent' | 'waiting' | 'at_cap' | 'halted' | 'failed';

/**
 * Makes sure a cancel ending `deposit` is signed, recorded, known to the node and priced for the market (see
 * the module doc). Errors are logged and leave the transfer in flight (the next cycle tries again); an error
 * never fails a transfer.
 *
 * @param deposit the transfer's unmined deposit transaction
 * @param detail what the lookup of the deposit said, for the log
 */
export async function endUnwantedDeposit(
  ctx: EndDepositDeps,
  chain: ChainAdapter,
  row: TransferRow,
  deposit: Tx,
  log: Log,
  detail?: string,
): Promise<EndDepositOutcome> {
  const halted = killSwitchVerdict(ctx);
  if (halted) {
    log.warn({ txHash: deposit.txHash, reason: halted.reason }, `deposit unmined past its order deadline; not replaced: ${halted.detail}`);
    return 'halted';
  }
  const canceller = depositCancellerOf(chain);
  if (!canceller) return 'failed';
  if (row.cancels.length > 0) {
    const next = await followCancels(ctx, chain, canceller, row, log);
    if (next !== 'reprice') return next;
  }
  if (ctx.leading && !ctx.leading()) return 'halted';
  const labels = { chain: row.originChain };
  let result: CancelResult;
  try {
    result = await canceller.cancel(row.user, deposit, row.cancels);
  } catch (error) {
    log.error(
      { txHash: deposit.txHash, err: shortErrorMessage(error) },
      'deposit unmined past its order deadline; cancelling it failed, tried again next cycle',
    );
    ctx.metrics.originReplacementsTotal.inc({ ...labels, outcome: 'sign_failed' });
    return 'failed';
  }
  if (result.kind === 'waitsForParent') {
    log.warn({ txHash: deposit.txHash, why: result.detail }, 'deposit unmined past its order deadline; its parent decides first');
    return 'waiting';
  }
  if (result.kind === 'atCap') {
    ctx.metrics.originReplacementsTotal.inc({ ...labels, outcome: 'at_cap' });
    await flagAtCap(ctx, row, `deposit ${deposit.txHash} unmined past its order deadline; ${result.detail}`, log);
    return 'at_cap';
  }
  const { signed } = result;
  const id = await addTransferTx(ctx.db, row.id, {
    stepId: cancelStepId(deposit.stepId, row.cancels.length + 1),
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
    { txHash: deposit.txHash, cancel: signed.txHash, feeSat: String(result.feeSat), replaces: row.cancels.length, detail },
    row.cancels.length === 0
      ? 'deposit unmined past its order deadline; cancelled by a transaction returning its inputs to our wallet'
      : 'cancel re-priced: replaced by one paying the market',
  );
  await sendCancel(ctx, canceller, row, { id, status: 'signed', ...signed }, log, false);
  if (result.capped) {
    await flagAtCap(
      ctx,
      row,
      `cancel ${signed.txHash} of deposit ${deposit.txHash} pays its cap of ${result.feeSat} sat; the market asked ${result.wantedSat} sat (raise maxCancelFeeSats or maxFeeRateSatPerVb)`,
      log,
    );
  }
  return 'signed';
}

/** Sends a recorded cancel; counts it `sent` only when the node accepted it. @returns whether the node refused it */
async function sendCancel(
  ctx: EndDepositDeps,
  canceller: DepositCanceller,
  row: TransferRow,
  cancel: RecordedTx & { id: number; status: string },
  log: Log,
  again: boolean,
): Promise<'accepted' | 'refused' | 'unknown'> {
  const labels = { chain: row.originChain };
  if (again) ctx.metrics.originRebroadcastsTotal.inc({ ...labels, kind: 'replacement' });
  let outcome: 'accepted' | 'refused' | 'unknown';
  try {
    const answer = await canceller.send(cancel.rawTx);
    if (answer.accepted) outcome = 'accepted';
    else {
      outcome = 'refused';
      log.warn({ cancel: cancel.txHash, reason: answer.reason }, 'the node refused the cancel; it is re-priced');
    }
  } catch (error) {
    outcome = 'unknown';
    log.warn({ cancel: cancel.txHash, err: shortErrorMessage(error) }, 'sending the cancel failed; outcome unknown, looked up next cycle');
  }
  if (outcome !== 'refused' && cancel.status === 'signed') await markTxSent(ctx.db, cancel.id, ctx.now());
  if (!again)
    ctx.metrics.originReplacementsTotal.inc({
      ...labels,
      outcome: { accepted: 'sent', refused: 'refused', unknown: 'send_failed' }[outcome],
    });
  return outcome;
}

/**
 * Follows the cancels already signed (newest first): a mined one is recorded and ends the matter; the last
 * one, pending for `cancelRepriceAfterBlocks` or refused by the node, is due to be re-priced; unknown to the
 * node, it is sent again exactly as signed.
 *
 * @returns `reprice` when a new cancel must be signed, else what was done
 */
async function followCancels(
  ctx: EndDepositDeps,
  chain: ChainAdapter,
  canceller: DepositCanceller,
  row: TransferRow,
  log: Log,
): Promise<EndDepositOutcome | 'reprice'> {
  const found = new Map<Tx, TxLookup>();
  try {
    for (const cancel of [...row.cancels].reverse()) {
      const state = await chain.lookup(cancel, row.user); // looked up even when recorded as mined: a reorg may have removed it since
      found.set(cancel, state);
      if (state.state === 'mined') {
        await recordMined(ctx, cancel, state);
        return 'waiting';
      }
    }
  } catch (error) {
    log.warn({ err: shortErrorMessage(error) }, 'looking up the cancel failed; transfer stays in flight');
    return 'failed';
  }
  for (const cancel of row.cancels) if (cancel.status === 'confirmed') await markTxReorged(ctx.db, cancel.id); // a reorg took it out
  const last = row.cancels.at(-1)!; // the caller checked there is one
  const state = found.get(last)!; // every cancel was looked up above
  try {
    if (state.state === 'pending') {
      if (state.detail !== undefined || !(await canceller.repriceDue(last))) return 'waiting';
      log.warn({ cancel: last.txHash }, 'cancel still unmined after chains.<name>.cancelRepriceAfterBlocks blocks; re-priced');
      return 'reprice';
    }
  } catch (error) {
    log.warn({ err: shortErrorMessage(error) }, 'reading the tip failed; the cancel is re-priced later');
    return 'failed';
  }
  if (state.state !== 'unknown') return 'waiting'; // dropped: another spend ended it; the deposit's lookup decides
  if (ctx.leading && !ctx.leading()) return 'halted';
  const sent = await sendCancel(ctx, canceller, row, last, log, true);
  if (sent === 'refused') return 'reprice';
  if (sent === 'accepted') log.warn({ cancel: last.txHash }, 'cancel unknown to the node; broadcast again exactly as signed');
  return 'resent';
}

async function recordMined(ctx: EndDepositDeps, cancel: Tx, found: Extract<TxLookup, { state: 'mined' }>): Promise<void> {
  if (cancel.status === 'confirmed' && cancel.blockHash === found.blockHash) return;
  if (cancel.status === 'confirmed') await markTxReorged(ctx.db, cancel.id); // moved to another block
  if (cancel.status === 'signed') await markTxSent(ctx.db, cancel.id, ctx.now());
  await markTxConfirmed(ctx.db, cancel.id, {
    status: found.status,
    blockNumber: found.blockNumber,
    blockHash: found.blockHash,
    nowMs: ctx.now(),
  });
}

/** Flags the transfer stalled with why (history event every time), and queues its `transfer_stalled` alert once. */
async function flagAtCap(ctx: EndDepositDeps, row: TransferRow, detail: string, log: Log): Promise<void> {
  log.error({ detail }, 'deposit cannot be ended within the cancel caps; transfer stays in flight and needs an operator look');
  try {
    await markTransferStalled(ctx.db, row.id, { nowMs: ctx.now(), detail, noteAgain: true });
    await notify({ ...ctx, logger: log }, cancelAtCapEvent(row, detail));
  } catch (error) {
    log.warn({ err: shortErrorMessage(error) }, 'could not flag the transfer stalled');
  }
}

/**
 * Records the receipt of every cancel of `row` the chain has mined and the store does not know of yet:
 * reconciliation calls it when the deposit is proven dead (`dropped`), which may be the first look after the
 * cancel was mined (Ballast down for the reorg depth or longer), so the transfer's record names the
 * transaction that ended its deposit, with its block. A lookup error is logged; nothing else is sent or signed.
 */
export async function recordReplacementsMined(ctx: EndDepositDeps, chain: ChainAdapter, row: TransferRow, log: Log): Promise<void> {
  for (const cancel of row.cancels) {
    try {
      const found = await chain.lookup(cancel, row.user);
      if (found.state === 'mined') await recordMined(ctx, cancel, found);
    } catch (error) {
      log.warn({ cancel: cancel.txHash, err: shortErrorMessage(error) }, 'looking up the cancel failed; its receipt is recorded later');
    }
  }
}

/**
 * Marks reorged every cancel of `row` recorded as mined that the chain no longer has in a block: called when
 * the deposit itself is found mined (a reorg replaced our cancel by it), so the ledger counts the deposit's
 * fee, not a cancel that paid nothing. A lookup error is logged and changes nothing.
 */
export async function clearCancelsReorged(ctx: EndDepositDeps, chain: ChainAdapter, row: TransferRow, log: Log): Promise<void> {
  for (const cancel of row.cancels) {
    if (cancel.status !== 'confirmed') continue;
    try {
      if ((await chain.lookup(cancel, row.user)).state !== 'mined') await markTxReorged(ctx.db, cancel.id);
    } catch (error) {
      log.warn({ cancel: cancel.txHash, err: shortErrorMessage(error) }, 'looking up the cancel failed; its receipt is checked later');
    }
  }
}
