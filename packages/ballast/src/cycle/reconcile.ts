/**
 * Reconciles transfers whose origin transactions were left unconfirmed (status `prepared` or `broadcast`):
 * a receipt wait that timed out, a broadcast whose outcome was unknown, a crash between the write-ahead row and
 * the broadcast. Each recorded transaction is looked up on chain by the hash written before it was sent.
 *
 * Outcomes, per transfer:
 * - every verified item mined successfully → `deposited` (the status endpoint takes over);
 * - a transaction reverted → `origin_failed`;
 * - a transaction that provably can never land (the adapter's `dropped`: EVM, its nonce used by another
 *   transaction; Solana, its blockhash expired; Bitcoin, an input spent by another transaction mined at the reorg
 *   depth), or, on EVM only, one the node does not know whose order deadline has passed (a later transaction
 *   of ours takes its nonce, so the two cannot both land) and that has no unmined transaction of the transfer
 *   signed after it (see below) → `origin_failed`, but only once it is proven that no deposit for the order
 *   exists: no depository event with its order id crediting our wallet, and the Relay request not known to
 *   have a deposit. A deposit found there (an operator's speed-up of our deposit, a backend that lagged) is
 *   recorded as the transfer's deposit (`<step>:replacement`) and the transfer goes on as `deposited`;
 * - a Bitcoin deposit that is unmined once its order deadline has passed is ended provably: a cancel of ours
 *   spending its inputs back to our wallet, priced for the market and re-priced up to its cap, is signed,
 *   written ahead (`<step>:cancel`) and sent (src/cycle/endDeposit.ts); only when one is mined at the reorg depth
 *   does `lookup` say `dropped`, and then the depository is not searched (the cancel spent every input the deposit
 *   had). When the deposit is mined instead, a cancel a reorg removed loses its receipt. A passed deadline
 *   proves nothing on Bitcoin or Solana;
 * - EVM: a transaction the node does not know with an unmined transaction of the transfer signed after it (at a
 *   higher nonce: the deposit after a reorg dropped its approval) proves nothing, deadline or not. That later
 *   transaction, or a replacement of it signed elsewhere (an operator's speed-up, whose hash we cannot look up),
 *   may wait in any node's pool behind the nonce gap and lands as soon as anything takes the free nonce, such as
 *   the next transfer's approval. The earlier transaction is sent again exactly as signed, past the deadline
 *   too, so the gap closes while the transfer is still in flight: what waited behind it lands (a deposit mined
 *   after the deadline is refunded by the service, and tracked) or is then judged by its own nonce;
 * - EVM: a transaction pending or unknown above a free nonce of its wallet (an earlier transfer's approval a
 *   reorg removed) proves nothing either: the recorded transactions at the free nonces are sent again and the
 *   transfer stays in flight until the gap is closed (src/cycle/nonceGap.ts);
 * - the executor stopped before the deposit was ever signed → `origin_failed`;
 * - otherwise (still pending, unknown with time left, or any lookup failed) → unchanged, still in flight. An
 *   RPC error is never read as "not found".
 */
import type { ChainAdapter, FoundDeposit, TxLookup } from '../chains/adapter.ts';
import { depositCancellerOf } from '../chains/capabilities.ts';
import {
  addTransferTx,
  markTxConfirmed,
  markTxSent,
  recordAbsenceProof,
  transitionTransfer,
  type TransferRow,
} from '../store/transfers.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { sameTxId as sameHash } from '../core/txId.ts';
import { crashPoint } from '../core/crashPoints.ts';
import { deadlineRefusal, receiptWaitMs } from '../executor/deadlines.ts';
import type { CycleContext } from './context.ts';
import { clearCancelsReorged, endUnwantedDeposit, recordReplacementsMined } from './endDeposit.ts';
import { recordFoundDeposit } from './foundDeposit.ts';
import { waitsBehindNonceGap } from './nonceGap.ts';
import { depositWritten, quoteFacts, type QuoteFacts } from './quoteFacts.ts';
import { killSwitchVerdict } from './spendingGate.ts';

/** What origin reconciliation uses: the store, the chain adapters, the kill switch config, the leader check, the Relay client, the logger, metrics and the clock. */
export type ReconcileDeps = Pick<CycleContext, 'db' | 'chains' | 'config' | 'leading' | 'logger' | 'metrics' | 'now' | 'relay'>;

/**
 * A transfer is failed only when two proofs of absence agree: the second in a later cycle, at least this long
 * after the first and at a head no lower, so one answer from a node backend that lags cannot fail it.
 */
export const ABSENCE_RECHECK_MS = 15_000;

/**
 * Whether a deposit for the transfer's order exists: a deposit on chain with its order id crediting our wallet
 * with the payment amount (`found`, the adapter's search), proof that none exists and the Relay request knows of none (`none`), or no
 * proof either way because a lookup failed or the request names a deposit we cannot see (`unknown`). Hashes in
 * `dead` (lower case) are our own transactions the adapter proved can never land (`dropped`): the request naming
 * one of them (the service indexes a Bitcoin deposit at mempool time, before it was replaced) proves nothing.
 *
 * `ownCancel`: the deposit was proven dead by a cancel of ours mined at the reorg depth. That cancel spends every
 * input of the deposit, so no other transaction spending any of them (an operator's speed-up of the deposit
 * included) can be mined, and Ballast signs one deposit per order: the depository's transactions are not
 * searched (on a busy depository that search gives up, and would keep the transfer in flight for ever).
 */
async function depositProof(
  ctx: ReconcileDeps,
  chain: ChainAdapter,
  row: TransferRow,
  facts: QuoteFacts | null,
  dead: ReadonlySet<string>,
  ownCancel = false,
): Promise<{ kind: 'found'; deposit: FoundDeposit } | { kind: 'none'; atBlock: bigint } | { kind: 'unknown'; why: string }> {
  if (!facts?.depository || !row.orderId) return { kind: 'unknown', why: 'the stored quote names no depository or order id' };
  try {
    const search = ownCancel
      ? ({ kind: 'none', atBlock: await chain.head() } as const)
      : await chain.findDeposit({ depository: facts.depository, orderId: row.orderId, user: row.user, amount: row.amountIn });
    if (search.kind === 'found') return search;
    if (row.requestId) {
      // A deposit the service saw (Bitcoin: already at mempool time) that the adapter proved dead counts for nothing.
      const status = await ctx.relay.getStatus(row.requestId);
      const named = status.inTxHashes.filter((h) => !dead.has(h.toLowerCase()));
      if (named.length > 0) return { kind: 'unknown', why: `the Relay request names deposit(s) ${named.join(', ')}` };
    }
    return search;
  } catch (error) {
    return { kind: 'unknown', why: `deposit lookup failed: ${shortErrorMessage(error)}` };
  }
}

/**
 * Whether another unmined transaction of the transfer, signed after `tx`, could still land (the node holds it,
 * pending behind a nonce gap, or cannot say): once `tx`'s nonce is used by anything, such a transaction becomes
 * minable, so the transfer must not be failed while one exists.
 *
 * @returns why one could still land, or null when every later one is mined, unknown to the node, or its nonce
 *   is used
 */
async function laterTxStillAlive(chain: ChainAdapter, row: TransferRow, tx: TransferRow['txs'][number]): Promise<string | null> {
  for (const other of row.txs.slice(row.txs.indexOf(tx) + 1)) {
    if (other.status === 'confirmed' || other.status === 'reverted') continue;
    let state: TxLookup;
    try {
      state = await chain.lookup(other, row.user);
    } catch (error) {
      return `${other.stepId} ${other.txHash} could not be looked up (${shortErrorMessage(error)})`;
    }
    // Mined (reverted, or a deposit the proof below then finds) or invalidated: it cannot land any more.
    if (state.state === 'pending') return `${other.stepId} ${other.txHash} is pending at the node`;
  }
  return null;
}

/**
 * The first unmined transaction of the transfer recorded after `tx` (EVM: signed at a higher nonce), or
 * undefined. While `tx`'s nonce is free, it (or a replacement of it with another hash) may wait behind the gap.
 */
function unminedAfter(row: TransferRow, tx: TransferRow['txs'][number]): TransferRow['txs'][number] | undefined {
  return row.txs.slice(row.txs.indexOf(tx) + 1).find((t) => t.status !== 'confirmed' && t.status !== 'reverted');
}

/**
 * Sends a recorded transaction again, exactly as signed, when the node does not know it (written ahead, then a
 * crash or a lost send, or a Bitcoin deposit evicted from the node's mempool) and the order deadline still
 * leaves time for it and the deposit after it; then waits for its receipt within that time. Nothing new is
 * signed. At most once per transaction per cycle, never while the kill switch is engaged or by a replica that no
 * longer leads, and never past the deadline unless `fillsGap`; counted in `ballast_origin_rebroadcasts_total{chain, kind="deposit"}`.
 *
 * @param fillsGap EVM: an unmined transaction of the transfer was signed after `tx`, so `tx` is sent again
 *   whatever the deadline, to take its nonce before anything else does (see the module comment)
 * @returns true when it was sent again (its receipt may still be pending)
 */
async function rebroadcast(
  ctx: ReconcileDeps,
  chain: ChainAdapter,
  row: TransferRow,
  tx: TransferRow['txs'][number],
  facts: QuoteFacts | null,
  log: CycleContext['logger'],
  fillsGap: boolean,
): Promise<boolean> {
  if (!facts || tx.rawTx === '0x' || tx.rawTx === '') return false;
  if (ctx.leading && !ctx.leading()) return false; // a replica that no longer leads sends nothing
  const later = row.txs.length - row.txs.indexOf(tx) - 1 + (depositWritten(row, facts) ? 0 : 1);
  if (!fillsGap && deadlineRefusal(ctx.now(), facts.deadlineSec, later + 1, chain.minDeadlineLeadSec(row.amountIn, later + 1)) !== null)
    return false;
  const halted = killSwitchVerdict(ctx);
  if (halted) {
    log.warn(
      { txHash: tx.txHash, reason: halted.reason },
      `recorded transaction unknown to the node; not broadcast again: ${halted.detail}`,
    );
    return false;
  }
  ctx.metrics.originRebroadcastsTotal.inc({ chain: row.originChain, kind: 'deposit' });
  try {
    await chain.broadcast(tx.rawTx); // stored by the executor exactly as signed
  } catch (error) {
    log.warn({ txHash: tx.txHash, err: shortErrorMessage(error) }, 'sending the recorded transaction again failed; outcome unknown');
  }
  if (tx.status === 'signed') {
    await markTxSent(ctx.db, tx.id, ctx.now());
    tx.status = 'sent'; // keep the row read at the start in step with the store
  }
  log.warn(
    { txHash: tx.txHash, step: tx.stepId },
    fillsGap
      ? 'recorded transaction unknown to the node, with a later one of the transfer waiting on its nonce; broadcast again exactly as signed to close the gap'
      : 'recorded transaction unknown to the node; broadcast again exactly as signed',
  );
  await chain.waitForInclusion(tx, receiptWaitMs(ctx.now(), facts.deadlineSec, later)).catch(() => null); // not mined yet: the lookup below says so
  return true;
}

/** Why a transaction the adapter calls `dropped` can never land, in the chain family's terms. */
function droppedReason(chain: ChainAdapter): string {
  switch (chain.vm) {
    case 'evm':
      return 'its nonce was used by another transaction';
    case 'svm':
      return 'its blockhash expired before it landed';
    case 'bvm':
      return 'an input it spends was spent by another transaction, mined at the reorg depth';
  }
}

/**
 * Reconciles one transfer in `prepared` or `broadcast`.
 *
 * @returns the status after reconciliation
 */
export async function reconcileOrigin(ctx: ReconcileDeps, row: TransferRow): Promise<TransferRow['status']> {
  const chain = ctx.chains.get(row.originChain);
  if (!chain) return row.status;
  const log = ctx.logger.child({ component: 'reconcile', transferId: row.id, requestId: row.requestId });
  let status = row.status;
  const move = async (to: 'broadcast' | 'deposited' | 'origin_failed', detail: string) => {
    await transitionTransfer(ctx.db, row.id, status, to, {
      nowMs: ctx.now(),
      detail,
      ...(to === 'origin_failed' ? { error: detail } : {}),
    });
    log.warn({ from: status, to, detail }, 'transfer reconciled');
    status = to;
    crashPoint('reconcile:moved');
  };
  const facts = await quoteFacts(ctx, row);
  for (const tx of row.txs) {
    if (tx.status === 'reverted') {
      await move('origin_failed', `${tx.stepId} ${tx.txHash} reverted`);
      return status;
    }
    if (tx.status === 'confirmed') continue;
    let found = await chain.lookup(tx, row.user);
    // EVM nonces: a later transaction of the transfer may wait behind this one's free nonce (module comment).
    const waiting = chain.vm === 'evm' ? unminedAfter(row, tx) : undefined;
    if (found.state === 'unknown' && (await rebroadcast(ctx, chain, row, tx, facts, log, waiting !== undefined))) {
      found = await chain.lookup(tx, row.user);
    }
    if (found.state === 'mined') {
      if (row.cancels.some((c) => c.status === 'confirmed')) await clearCancelsReorged(ctx, chain, row, log);
      if (tx.status === 'signed') await markTxSent(ctx.db, tx.id, ctx.now());
      if (status === 'prepared') await move('broadcast', `${tx.stepId} ${tx.txHash} found on chain`);
      await markTxConfirmed(ctx.db, tx.id, {
        status: found.status,
        blockNumber: found.blockNumber,
        blockHash: found.blockHash,
        nowMs: ctx.now(),
      });
      if (found.status === 'reverted') {
        await move('origin_failed', `${tx.stepId} ${tx.txHash} reverted`);
        return status;
      }
      continue;
    }
    if (found.state === 'pending' || found.state === 'unknown') {
      // EVM: above a free nonce it can neither land nor be proven dead, deadline or not (src/cycle/nonceGap.ts).
      const behind = await waitsBehindNonceGap(ctx, chain, row, tx, log);
      if (behind !== null) {
        log.warn({ txHash: tx.txHash }, `${behind}; transfer stays in flight`);
        return status;
      }
    }
    const pastDeadline = facts !== null && facts.deadlineSec * 1000 < ctx.now();
    if (found.state !== 'dropped' && pastDeadline && depositCancellerOf(chain)) {
      // Bitcoin: the deposit never expires. Past its deadline it is ended by a replacement of ours, and the
      // transfer stays in flight until `lookup` proves the deposit dead (the replacement mined deep enough).
      await endUnwantedDeposit(ctx, chain, row, tx, log, found.state === 'pending' ? found.detail : undefined);
      return status;
    }
    if (found.state === 'pending') return status;
    if (found.state === 'unknown' && waiting !== undefined) {
      log.warn(
        { txHash: tx.txHash, waiting: waiting.txHash },
        `${tx.stepId} ${tx.txHash} unknown to the node, but ${waiting.stepId} ${waiting.txHash} was signed after it and may land (or a replacement of it) once its nonce is taken; transfer stays in flight`,
      );
      return status;
    }
    if (found.state === 'dropped' && row.cancels.length > 0) await recordReplacementsMined(ctx, chain, row, log);
    const why =
      found.state === 'dropped'
        ? `${tx.stepId} ${tx.txHash} was never mined: ${droppedReason(chain)}`
        : pastDeadline && chain.vm === 'evm'
          ? `${tx.stepId} ${tx.txHash} unknown to the node and the order deadline has passed`
          : null;
    if (why === null) return status;
    const later = await laterTxStillAlive(chain, row, tx);
    if (later !== null) {
      log.warn({ txHash: tx.txHash, later }, `${why}, but ${later}; transfer stays in flight`);
      return status;
    }
    const byOwnCancel = found.state === 'dropped' && found.by !== undefined && row.cancels.some((c) => sameHash(c.txHash, found.by!));
    const proof = await depositProof(
      ctx,
      chain,
      row,
      facts,
      new Set(found.state === 'dropped' ? [tx.txHash.toLowerCase()] : []),
      byOwnCancel,
    );
    if (proof.kind === 'unknown') {
      log.warn({ txHash: tx.txHash, why: proof.why }, `${why}, but no deposit is proven absent; transfer stays in flight`);
      return status;
    }
    if (proof.kind === 'found') {
      const d = proof.deposit;
      await recordFoundDeposit(ctx, row, facts?.deposit ?? { stepId: 'deposit', itemIndex: 0 }, d, tx.txHash);
      if (status === 'prepared') await move('broadcast', `deposit ${d.txHash} for order ${row.orderId} found on chain`);
      await move('deposited', `${why}; deposit ${d.txHash} for the order found on chain and recorded`);
      return status;
    }
    const earlier = row.absenceProof;
    if (!earlier || proof.atBlock < earlier.block || ctx.now() - earlier.atMs < ABSENCE_RECHECK_MS) {
      if (!earlier) {
        const detail = `no deposit for the order up to block ${proof.atBlock}: ${why}; checked again before failing`;
        await recordAbsenceProof(ctx.db, row.id, { block: proof.atBlock, nowMs: ctx.now(), detail });
      }
      log.warn(
        { txHash: tx.txHash, atBlock: String(proof.atBlock) },
        `${why}; no deposit seen yet: checked again next cycle before the transfer is failed`,
      );
      return status;
    }
    await move(
      'origin_failed',
      `${why}; no deposit for order ${row.orderId} on chain up to block ${proof.atBlock} (as at block ${earlier.block} before) and none known to the Relay request`,
    );
    return status;
  }
  // Every recorded transaction is mined and succeeded.
  if (facts?.deposit && !depositWritten(row, facts)) {
    await move(
      'origin_failed',
      `execution stopped after ${row.txs.length} transaction(s) before the deposit; the deposit was never signed`,
    );
    return status;
  }
  if (status === 'prepared') await move('broadcast', 'transactions found on chain');
  await move('deposited', row.txs.map((t) => t.txHash).join(','));
  return status;
}

/**
 * Reconciles every transfer left `prepared` or `broadcast`; a chain that cannot be asked leaves its transfers
 * as they are (still in flight, still counted by the planner).
 */
export async function reconcileOrigins(ctx: ReconcileDeps, rows: TransferRow[]): Promise<void> {
  for (const row of rows) {
    if (row.status !== 'prepared' && row.status !== 'broadcast') continue;
    try {
      await reconcileOrigin(ctx, row);
    } catch (error) {
      ctx.logger.warn({ transferId: row.id, err: shortErrorMessage(error) }, 'origin reconciliation failed; transfer stays in flight');
    }
  }
}
