/**
 * Pure matching of an observed deposit to a quoted order: the solver fills only a deposit on the order's
 * origin chain, from the quote's user, in the quoted currency and amount, before the order deadline, and only
 * once; anything else is returned to the depositor.
 */
import type { Address } from 'viem';
import type { ObservedDeposit, RequestRecord } from '../api/requestStore.ts';

/** Why a deposit is refunded instead of filled (used as the request's `failReason`). */
export type RefundReason =
  | 'UNKNOWN_ORDER'
  | 'DOUBLE_SPEND'
  | 'WRONG_CHAIN'
  | 'WRONG_DEPOSITOR'
  | 'WRONG_CURRENCY'
  | 'WRONG_AMOUNT'
  | 'ORDER_EXPIRED';

/**
 * Decision for one deposit.
 * - `fill`: the deposit pays `record`'s order exactly.
 * - `refund`: return `deposit.amount` of `deposit.currency` to `to` (the credited depositor). `record` is the
 *   waiting request the deposit claimed to pay, or null when it must be tracked as a new request (unknown
 *   order id, or an order already paid).
 */
export type DepositDecision =
  | { kind: 'fill'; record: RequestRecord }
  | { kind: 'refund'; record: RequestRecord | null; reason: RefundReason; to: Address };

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Decides what to do with a deposit.
 *
 * @param deposit the observed deposit
 * @param record the request whose order id equals `deposit.id`, if any
 * @param nowSec current time, unix seconds (compared with the order's output deadline)
 */
export function matchDeposit(deposit: ObservedDeposit, record: RequestRecord | undefined, nowSec: number): DepositDecision {
  const refund = (reason: RefundReason, r: RequestRecord | null): DepositDecision => ({
    kind: 'refund',
    record: r,
    reason,
    to: deposit.from,
  });
  if (!record || !record.order) return refund('UNKNOWN_ORDER', null);
  if (record.status !== 'waiting') return refund('DOUBLE_SPEND', null);
  const order = record.order;
  if (deposit.chainId !== order.originChainId) return refund('WRONG_CHAIN', record);
  if (!same(deposit.from, order.user)) return refund('WRONG_DEPOSITOR', record);
  if (!same(deposit.currency, order.currencyIn.address)) return refund('WRONG_CURRENCY', record);
  if (deposit.amount !== order.amountIn) return refund('WRONG_AMOUNT', record);
  if (nowSec > order.deadlineSec) return refund('ORDER_EXPIRED', record);
  return { kind: 'fill', record };
}
