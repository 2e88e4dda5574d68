/**
 * Executes one verified quote on its origin chain, through the chain's adapter, and tracks it to completion.
 *
 * State machine (store `transfers.status`): prepared → broadcast → deposited → success | failure | refund, or
 * origin_failed when an origin transaction reverts or cannot be sent. Each transaction is signed locally and
 * written (with its hash) BEFORE it is broadcast; a crash between the two leaves a row that names the exact
 * transaction to look for.
 */
import type { Logger } from 'pino';
import type { QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import type { RelayClient } from '../relay/client.ts';
import { isBroadcastRefusal, type ChainAdapter, type PlannedItem, type SignedOriginTx } from '../chains/adapter.ts';
import { deadlineRefusal, receiptWaitMs } from './deadlines.ts';
import type { StoreDb } from '../store/db.ts';
import { lockTransferStatus } from '../store/requestStatus.ts';
import {
  addTransferTx,
  createTransfer,
  getTransfer,
  markTxConfirmed,
  markTxSent,
  setRelayStatus,
  transitionTransfer,
  type NewTransfer,
  type TransferStatus,
} from '../store/transfers.ts';
import { shortErrorMessage } from '../core/errorMessage.ts';
import { crashPoint } from '../core/crashPoints.ts';
import { collectExecutableItems, findCheckEndpoint } from './collectItems.ts';
import { statusIsForeign, statusNamesDeposit, statusReasons } from './statusOwnership.ts';
import { recordFillScreeningBlock } from './screeningBlock.ts';
import { trackRequest } from './trackRequest.ts';
import type { StatusFeed } from '../webhooks/statusFeed.ts';
import { TermEndedError, termHasEnded } from './termEnded.ts';
import { LeaseLostError, NotLeaderError } from '../ha/errors.ts';

/** Everything the executor talks to. */
export interface ExecuteTransferDeps {
  db: StoreDb;
  /** The origin chain's adapter: it signs with the wallet named in `wallet`, sends and waits. */
  chain: ChainAdapter;
  /** Config name of the depositing wallet (the adapter holds its signer). */
  wallet: string;
  relay: Pick<RelayClient, 'getStatus' | 'indexTransaction'>;
  logger: Logger;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Poll interval and overall tracking deadline (ms); after the deadline the transfer stays in flight. */
  tracking: { pollMs: number; timeoutMs: number; stuckWaitingMs?: number };
  signal?: AbortSignal;
  /**
   * Whether this replica still leads in the term the run started in (PostgreSQL store; src/app/leaderGuard.ts,
   * `leadsRunTerm`: a term lost and won back does not count). Checked after the write-ahead
   * and right before the broadcast: a replica that lost the lease in between leaves the signed transaction
   * unsent, written ahead, for the leader to reconcile. Absent for SQLite.
   */
  leading?: () => boolean;
  /** Called with each new request status read while tracking (metrics; unknown values are non-final). */
  onRelayStatus?: (status: string) => void;
  /**
   * Statuses pushed by webhooks (src/webhooks/statusFeed.ts), absent without a receiver. While tracking, a
   * pushed status ends the poll wait at once.
   */
  statusFeed?: StatusFeed;
  /**
   * Runs inside the write-ahead transaction that records the transfer row with its first signed transaction,
   * before anything is broadcast (an approval request closed `executed`, src/store/approvalRequests.ts). When it
   * throws, the row is not written and nothing is sent.
   */
  onWriteAhead?: (transferId: number) => Promise<void>;
  /**
   * Called once every origin transaction is confirmed and the transfer is `deposited`, with the origin
   * transactions' hashes in order (progress display; the cycle starts its next transfer).
   */
  onDeposited?: (transferId: number, originTxHashes: readonly string[]) => void;
  /**
   * False: return as soon as the transfer is `deposited`, without tracking its fill; the next cycles' in-flight
   * refresh reads its status (`ballast simulate`, whose one virtual clock cannot run a tracker beside the next
   * cycle). Default true.
   */
  trackFill?: boolean;
}

/**
 * What is being executed: the transfer row's fields (amounts in base units of their chain) plus the verified
 * quote. Only the quote's transaction items are sent.
 */
export interface ExecuteTransferArgs extends Omit<NewTransfer, 'txs' | 'nowMs' | 'requestId' | 'orderId'> {
  /** Our depositing wallet's address on the origin chain. */
  user: string;
  requestId: string;
  orderId: string;
  quote: QuoteResponse;
}

/** Result: the transfer row id, where it ended this cycle, and the origin tx hashes. */
export interface ExecuteTransferResult {
  transferId: number;
  status: TransferStatus;
  relayStatus: string | null;
  originTxHashes: string[];
  error?: string;
}

/**
 * Signs, writes ahead, broadcasts and confirms each origin transaction in order, then tracks the request.
 * Each verified item is first planned against the chain by the adapter (`planItem`): on EVM an allowance that
 * already covers the payment skips the approval, and a non-zero but short one is first set to zero
 * (`<step>:reset`, for USDT-style tokens).
 *
 * With a leader lease (`deps.leading`), once the run's term has ended the executor writes nothing more: a failure
 * is not recorded as `origin_failed`, and whatever stops it (the failure, a store write refused by the fencing
 * check or found in conflict with the replica that took over) ends in a {@link TermEndedError}.
 *
 * @returns the transfer's status at the end of this call; `deposited` means still in flight (tracking timed out)
 * @throws LeaseLostError / NotLeaderError (`STORE_LEASE_LOST`, `STORE_NOT_LEADER`) when the fencing check refused
 *   the first write-ahead (nothing written, nothing sent); TermEndedError (`EXECUTOR_TERM_ENDED`) when the run's
 *   term ended otherwise (src/executor/termEnded.ts): the rows stay as they are for the replica that leads now;
 *   other store errors (the caller records the attempt as failed; what was written stays in flight); chain errors
 *   end in `origin_failed` or, when the outcome is unknown, leave the transfer in flight
 */
export async function executeTransfer(deps: ExecuteTransferDeps, args: ExecuteTransferArgs): Promise<ExecuteTransferResult> {
  const log = deps.logger.child({ requestId: args.requestId, orderId: args.orderId, chainId: args.originChainId });
  const deadlineSec = args.quote.protocol?.v2?.orderData.output.deadline ?? 0; // verified before execution
  const run: Run = { deps, args, log, hashes: [], transferId: null, previous: undefined, deadlineSec };
  try {
    return await execute(run);
  } catch (error) {
    if (error instanceof TermEndedError || !termHasEnded(deps.leading, error)) throw error;
    // The fencing check's refusal of the first write-ahead says all by itself: nothing was written or sent.
    if (run.transferId === null && (error instanceof LeaseLostError || error instanceof NotLeaderError)) throw error;
    throw new TermEndedError(run.transferId, run.hashes, shortErrorMessage(error), { cause: error });
  }
}

/** The body of {@link executeTransfer}: every item in order, then tracking. */
async function execute(run: Run): Promise<ExecuteTransferResult> {
  const { deps, args, log } = run;
  const entries = collectExecutableItems(args.quote);
  for (const [index, entry] of entries.entries()) {
    const itemsAfter = entries.length - index - 1;
    let planned: PlannedItem[];
    try {
      planned = await deps.chain.planItem(
        { stepId: entry.stepId, itemIndex: entry.itemIndex, data: entry.item.data },
        { wallet: deps.wallet, user: args.user, amountIn: args.amountIn },
      );
    } catch (error) {
      return await fail(run, shortErrorMessage(error));
    }
    if (planned.length !== 1 || planned[0]!.stepId !== entry.stepId) {
      log.info({ step: entry.stepId, sending: planned.map((p) => p.stepId) }, 'item planned against the chain');
    }
    for (const [i, item] of planned.entries()) {
      const stopped = await sendItem(run, item, itemsAfter + planned.length - 1 - i);
      if (stopped) return stopped;
    }
  }
  const transferId = run.transferId;
  if (transferId === null) throw new Error('quote had no transaction items to execute');
  await transitionTransfer(deps.db, transferId, 'broadcast', 'deposited', { nowMs: deps.now(), detail: run.hashes.join(',') });
  crashPoint('transfer:deposited');
  log.info({ transferId }, 'deposit confirmed; tracking the fill');
  deps.onDeposited?.(transferId, [...run.hashes]);
  if (deps.trackFill === false) return { transferId, status: 'deposited', relayStatus: null, originTxHashes: [...run.hashes] };
  return track(deps, args, transferId, run.hashes, log);
}

/** State of one execution: what was written and sent so far. */
interface Run {
  /** The order's output deadline, unix seconds. */
  deadlineSec: number;
  deps: ExecuteTransferDeps;
  args: ExecuteTransferArgs;
  log: Logger;
  /** Hashes of the origin transactions sent and confirmed, in order. */
  hashes: string[];
  /** The transfer row, once the first transaction was written ahead. */
  transferId: number | null;
  /** The transaction mined just before the next one (EVM signs the next nonce after it). */
  previous: SignedOriginTx | undefined;
}

/**
 * Signs one transaction, writes it ahead (the transfer row with the first one), broadcasts it and waits for
 * its receipt. `itemsAfter` counts the transactions still to send after this one, for the deadline budget.
 *
 * @returns undefined when it was mined successfully (the run goes on), else the result to return
 */
async function sendItem(run: Run, at: PlannedItem, itemsAfter: number): Promise<ExecuteTransferResult | undefined> {
  const { deps, args, log, hashes } = run;
  // A run that lost the run lock (or is shutting down) signs nothing more: another run may be acting now.
  if (deps.signal?.aborted)
    return await fail(run, `${at.stepId} not signed: the run lost its lock or is shutting down; the next run re-plans`);
  // Re-checked before every signature: waits before this item may have used the time the deposit needs. The
  // lead is the origin chain's (ChainAdapter.minDeadlineLeadSec): a Bitcoin deposit needs its blocks.
  const leadSec = deps.chain.minDeadlineLeadSec(args.amountIn, itemsAfter + 1);
  const late = deadlineRefusal(deps.now(), run.deadlineSec, itemsAfter + 1, leadSec);
  if (late)
    return await fail(run, `${at.stepId} not signed: ${late} (chains.${deps.chain.name} minimum deadline lead); the next cycle re-quotes`);
  let signed: SignedOriginTx;
  try {
    signed = await deps.chain.sign(deps.wallet, at, run.previous);
  } catch (error) {
    return await fail(run, `signing ${at.stepId} failed: ${shortErrorMessage(error)}`);
  }
  crashPoint('tx:signed');
  const txRow = {
    stepId: at.stepId,
    itemIndex: at.itemIndex,
    chainId: signed.chainId,
    request: signed.request,
    txHash: signed.txHash,
    rawTx: signed.rawTx,
  };
  let txId: number;
  if (run.transferId === null) {
    const created = await createTransfer(deps.db, { ...transferFields(args), txs: [txRow], nowMs: deps.now() }, deps.onWriteAhead);
    run.transferId = created.transferId;
    txId = created.txIds[0]!;
  } else {
    txId = await addTransferTx(deps.db, run.transferId, { ...txRow, nowMs: deps.now() });
  }
  const id = run.transferId;
  crashPoint('tx:written');
  if (deps.leading && !deps.leading()) {
    // Written ahead under our lease, which has ended since (a pause, a lost database): the new leader finds the
    // row in flight and sends exactly this transaction, so it must not be sent from here as well.
    const why = `${at.stepId} ${signed.txHash} written ahead but not broadcast: this replica no longer leads; the leader reconciles it`;
    log.warn({ transferId: id, txHash: signed.txHash }, why);
    return {
      transferId: id,
      status: hashes.length === 0 ? 'prepared' : 'broadcast',
      relayStatus: null,
      originTxHashes: hashes,
      error: why,
    };
  }
  log.info({ step: at.stepId, txHash: signed.txHash, nonce: signed.request.nonce }, 'broadcasting origin transaction');
  try {
    await deps.chain.broadcast(signed.rawTx);
  } catch (error) {
    // The adapter refused before any node saw the bytes (a BroadcastRefusal, src/chains/adapter.ts): nothing left
    // this process, so nothing can land. A node's judgement (Solana's simulation) is asked before signing, never
    // of the signed bytes: signed bytes a node has seen may land whatever it answered.
    if (isBroadcastRefusal(error))
      return await fail(run, `${at.stepId} ${signed.txHash} signed, not broadcast: ${shortErrorMessage(error)}`);
    // Any other error answer is not a refusal: the node may have taken the transaction anyway (a transport retry
    // answered "already known" or "nonce too low" for our own transaction, a timeout, a backend that lags on
    // lookups). Unless the node shows it has the transaction, the outcome is unknown and the transfer stays in
    // flight until reconciliation (src/cycle/reconcile.ts) proves what happened; it is never failed here.
    if (!(await deps.chain.knows(signed.txHash))) {
      const why = `broadcast of ${at.stepId} ${signed.txHash}: outcome unknown (the node answered: ${shortErrorMessage(error)})`;
      log.error({ transferId: id, txHash: signed.txHash, err: why }, 'broadcast outcome unknown; left in flight');
      const status = hashes.length === 0 ? 'prepared' : 'broadcast';
      return { transferId: id, status, relayStatus: null, originTxHashes: hashes, error: why };
    }
    log.warn({ txHash: signed.txHash, err: shortErrorMessage(error) }, 'broadcast call failed but the node has the transaction');
  }
  crashPoint('tx:sent');
  await markTxSent(deps.db, txId, deps.now());
  hashes.push(signed.txHash);
  if (hashes.length === 1) await transitionTransfer(deps.db, id, 'prepared', 'broadcast', { nowMs: deps.now() });
  crashPoint('tx:recorded-sent');
  let receipt;
  try {
    receipt = await deps.chain.waitForInclusion(signed, receiptWaitMs(deps.now(), run.deadlineSec, itemsAfter));
  } catch (error) {
    // Sent but unconfirmed: the transfer stays in flight (status broadcast) so no cycle repeats it.
    const error_ = `no receipt for ${at.stepId} ${signed.txHash}: ${shortErrorMessage(error)}`;
    log.error({ transferId: id, err: error_ }, 'origin transaction unconfirmed; left in flight');
    return { transferId: id, status: 'broadcast', relayStatus: null, originTxHashes: hashes, error: error_ };
  }
  if (receipt.kind === 'replaced') {
    // Another transaction took our place (EVM: same sender and nonce, an operator's speed-up or cancel). Ours
    // was never mined; whether the replacement deposited for this order is for reconciliation to prove
    // (deposits found on chain), never assumed here.
    const why = `${at.stepId} ${signed.txHash} was replaced by ${receipt.by}; left in flight for reconciliation`;
    log.error({ transferId: id, err: why }, 'origin transaction replaced');
    return { transferId: id, status: 'broadcast', relayStatus: null, originTxHashes: hashes, error: why };
  }
  crashPoint('tx:mined');
  await markTxConfirmed(deps.db, txId, {
    status: receipt.status,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    nowMs: deps.now(),
  });
  crashPoint('tx:confirmed');
  if (receipt.status !== 'confirmed') return await fail(run, `${at.stepId} transaction ${signed.txHash} reverted`);
  run.previous = signed;
  return undefined;
}

async function track(
  deps: ExecuteTransferDeps,
  args: ExecuteTransferArgs,
  transferId: number,
  hashes: string[],
  log: Logger,
): Promise<ExecuteTransferResult> {
  const checkEndpoint = findCheckEndpoint(args.quote);
  const depositHash = hashes[hashes.length - 1]!;
  const pushed = deps.statusFeed?.subscribe(args.requestId);
  const result = await trackRequest({
    getStatus: (signal) => deps.relay.getStatus(args.requestId, checkEndpoint, { signal }),
    onStatus: async (s, source) => {
      if (source === 'poll') deps.onRelayStatus?.(s.status); // pushed ones are metered by the webhook receiver
      log.info({ status: s.status, txHashes: s.txHashes, source }, 'request status');
      // Written only after the ownership check: a status about another deposit never touches this transfer.
      if (statusIsForeign(s, depositHash)) return;
      const written = await deps.db.transaction(async () => {
        // A read sent before a webhook closed the transfer must not overwrite the final status it stored; the
        // status is locked (PostgreSQL) until the write, so a webhook's close cannot slip in between.
        if (pushed && isFinal(await lockTransferStatus(deps.db, transferId))) return false;
        await setRelayStatus(deps.db, transferId, s.status, { nowMs: deps.now(), outTxHashes: s.txHashes });
        return true;
      });
      if (written) crashPoint('track:status');
    },
    onError: (error) => log.warn({ err: shortErrorMessage(error) }, 'status read failed; will retry'),
    onStuckWaiting: async () => {
      log.warn({ txHash: depositHash }, 'deposit not indexed yet; asking for a reindex');
      await deps.relay.indexTransaction({ chainId: args.originChainId, txHash: depositHash });
    },
    isOurs: (s) => statusNamesDeposit(s, depositHash),
    onForeignFinal: (s) =>
      log.error({ status: s.status, inTxHashes: s.inTxHashes }, 'terminal status does not name our deposit; not accepted'),
    stuckWaitingMs: deps.tracking.stuckWaitingMs,
    pollMs: deps.tracking.pollMs,
    timeoutMs: deps.tracking.timeoutMs,
    now: deps.now,
    sleep: deps.sleep,
    signal: deps.signal,
    ...(pushed ? { pushed } : {}),
  }).finally(() => pushed?.close());
  // The webhook receiver (src/webhooks/applyStatusEvent.ts) closes a deposited transfer itself when an event
  // says it is final: then there is nothing left to write here. Checked and closed in one transaction with the
  // status locked (PostgreSQL), so an event applied meanwhile cannot turn the close into a transition conflict.
  const final = result.final;
  const ended = await deps.db.transaction(async (): Promise<ExecuteTransferResult & { closedNow?: true }> => {
    const current = await lockTransferStatus(deps.db, transferId);
    if (isFinal(current)) {
      const closed = await getTransfer(deps.db, transferId);
      log.info({ transferId, status: current }, 'transfer already closed by a webhook event');
      return { transferId, status: current, relayStatus: closed?.relayStatus ?? null, originTxHashes: hashes };
    }
    if (final === null) {
      log.warn({ transferId, last: result.last?.status ?? null }, 'fill not final before the tracking deadline; stays in flight');
      return { transferId, status: 'deposited', relayStatus: result.last?.status ?? null, originTxHashes: hashes };
    }
    await transitionTransfer(deps.db, transferId, 'deposited', final, {
      nowMs: deps.now(),
      relayStatus: final,
      detail: [result.last?.txHashes.join(',') ?? '', result.last ? statusReasons(result.last) : ''].filter(Boolean).join('; '),
    });
    if (result.last)
      await recordFillScreeningBlock(deps.db, { id: transferId, user: args.user, recipient: args.recipient }, result.last, deps.now());
    return { transferId, status: final, relayStatus: final, originTxHashes: hashes, closedNow: true };
  });
  const { closedNow, ...outcome } = ended;
  if (closedNow) crashPoint('transfer:final'); // after the commit
  return outcome;
}

/** Whether a transfer status is one a terminal request status closes it with. */
function isFinal(status: TransferStatus | undefined): status is 'success' | 'failure' | 'refund' {
  return status === 'success' || status === 'failure' || status === 'refund';
}

/**
 * Ends the transfer `origin_failed` (a row of its own when nothing was written yet), unless the run's term has
 * ended: then nothing is written, because the replica that leads now may be reconciling this very transfer.
 *
 * @throws TermEndedError when the run's term has ended (the rows are left as they are)
 */
async function fail(run: Run, error: string): Promise<ExecuteTransferResult> {
  const { deps, args, log, hashes } = run;
  if (termHasEnded(deps.leading)) throw new TermEndedError(run.transferId, hashes, error);
  log.error({ transferId: run.transferId, err: error }, 'origin transaction failed; no deposit made');
  let id: number;
  if (run.transferId === null) {
    // Nothing was written or sent yet: record the failed attempt as its own row for the history.
    id = (await createTransfer(deps.db, { ...transferFields(args), txs: [], nowMs: deps.now() })).transferId;
    await transitionTransfer(deps.db, id, 'prepared', 'origin_failed', { nowMs: deps.now(), error });
  } else {
    id = run.transferId;
    const from = hashes.length === 0 ? 'prepared' : 'broadcast';
    await transitionTransfer(deps.db, id, from, 'origin_failed', { nowMs: deps.now(), error });
  }
  return { transferId: id, status: 'origin_failed', relayStatus: null, originTxHashes: hashes, error };
}

/** The stored transfer's fields: everything but the quote. */
function transferFields(args: ExecuteTransferArgs): Omit<NewTransfer, 'txs' | 'nowMs'> {
  const { quote: _quote, ...fields } = args;
  return fields;
}
