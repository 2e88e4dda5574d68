/**
 * Time budget of an order's deadline (`orderData.output.deadline`, unix seconds; docs/relay-contract.md "protocol.v2"): a
 * deposit mined after it is refunded, not filled, so every item is signed only while enough time is left for it and the
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

/** Mean time between Bitcoin blocks, seconds (the proof-of-work target spacing, ten minutes). */
export const BITCOIN_BLOCK_SEC = 600;
/** Time kept after a Bitcoin deposit has its confirmations for the solver to fill, seconds. */
export const BITCOIN_FILL_MARGIN_SEC = 600;

/**
 * Seconds that must be left before the deadline to start `itemsLeft` transactions on one chain, given the
 * chain's lead for the last of them (the deposit): `lastItemLeadSec` + {@link ITEM_BUDGET_SEC} for every
 * transaction before it. With the default last-item lead ({@link requiredLeadSec}(1) = 90 s) this is
 * {@link requiredLeadSec}.
 *
 * @param lastItemLeadSec lead of the deposit alone, seconds (`chains.<name>.minDeadlineLeadSec` or the VM default)
 * @param itemsLeft transactions still to send, this one included; 0 counts as 1
 */
export function chainLeadSec(lastItemLeadSec: number, itemsLeft: number): number {
  return lastItemLeadSec + ITEM_BUDGET_SEC * Math.max(0, itemsLeft - 1);
}

/**
 * Default lead of a chain's deposit (the last item), seconds, by VM family: EVM and Solana
 * {@link requiredLeadSec}(1) (a transaction is mined within seconds, then {@link DEADLINE_MARGIN_SEC} for the
 * fill); Bitcoin {@link BITCOIN_BLOCK_SEC} × the confirmations the deposit needs + {@link BITCOIN_FILL_MARGIN_SEC}
 * (the solver fills only once the deposit has its confirmations, about ten minutes a block).
 *
 * @param vm the chain's VM family
 * @param confirmations blocks the deposit needs before the fill (Bitcoin only; ignored elsewhere)
 */
export function defaultLastItemLeadSec(vm: 'evm' | 'svm' | 'bvm', confirmations = 1): number {
  return vm === 'bvm' ? BITCOIN_BLOCK_SEC * confirmations + BITCOIN_FILL_MARGIN_SEC : requiredLeadSec(1);
}

/**
 * Whether a transaction may be signed now.
 *
 * @param nowMs current time, unix ms
 * @param deadlineSec the order's output deadline, unix seconds
 * @param itemsLeft transactions still to send, this one included
 * @param neededSec lead the chain needs for them, seconds (the origin adapter's `minDeadlineLeadSec`); default
 *   {@link requiredLeadSec} of `itemsLeft`
 * @returns null when it may, else why not
 */
export function deadlineRefusal(
  nowMs: number,
  deadlineSec: number,
  itemsLeft: number,
  neededSec: number = requiredLeadSec(itemsLeft),
): string | null {
  const leftSec = Math.floor((deadlineSec * 1000 - nowMs) / 1000);
  return leftSec >= neededSec
    ? null
    : `the order deadline ${deadlineSec} is ${leftSec} s away; ${itemsLeft} transaction(s) still to broadcast and confirm need ${neededSec} s`;
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
