/**
 * Pure matching of an observed deposit to a quoted order. The solver fills only a deposit that pays its
 * order exactly: on the order's origin chain, from the quote's user, in the quoted currency and amount, in a
 * block no later than the order deadline, while the order still waits for its deposit. Any other deposit is
 * not filled and never touches the order's request: it stays in the depository until its depositor reclaims
 * it (docs/relay-contract.md "What the service does" 5), and gets a request of its own.
 */
import type { QuotedOrder } from '../quote/buildQuote.ts';
import { sameWallet, type ObservedDeposit, type RequestRecord } from '../api/requestStore.ts';
import type { FailReason } from '../failReasons.ts';

/** Why a deposit is not filled (the sandbox's own, finer reason; logged, and mapped to a published failReason). */
export type UnfilledReason =
  'UNKNOWN_ORDER' | 'DOUBLE_SPEND' | 'WRONG_CHAIN' | 'WRONG_DEPOSITOR' | 'WRONG_CURRENCY' | 'WRONG_AMOUNT' | 'ORDER_EXPIRED';

/**
 * Decision for one deposit.
 * - `fill`: the deposit pays `record`'s order exactly; only this decision may change `record`.
 * - `unfilled`: the deposit is tracked as a request of its own whose `failReason` is `failReason` (see
 *   {@link publicFailReason}). `claimed` is the order its id names, if any (used only for where a refund goes
 *   when the `refund` fault returns such deposits).
 */
export type DepositDecision =
  | { kind: 'fill'; record: RequestRecord }
  | { kind: 'unfilled'; reason: UnfilledReason; failReason: FailReason; claimed: QuotedOrder | null };

/**
 * The published failReason (relay-kit's API types) closest to an unfilled reason: `DOUBLE_SPEND`,
 * `DEPOSIT_CHAIN_MISMATCH`, `INCORRECT_DEPOSIT_CURRENCY`, `ORDER_EXPIRED`, `DEPOSITED_AMOUNT_TOO_LOW_TO_FILL` for an
 * amount below the order's; `UNKNOWN` where no published value says it (unknown order id, another depositor, an
 * amount above the order's).
 *
 * @param depositAmount and `orderAmount`: base units, only read for `WRONG_AMOUNT`
 */
export function publicFailReason(reason: UnfilledReason, depositAmount = 0n, orderAmount = 0n): FailReason {
  switch (reason) {
    case 'DOUBLE_SPEND':
    case 'ORDER_EXPIRED':
      return reason;
    case 'WRONG_CHAIN':
      return 'DEPOSIT_CHAIN_MISMATCH';
    case 'WRONG_CURRENCY':
      return 'INCORRECT_DEPOSIT_CURRENCY';
    case 'WRONG_AMOUNT':
      return depositAmount < orderAmount ? 'DEPOSITED_AMOUNT_TOO_LOW_TO_FILL' : 'UNKNOWN';
    case 'UNKNOWN_ORDER':
    case 'WRONG_DEPOSITOR':
      return 'UNKNOWN';
  }
}

/** Same address or currency: 0x hex case-insensitively, Solana and Bitcoin forms exactly. */
const same = sameWallet;

/**
 * Decides what to do with a deposit. Field mismatches are reported before expiry, and both before a second
 * deposit for an order that was already paid.
 *
 * @param deposit the observed deposit; `blockTimestamp` (unix seconds) is compared with the order's
 *   `output.deadline`, so a deposit mined in time is filled however late it is indexed
 * @param record the request whose order id equals `deposit.id`, if any
 */
export function matchDeposit(deposit: ObservedDeposit, record: RequestRecord | undefined): DepositDecision {
  if (!record || !record.order) return { kind: 'unfilled', reason: 'UNKNOWN_ORDER', failReason: 'UNKNOWN', claimed: null };
  const order = record.order;
  const unfilled = (reason: UnfilledReason): DepositDecision => ({
    kind: 'unfilled',
    reason,
    failReason: publicFailReason(reason, deposit.amount, order.amountIn),
    claimed: order,
  });
  if (deposit.chainId !== order.originChainId) return unfilled('WRONG_CHAIN');
  if (!same(deposit.from, order.user)) return unfilled('WRONG_DEPOSITOR');
  if (!same(deposit.currency, order.currencyIn.address)) return unfilled('WRONG_CURRENCY');
  if (deposit.amount !== order.amountIn) return unfilled('WRONG_AMOUNT');
  if (deposit.blockTimestamp > order.deadlineSec) return unfilled('ORDER_EXPIRED');
  if (record.status !== 'waiting') return unfilled('DOUBLE_SPEND');
  return { kind: 'fill', record };
}
