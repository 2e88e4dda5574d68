/**
 * Why a deposit is not withdrawn (docs/errors.md, docs/withdrawals.md). A withdrawal that cannot go on is not an
 * exception: it is recorded, so each reason has a stable code written at the start of the withdrawal's `reason`
 * (`CODE: message naming the field and the fix`), logged and shown by `ballast withdraw` and `ballast history`.
 * The CLI exits 3 for the refusals by Ballast's own checks (`WITHDRAWAL_OWNER_UNSUPPORTED`,
 * `WITHDRAWAL_NOT_ELIGIBLE`, `WITHDRAWAL_TX_REFUSED`) and 1 for the others:
 * - `WITHDRAWAL_OWNER_UNSUPPORTED`: the owner's VM cannot withdraw (Bitcoin, Lighter) or its ready transaction is
 *   not one Ballast broadcasts;
 * - `WITHDRAWAL_NOT_ELIGIBLE`: the request record does not describe our deposit;
 * - `WITHDRAWAL_ATTEST_REFUSED` / `WITHDRAWAL_PREPARE_REFUSED`: the service answered 400 (terminal);
 * - `WITHDRAWAL_TX_REFUSED`: the `ready` transaction failed verification, nothing was signed;
 * - `WITHDRAWAL_GAVE_UP`: `withdrawals.maxAttempts` jobs expired or failed.
 */

/** Every withdrawal reason code. */
export const WITHDRAWAL_ERROR_CODES = [
  'WITHDRAWAL_OWNER_UNSUPPORTED',
  'WITHDRAWAL_NOT_ELIGIBLE',
  'WITHDRAWAL_ATTEST_REFUSED',
  'WITHDRAWAL_PREPARE_REFUSED',
  'WITHDRAWAL_TX_REFUSED',
  'WITHDRAWAL_GAVE_UP',
] as const;
/** One code. */
export type WithdrawalErrorCode = (typeof WITHDRAWAL_ERROR_CODES)[number];

/** Codes that are a refusal by Ballast's own checks (nothing unsafe was done; the CLI exits 3). */
export const WITHDRAWAL_REFUSAL_CODES: readonly WithdrawalErrorCode[] = [
  'WITHDRAWAL_OWNER_UNSUPPORTED',
  'WITHDRAWAL_NOT_ELIGIBLE',
  'WITHDRAWAL_TX_REFUSED',
];

/** The text stored as a withdrawal's reason: `CODE: message`. */
export function reasonText(code: WithdrawalErrorCode, message: string): string {
  return `${code}: ${message}`;
}

/** The code at the start of a stored reason, when it has one. */
export function reasonCode(reason: string | null): WithdrawalErrorCode | undefined {
  const code = reason?.split(':', 1)[0];
  return (WITHDRAWAL_ERROR_CODES as readonly string[]).includes(code ?? '') ? (code as WithdrawalErrorCode) : undefined; // checked against the list
}
