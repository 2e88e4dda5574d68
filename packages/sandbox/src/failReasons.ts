/**
 * The `failReason` and `refundFailReason` values the sandbox records, limited to the ones Relay publishes:
 * relay-kit's generated API types (`packages/sdk/src/types/api.ts`, GET /requests `data.failReason` /
 * `data.refundFailReason` enums) and docs/relay-contract.md "Events" (`N/A` on non-failure statuses, `UNKNOWN` when no
 * reason was recorded, `DOUBLE_SPEND` as an example).
 */

/** Published `failReason` values the sandbox can produce (a subset of relay-kit's enum), plus `N/A`. */
export const FAIL_REASONS = [
  'N/A',
  'UNKNOWN',
  'DOUBLE_SPEND',
  'DEPOSIT_CHAIN_MISMATCH',
  'INCORRECT_DEPOSIT_CURRENCY',
  'DEPOSITED_AMOUNT_TOO_LOW_TO_FILL',
  'ORDER_EXPIRED',
  'TRANSACTION_REVERTED',
  'SOLVER_CAPACITY_EXCEEDED',
  'SOLVER_BALANCE_TOO_LOW',
  'SLIPPAGE',
  'NO_QUOTES',
  'EXECUTION_REVERTED',
  'AMOUNT_TOO_LOW_TO_REFUND',
  'BLOCKED_WALLET', // address screening blocked the fill (https://docs.relay.link/references/api/api_core_concepts/execution-errors)
] as const;
/** One of {@link FAIL_REASONS}. */
export type FailReason = (typeof FAIL_REASONS)[number];

/**
 * Published `refundFailReason` values (relay-kit's enum, plus `MANUAL_REFUND_REQUIRED`, added 2026-08-07:
 * https://docs.relay.link/references/api/api_core_concepts/execution-errors), plus `N/A` (docs/relay-contract.md "Events":
 * the default).
 */
export const REFUND_FAIL_REASONS = [
  'N/A',
  'AMOUNT_TOO_LOW_TO_REFUND',
  'NEGATIVE_NEW_AMOUNT_AFTER_FEES',
  'SWAP_CURRENCY_NOT_ON_ORIGIN',
  'REFUND_RECIPIENT_IS_VASP',
  'MANUAL_REFUND_REQUIRED',
] as const;
/** One of {@link REFUND_FAIL_REASONS}. */
export type RefundFailReason = (typeof REFUND_FAIL_REASONS)[number];

/** The reasons a fault can make a failed or refunded request report (every published value but `N/A`). */
export const FAULT_FAIL_REASONS = FAIL_REASONS.filter((r): r is Exclude<FailReason, 'N/A'> => r !== 'N/A');
/** The reasons a fault can make a refund leg fail with (every published value but `N/A`). */
export const FAULT_REFUND_FAIL_REASONS = REFUND_FAIL_REASONS.filter((r): r is Exclude<RefundFailReason, 'N/A'> => r !== 'N/A');
