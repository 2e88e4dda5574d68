/**
 * Progress of one planned transfer through a cycle, for a live view (`ballast run --once` in a terminal). The
 * cycle emits these through the optional `CycleContext.progress` sink; nothing depends on them being consumed.
 */

/**
 * Stages in order: planned → quoted → verified → deposited → filled; or an end state instead of the next stage:
 * `checked` (plan mode: verified, not executed), `in_flight` (deposited, fill not final before the tracking
 * deadline), `skipped` (fee policy or a spending limit), `refused` (local verification), `quote_error`,
 * `origin_failed`, `failed` (fill failed), `refunded`, `handed_over` (the run's leader term ended: the replica that
 * leads now carries the transfer on).
 */
export type TransferStage =
  | 'planned'
  | 'quoted'
  | 'verified'
  | 'deposited'
  | 'filled'
  | 'checked'
  | 'in_flight'
  | 'skipped'
  | 'refused'
  | 'quote_error'
  | 'origin_failed'
  | 'failed'
  | 'refunded'
  | 'handed_over';

/** Stages after which no other event comes for the same plan id. */
export const END_STAGES: readonly TransferStage[] = [
  'filled',
  'checked',
  'in_flight',
  'skipped',
  'refused',
  'quote_error',
  'origin_failed',
  'failed',
  'refunded',
  'handed_over',
];

/** One progress event. Amounts are base units with the decimals to show them in whole units. */
export interface TransferProgressEvent {
  /** `planned_transfers.id` of the transfer: the key of its events within the cycle. */
  planId: number;
  /**
   * `transfers.id`, once the transfer is written ahead of signing (set from `deposited` on, and on an end state
   * reached after the write-ahead): the id `history`, `resume` and `withdraw` name it by. Absent before.
   */
  transferId?: number;
  asset: string;
  originChain: string;
  destinationChain: string;
  /** Origin base units and their decimals. */
  amountIn: bigint;
  decimalsIn: number;
  stage: TransferStage;
  /** Guaranteed output (`minimumAmount` summed), destination base units, once quoted. */
  minOut?: bigint;
  decimalsOut: number;
  /** Why it ended there (skip reason, failed rule, error), for end states. */
  detail?: string;
  /** Ms since the epoch. */
  atMs: number;
}

/** The sink a cycle emits progress into; it must not throw (a throwing sink is ignored by the emitter). */
export type ProgressSink = (event: TransferProgressEvent) => void;
