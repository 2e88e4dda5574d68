/**
 * The record of one planned transfer's way through the pipeline (quote → fee policy → local verification →
 * spending gates → execution, docs/design.md "The main job, as data flows"), as a union tagged by `outcome`.
 * Each variant carries exactly what exists at the step the attempt reached: a quote that failed has its request
 * and the error but no quote; a quote skipped by the fee policy has its quote and the rejected fee decision; a
 * checked quote has its quote, the accepted fee decision, the verdict and the required output floor. Fields a
 * variant lacks are declared `?: undefined`, so reports can read any field of any attempt, while code that has
 * narrowed on the outcome reads what exists there without `!` or `?.`. Pure: types and constructors only.
 */
import type { PlannedTransfer } from '../planner/types.ts';
import type { QuoteRequest, QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import type { FeeDecision } from '../policy/feePolicy.ts';
import type { Verdict } from '../verify/verifyQuote.ts';
import type { TransferStatus } from '../store/transfers.ts';
import type { RelayAuthRefusal } from '../relay/authRefusal.ts';
import type { RouteCandidate } from './routeChoice.ts';

/** How a planned transfer ended this cycle. */
export type AttemptOutcome =
  | 'quoted' // checked: quoted, fees accepted, verified; not (yet) executed
  | 'success'
  | 'in_flight'
  | 'skipped_fee'
  | 'skipped_limit' // a spending limit or the kill switch: nothing signed
  | 'awaiting_approval' // above policy.approvals.aboveUsd without an approved request: recorded, nothing signed
  | 'refused_verification'
  | 'quote_error'
  | 'origin_failed'
  | 'failure'
  | 'refund'
  | 'handed_over'; // the leader term ended mid-way: left to the replica that leads now (src/cycle/handOver.ts)

/** A fee decision that accepted the quote (its breakdown is always known). */
export type AcceptedFee = Extract<FeeDecision, { accepted: true }>;
/** A fee decision that skipped the quote, with the reason, the caps exceeded and the breakdown when known. */
export type RejectedFee = Extract<FeeDecision, { accepted: false }>;

/** Every field an attempt may carry beyond its transfer, with its meaning; each variant picks those it has. */
interface AttemptFields {
  /** The POST /quote/v2 request sent last (Solana routing may have been narrowed, src/cycle/requestQuote.ts). */
  request: QuoteRequest;
  quote: QuoteResponse;
  /** Row id of the recorded quote (`quotes.id`). */
  quoteId: number;
  /** The quote's request id (top level, else its first step's), null when it had none. */
  requestId: string | null;
  /** Floor we required for the guaranteed output, destination base units. */
  minOutRequired: bigint;
  fee: FeeDecision;
  verdict: Verdict;
  /** Row id of the transfer written ahead of signing (`transfers.id`). */
  transferId: number;
  transferStatus: TransferStatus;
  originTxHashes: string[];
  /** Why the attempt did not go on, in one line. */
  error: string;
  /** The Relay API refused the API key (401/403) for this transfer's quote: a configuration error (exit 2). */
  authRefusal: RelayAuthRefusal;
}

/** The fields of {@link AttemptFields} a variant does not carry: declared absent so any attempt can be read. */
type Lacks<K extends keyof AttemptFields> = { [P in K]?: undefined };

/** What every attempt carries: the transfer and its plan row. */
interface AttemptBase {
  /** The transfer as attempted: route choice may have replaced the planner's donor with an alternative. */
  planned: PlannedTransfer;
  /** Row id of the planned transfer (`planned_transfers.id`). */
  planId: number;
  /** Route choice: every candidate quoted for this transfer and how it fared (src/cycle/routeChoice.ts). */
  candidates?: RouteCandidate[];
}

/** What every attempt that received a quote carries: the request that obtained it and its record. */
export interface QuoteStep {
  request: QuoteRequest;
  quote: QuoteResponse;
  quoteId: number;
  requestId: string | null;
}

/** What every attempt whose quote passed the fee policy carries: the accepted fee decision and the output floor. */
export interface FeeStep extends QuoteStep {
  fee: AcceptedFee;
  minOutRequired: bigint;
}

/** What every attempt whose quote was checked completely carries: its verdict too. */
export interface CheckedStep extends FeeStep {
  verdict: Verdict;
}

/**
 * The kill switch was engaged before the transfer was quoted (`skipped_limit`): nothing was asked of the API and
 * nothing signed; `error` is the kill switch's detail.
 */
export interface HaltedAttempt extends AttemptBase, Lacks<Exclude<keyof AttemptFields, 'error'>> {
  outcome: 'skipped_limit';
  error: string;
}

/**
 * The quote request failed (`quote_error`): an API error, a screening refusal (the wallets are paused) or a refused
 * API key (`authRefusal`, exit 2). No quote exists.
 */
export interface QuoteFailedAttempt extends AttemptBase, Lacks<Exclude<keyof AttemptFields, 'request' | 'error' | 'authRefusal'>> {
  outcome: 'quote_error';
  request: QuoteRequest;
  error: string;
  authRefusal?: RelayAuthRefusal;
}

/** The fee policy skipped the quote (`skipped_fee`): the quote and the rejected decision; nothing signed. */
export interface FeeSkippedAttempt extends AttemptBase, QuoteStep, Lacks<Exclude<keyof AttemptFields, keyof QuoteStep | 'fee'>> {
  outcome: 'skipped_fee';
  fee: RejectedFee;
}

/**
 * The fees were accepted but what verification needs could not be read from the origin chain (`quote_error`):
 * no verdict; nothing signed.
 */
export interface UnverifiedAttempt extends AttemptBase, FeeStep, Lacks<Exclude<keyof AttemptFields, keyof FeeStep | 'error'>> {
  outcome: 'quote_error';
  error: string;
}

/** Local verification refused the quote (`refused_verification`): `verdict.ok` is false; nothing signed. */
export interface RefusedAttempt extends AttemptBase, CheckedStep, Lacks<Exclude<keyof AttemptFields, keyof CheckedStep>> {
  outcome: 'refused_verification';
}

/**
 * Every check passed (`quoted`): fee accepted, verdict ok. The end of `ballast plan` and of a monitor-only
 * transfer that the spending gates would let through; in a normal cycle, the attempt goes on to execution.
 */
export interface QuotedAttempt extends AttemptBase, CheckedStep, Lacks<Exclude<keyof AttemptFields, keyof CheckedStep>> {
  outcome: 'quoted';
}

/**
 * A checked quote that was not executed: a spending limit or the kill switch (`skipped_limit`), the approval gate
 * (`awaiting_approval`: an approval request is open for it), or a shutdown requested before execution
 * (`quote_error`). `error` says which; nothing signed.
 */
export interface HeldAttempt extends AttemptBase, CheckedStep, Lacks<Exclude<keyof AttemptFields, keyof CheckedStep | 'error'>> {
  outcome: 'skipped_limit' | 'awaiting_approval' | 'quote_error';
  error: string;
}

/**
 * Execution failed before a transfer could be reported (`origin_failed`, e.g. a store failure writing it ahead):
 * whatever was written stays in flight for reconciliation.
 */
export interface ExecutionFailedAttempt extends AttemptBase, CheckedStep, Lacks<Exclude<keyof AttemptFields, keyof CheckedStep | 'error'>> {
  outcome: 'origin_failed';
  error: string;
}

/**
 * The run's leader term ended while the transfer was being executed (`handed_over`, PostgreSQL store with a leader
 * lease, docs/ha.md): this replica stopped and wrote nothing more. The transfer row it wrote ahead (`transferId`),
 * when there is one, stays in flight and the replica that leads now reconciles it; without one nothing was sent,
 * and that replica plans the move afresh. Nothing is lost and nothing is paid twice.
 */
export interface HandedOverAttempt
  extends AttemptBase, CheckedStep, Lacks<Exclude<keyof AttemptFields, keyof CheckedStep | 'transferId' | 'originTxHashes' | 'error'>> {
  outcome: 'handed_over';
  /** The transfer row written ahead in the ended term, absent when none was written. */
  transferId?: number;
  /** Origin transactions this replica sent and recorded as sent, in order. */
  originTxHashes: string[];
  error: string;
}

/** The transfer was executed: its row, its state when tracking stopped and the origin transactions sent. */
export interface ExecutedAttempt extends AttemptBase, CheckedStep, Lacks<'authRefusal'> {
  outcome: 'success' | 'in_flight' | 'failure' | 'refund' | 'origin_failed';
  transferId: number;
  transferStatus: TransferStatus;
  originTxHashes: string[];
  error?: string;
}

/** The record of one planned transfer's way through the pipeline (for reports, CLI output and exit codes). */
export type TransferAttempt =
  | HaltedAttempt
  | QuoteFailedAttempt
  | FeeSkippedAttempt
  | UnverifiedAttempt
  | RefusedAttempt
  | QuotedAttempt
  | HeldAttempt
  | ExecutionFailedAttempt
  | HandedOverAttempt
  | ExecutedAttempt;

/** What a checking step ends with (src/cycle/checkQuote.ts, src/cycle/routeChoice.ts): no spending gate or execution yet. */
export type CheckedAttempt = QuoteFailedAttempt | FeeSkippedAttempt | UnverifiedAttempt | RefusedAttempt | QuotedAttempt;

/**
 * A checked quote held back before execution (see {@link HeldAttempt}).
 *
 * @param attempt the attempt that passed every check
 * @param outcome `skipped_limit` (a spending gate), `awaiting_approval` (the approval gate) or `quote_error` (shutdown)
 * @param error why, in one line
 */
export function heldAttempt(attempt: QuotedAttempt, outcome: HeldAttempt['outcome'], error: string): HeldAttempt {
  return { ...attempt, outcome, error };
}

/**
 * The kill switch engaged before quoting (see {@link HaltedAttempt}).
 *
 * @param detail the kill switch's detail
 */
export function haltedAttempt(planned: PlannedTransfer, planId: number, detail: string): HaltedAttempt {
  return { planned, planId, outcome: 'skipped_limit', error: detail };
}

/** What execution reports of a transfer (src/executor/executeTransfer.ts), as {@link executedAttempt} takes it. */
export interface ExecutionResult {
  transferId: number;
  status: TransferStatus;
  originTxHashes: string[];
  error?: string;
}

/**
 * The attempt after execution: `success`, `failure`, `refund` and `origin_failed` when the transfer ended so,
 * else `in_flight` (tracking stopped before a final state).
 */
export function executedAttempt(attempt: QuotedAttempt, result: ExecutionResult): ExecutedAttempt {
  const outcome: ExecutedAttempt['outcome'] =
    result.status === 'success' || result.status === 'failure' || result.status === 'refund' || result.status === 'origin_failed'
      ? result.status
      : 'in_flight';
  return {
    ...attempt,
    outcome,
    transferId: result.transferId,
    transferStatus: result.status,
    originTxHashes: result.originTxHashes,
    ...(result.error ? { error: result.error } : {}),
  };
}

/**
 * A checked quote whose execution the end of the run's leader term interrupted (see {@link HandedOverAttempt}).
 *
 * @param attempt the attempt that passed every check
 * @param handed the transfer row written ahead (absent when none was), the origin transactions sent and recorded,
 *   and why, in one line
 */
export function handedOverAttempt(
  attempt: QuotedAttempt,
  handed: { transferId?: number; originTxHashes: readonly string[]; error: string },
): HandedOverAttempt {
  return {
    ...attempt,
    outcome: 'handed_over',
    ...(handed.transferId === undefined ? {} : { transferId: handed.transferId }),
    originTxHashes: [...handed.originTxHashes],
    error: handed.error,
  };
}

/**
 * How an attempt outcome counts for its cycle: `error` (a quote, chain or execution failure), `refused` (fee
 * policy, spending limit or verification: nothing signed on purpose) or `ok` (including `awaiting_approval`:
 * waiting for sign-offs is the configured course, not a refusal; and `handed_over`: the run's leader term ended
 * and the replica that leads now carries the transfer on, so nothing failed and nothing was refused).
 */
export function outcomeClass(outcome: AttemptOutcome): 'ok' | 'refused' | 'error' {
  if (outcome === 'quote_error' || outcome === 'origin_failed' || outcome === 'failure' || outcome === 'refund') return 'error';
  if (outcome === 'skipped_fee' || outcome === 'skipped_limit' || outcome === 'refused_verification') return 'refused';
  return 'ok';
}
