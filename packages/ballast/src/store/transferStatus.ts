/**
 * The transfer state machine as data.
 *
 * ```
 * prepared ──► broadcast ──► deposited ──► success | failure | refund
 *    │             │  └──────────────────► success | failure | refund   (status endpoint reports a terminal
 *    └─────────────┴──► origin_failed                                     state before the receipt is seen)
 * ```
 * `prepared`: transfer row and its signed transactions are written, nothing is broadcast yet (write-ahead).
 * `broadcast`: at least one origin transaction was sent. `deposited`: every origin transaction confirmed.
 * A reorg that removes a confirmed origin transaction before it is final (`chains.<name>.confirmations`) moves
 * `deposited` back to `broadcast`, and reconciliation sends the recorded transaction again.
 * `success`/`failure`/`refund` mirror the terminal request statuses (docs/relay-contract.md "Request status").
 * `origin_failed`: an origin transaction could not be sent or reverted; no deposit was made.
 * `withdrawn` (from `deposited`): the service never filled the deposit and Ballast withdrew it back to the origin
 * wallet (docs/relay-contract.md "Withdrawal endpoints"; src/withdraw/). A `failure` whose deposit is withdrawn keeps its
 * status and gets the resolution `withdrawn` instead (src/store/withdrawals.ts), which ends the route pause.
 */

/** Every transfer status, as stored (CHECK constraint in migration 1). */
export const TRANSFER_STATUSES = [
  'prepared',
  'broadcast',
  'deposited',
  'success',
  'failure',
  'refund',
  'origin_failed',
  'withdrawn',
] as const;

/** A transfer status. */
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** Statuses of a transfer that is still moving: the planner counts it as in flight. */
export const IN_FLIGHT_STATUSES: readonly TransferStatus[] = ['prepared', 'broadcast', 'deposited'];

/** Statuses that never change again. */
export const FINAL_TRANSFER_STATUSES: readonly TransferStatus[] = ['success', 'failure', 'refund', 'origin_failed', 'withdrawn'];

/** Allowed transitions: from → the statuses it may move to. */
export const ALLOWED_TRANSITIONS: Readonly<Record<TransferStatus, readonly TransferStatus[]>> = {
  prepared: ['broadcast', 'origin_failed'],
  broadcast: ['deposited', 'origin_failed', 'success', 'failure', 'refund'],
  deposited: ['success', 'failure', 'refund', 'broadcast', 'withdrawn'],
  success: [],
  failure: [],
  refund: [],
  origin_failed: [],
  withdrawn: [],
};

/**
 * Whether `from → to` is in {@link ALLOWED_TRANSITIONS}.
 *
 * @param from current status
 * @param to requested status
 */
export function isAllowedTransition(from: TransferStatus, to: TransferStatus): boolean {
  return ALLOWED_TRANSITIONS[from]?.includes(to) ?? false;
}

/** Status of one origin transaction: signed (hash known, not sent) → sent → confirmed | reverted. */
export type TransferTxStatus = 'signed' | 'sent' | 'confirmed' | 'reverted';
