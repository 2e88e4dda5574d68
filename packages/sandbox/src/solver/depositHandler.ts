/**
 * What the solver does with each deposit, on any VM: match it to a quoted order (`matchDeposit`) and fill it on
 * the destination chain, or — when it pays no order exactly — track it as a request of its own that ends
 * `failure` (the deposit stays in the depository, withdrawable) or, under the `refund` fault, is returned on
 * its origin chain to the quote's `refundTo`. Drives the request status waiting → pending (→ delayed) → submitted → success (or failure /
 * refund), forward only; failed and refunded requests carry a published failReason (see `failReasons.ts`).
 *
 * A deposit may come with a readiness wait (Bitcoin: the confirmation rule): the request turns `pending` as soon
 * as the deposit is seen (docs/relay-contract.md "States and transitions", Bitcoin 1) and nothing is sent before the wait
 * ends. Fault modes are read when the deposit is seen: `fillDelayMs`, `neverFill`, `refund`, `failure`, `failReason`,
 * `refundFailReason`, `delayed`, `fillAmount`. Once a transaction is sent its outcome is only taken from the
 * chain (`SolverLeg.settle`). A deposit whose handling throws before anything is sent is retried. A deposit
 * attested for withdrawal (`RequestStore.claimDeposit`) is never filled or refunded: the solver claims the
 * deposit right before it acts and stops when the claim fails.
 *
 * Refunds follow https://docs.relay.link/references/api/api_core_concepts/refunds: they are paid on the origin
 * chain to the quote's `refundTo`; with no `refundTo` automatic refund is disabled, so such a request ends
 * `failure` with refundFailReason `MANUAL_REFUND_REQUIRED` (the refund leg could not run automatically;
 * https://docs.relay.link/references/api/api_core_concepts/execution-errors) and the deposit stays in the
 * depository, withdrawable. A quote requested with `referrer` {@link DEBUG_FORCE_REFUND} is refunded instead of
 * filled, as the same page documents for testing.
 */
import type { Logger } from 'pino';
import type { ObservedDeposit, OutTx, RequestRecord } from '../api/requestStore.ts';
import type { SandboxState } from '../api/state.ts';
import type { FailReason } from '../failReasons.ts';
import { randomBytes32 } from '../quote/buildQuote.ts';
import type { SolverLeg } from './legs.ts';
import { matchDeposit, type UnfilledReason } from './matchDeposit.ts';
import { sleep } from './sleep.ts';

/** The documented `referrer` that forces a refund (refunds page, "Testing"). */
export const DEBUG_FORCE_REFUND = 'debug-force-refund';

/** Waits until a deposit may be processed; resolves the deposit as then observed, or null when the solver stops. */
export type DepositReadiness = () => Promise<ObservedDeposit | null>;

/** Options of {@link createDepositHandler}. */
export interface DepositHandlerOptions {
  state: SandboxState;
  /** The solver's leg on each chain, by chain id. */
  legs: ReadonlyMap<number, SolverLeg>;
  signal: AbortSignal;
  log: Logger;
}

/** The handler and its bookkeeping. */
export interface DepositHandler {
  /**
   * Handles a deposit once (keyed by chain, transaction and log/instruction/output index); later calls with the
   * same key are ignored. On a throw before any work starts, the deposit is queued for {@link retryFor}.
   */
  handle(deposit: ObservedDeposit, ready?: DepositReadiness): void;
  /** Re-handles the queued deposits of a chain. */
  retryFor(chainId: number): void;
  /** Resolves once every started handling has settled. */
  settled(): Promise<void>;
}

/** The key of a deposit: 0x hashes compare case-insensitively, base58 signatures and hex txids exactly. */
function depositKey(d: ObservedDeposit): string {
  const tx = d.txHash.startsWith('0x') ? d.txHash.toLowerCase() : d.txHash;
  return `${d.chainId}:${tx}:${d.logIndex}`;
}

/** Creates the handler. */
export function createDepositHandler(o: DepositHandlerOptions): DepositHandler {
  const { state, log, signal } = o;
  const seen = new Set<string>();
  const retry = new Map<string, { deposit: ObservedDeposit; ready: DepositReadiness | undefined }>();
  const inflight = new Set<Promise<void>>();
  const nowMs = () => state.nowMs();

  const legOf = (chainId: number): SolverLeg => {
    const leg = o.legs.get(chainId);
    if (!leg) throw new Error(`solver has no leg on chain ${chainId}`); // legs come from the same chain tables
    return leg;
  };

  /**
   * Returns a deposit on its chain to `to` (the quote's `refundTo`); the request ends `refund` with `failReason`,
   * or `failure` when that cannot happen (`UNKNOWN` when it cannot be sent, `TRANSACTION_REVERTED` when it
   * fails). With no `refundTo` (`to` null) nothing is sent: the request ends `failure` with refundFailReason
   * `MANUAL_REFUND_REQUIRED`. Under the `refundFailReason` fault nothing is sent either: the request ends
   * `failure` with that refundFailReason.
   */
  async function refund(record: RequestRecord, deposit: ObservedDeposit, to: string | null, failReason: FailReason, why: string) {
    const rlog = log.child({ requestId: record.requestId, orderId: deposit.id, chainId: deposit.chainId });
    if (to === null) {
      state.requests.advance(record, 'failure', { failReason, refundFailReason: 'MANUAL_REFUND_REQUIRED' }, nowMs());
      rlog.warn({ why }, 'no refundTo on the quote: automatic refund is disabled; the deposit stays in the depository');
      return;
    }
    const refundFailReason = state.faults.get().refundFailReason;
    if (refundFailReason !== null) {
      state.requests.advance(record, 'failure', { failReason, refundFailReason }, nowMs());
      rlog.warn({ why, refundFailReason }, 'refund leg failed (fault mode); the deposit stays in the depository');
      return;
    }
    let sent: OutTx;
    try {
      sent = await legOf(deposit.chainId).refund(deposit, to);
    } catch (error) {
      rlog.error({ err: error, why }, 'refund could not be sent');
      state.requests.advance(record, 'failure', { failReason: 'UNKNOWN' }, nowMs());
      return;
    }
    rlog.info({ why, txHash: sent.txHash, to }, 'refund sent');
    const outTx = await legOf(deposit.chainId).settle(sent);
    if (!outTx) return;
    const ok = outTx.status === 'success';
    if (ok) state.requests.advance(record, 'refund', { txHashes: [sent.txHash], outTxs: [outTx], failReason }, nowMs());
    else
      state.requests.advance(record, 'failure', { txHashes: [sent.txHash], outTxs: [outTx], failReason: 'TRANSACTION_REVERTED' }, nowMs());
    rlog.info({ why, txHash: sent.txHash, ok }, 'refund settled');
  }

  /** Fills a deposit that pays `record`'s order exactly. */
  async function fill(record: RequestRecord, seenDeposit: ObservedDeposit, ready: DepositReadiness | undefined) {
    const order = record.order;
    if (!order) return; // matchDeposit only fills records with an order
    const flog = log.child({ requestId: record.requestId, orderId: order.orderId, chainId: order.destinationChainId });
    state.requests.advance(record, 'pending', { inTxHashes: [seenDeposit.txHash], deposit: seenDeposit }, nowMs());
    const faults = state.faults.get();
    flog.info({ txHash: seenDeposit.txHash }, 'deposit indexed; request pending');
    if (faults.delayed) {
      state.requests.advance(record, 'delayed', {}, nowMs());
      flog.warn('fill delayed (fault mode)');
    }
    const deposit = ready ? await ready() : seenDeposit;
    if (!deposit) return;
    if (deposit !== seenDeposit) record.deposit = deposit; // the same deposit, now with its block
    if (faults.neverFill) return;
    await sleep(faults.fillDelayMs, signal);
    if (signal.aborted) return;
    if (!state.requests.claimDeposit(record, 'solver')) {
      flog.info('deposit attested for withdrawal; it is hub balance now and is not filled');
      return;
    }
    if (faults.failure) {
      state.requests.advance(record, 'failure', { failReason: faults.failReason }, nowMs());
      flog.warn({ failReason: faults.failReason }, 'fill failed (fault mode); the deposit stays in the depository');
      return;
    }
    if (faults.refund || order.referrer === DEBUG_FORCE_REFUND)
      return refund(record, deposit, order.refundTo, faults.failReason, 'REFUND_REQUESTED');
    const amount = faults.fillAmount === 'minimum' ? order.minimumOut : order.expectedOut;
    let sent: OutTx;
    try {
      sent = await legOf(order.destinationChainId).pay(order.recipient, order.currencyOut, amount);
    } catch (error) {
      flog.error({ err: error }, 'fill could not be sent');
      state.requests.advance(record, 'failure', { failReason: 'UNKNOWN' }, nowMs());
      return;
    }
    state.requests.advance(record, 'submitted', { txHashes: [sent.txHash], outTxs: [sent] }, nowMs());
    flog.info({ txHash: sent.txHash, amount: amount.toString() }, 'fill sent');
    const outTx = await legOf(order.destinationChainId).settle(sent);
    if (!outTx) return;
    const ok = outTx.status === 'success';
    if (ok) state.requests.advance(record, 'success', { filledAmount: amount, outTxs: [outTx] }, nowMs());
    else state.requests.advance(record, 'failure', { failReason: 'TRANSACTION_REVERTED', outTxs: [outTx] }, nowMs());
    flog.info({ txHash: sent.txHash, ok }, 'fill settled');
  }

  /**
   * A deposit that pays no waiting order exactly: its own request, which ends `failure` with the deposit left
   * in the depository, or (refund fault) is returned to the `refundTo` of the order the deposit names; with no
   * such order or no `refundTo` nothing is returned (`failure`, `MANUAL_REFUND_REQUIRED`): there is no fallback
   * to the depositor. Either way its failReason is the published one closest to `reason`.
   */
  async function unfilled(
    seenDeposit: ObservedDeposit,
    reason: UnfilledReason,
    failReason: FailReason,
    refundTo: string | null,
    ready: DepositReadiness | undefined,
  ) {
    const record = state.requests.addUnmatchedDeposit(randomBytes32(), seenDeposit, nowMs());
    const ulog = log.child({ requestId: record.requestId, orderId: seenDeposit.id, chainId: seenDeposit.chainId, reason, failReason });
    const deposit = ready ? await ready() : seenDeposit;
    if (!deposit) return;
    if (!state.faults.get().refund) {
      state.requests.advance(record, 'failure', { failReason, deposit }, nowMs());
      ulog.warn({ txHash: deposit.txHash }, 'deposit not filled; it stays in the depository, withdrawable by the depositor');
      return;
    }
    if (!state.requests.claimDeposit(record, 'solver')) return; // attested for withdrawal meanwhile
    ulog.warn({ txHash: deposit.txHash }, 'deposit not filled; returning it (refund fault)');
    await refund(record, deposit, refundTo, failReason, reason);
  }

  function handle(deposit: ObservedDeposit, ready?: DepositReadiness): void {
    const key = depositKey(deposit);
    if (seen.has(key)) return;
    let work: Promise<void>;
    try {
      const decision = matchDeposit(deposit, state.requests.byOrderId(deposit.id));
      work =
        decision.kind === 'fill'
          ? fill(decision.record, deposit, ready)
          : unfilled(deposit, decision.reason, decision.failReason, decision.claimed?.refundTo ?? null, ready);
    } catch (error) {
      log.error({ err: error, chainId: deposit.chainId, txHash: deposit.txHash }, 'deposit handling failed; retrying on the next poll');
      retry.set(key, { deposit, ready });
      return;
    }
    seen.add(key);
    retry.delete(key);
    const tracked = work.catch((error: unknown) => log.error({ err: error }, 'deposit handling failed'));
    inflight.add(tracked);
    void tracked.finally(() => inflight.delete(tracked));
  }

  return {
    handle,
    retryFor(chainId) {
      for (const { deposit, ready } of [...retry.values()]) if (deposit.chainId === chainId) handle(deposit, ready);
    },
    async settled() {
      await Promise.allSettled([...inflight]);
    },
  };
}
