/**
 * Time budget of an order's deadline (`orderData.output.deadline`, unix seconds; spec "protocol.v2"): a deposit
 * mined after it is refunded, not filled, so every item is signed only while enough time is left for it and the
 * items after it, and no wait may eat into the time of the items that follow. Pure.
 */

/** Time kept after the deposit is mined for the solver to fill before the deadline, seconds. */
export const DEADLINE_MARGIN_SEC = 60;
/** Time reserved for each transaction still to be signed, sent and mined, seconds. */
export const ITEM_BUDGET_SEC = 30;
/** Longest wait for one origin receipt, ms (shortened when the deadline is nearer). */
export const RECEIPT_TIMEOUT_MS = 120_000;

/**
 * Seconds that must be left before the deadline to start `itemsLeft` transactions (this one included):
 * {@link DEADLINE_MARGIN_SEC} + {@link ITEM_BUDGET_SEC} per transaction.
 */
export function requiredLeadSec(itemsLeft: number): number {
  return DEADLINE_MARGIN_SEC + ITEM_BUDGET_SEC * itemsLeft;
}

/**
 * Whether a transaction may be signed now.
 *
 * @param nowMs current time, unix ms
 * @param deadlineSec the order's output deadline, unix seconds
 * @param itemsLeft transactions still to send, this one included
 * @returns null when it may, else why not
 */
export function deadlineRefusal(nowMs: number, deadlineSec: number, itemsLeft: number): string | null {
  const leftSec = Math.floor((deadlineSec * 1000 - nowMs) / 1000);
  const needed = requiredLeadSec(itemsLeft);
  return leftSec >= needed
    ? null
    : `the order deadline ${deadlineSec} is ${leftSec} s away; ${itemsLeft} transaction(s) still to send need ${needed} s`;
}

/**
 * How long to wait for a receipt, ms: at most {@link RECEIPT_TIMEOUT_MS}, and never into the time the
 * transactions after this one need ({@link requiredLeadSec} of `itemsAfter`); at least 1 s.
 *
 * @param itemsAfter transactions still to send after this one
 */
export function receiptWaitMs(nowMs: number, deadlineSec: number, itemsAfter: number): number {
  const spareMs = deadlineSec * 1000 - nowMs - requiredLeadSec(itemsAfter) * 1000;
  return Math.max(1000, Math.min(RECEIPT_TIMEOUT_MS, spareMs));
}
