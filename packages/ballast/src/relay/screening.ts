/**
 * Relay's address screening as Ballast meets it (https://docs.relay.link/security/transaction-screening): every
 * flow is screened (depositor, recipient, `refundTo`) at quote time and again before the fill.
 *
 * - Quote time: POST /quote/v2 answers HTTP 400 `errorCode` `BLOCKED_WALLET_ADDRESS`. The 2026 quote error list
 *   (https://docs.relay.link/references/api/api_core_concepts/handling-errors) also names
 *   `SANCTIONED_WALLET_ADDRESS` (sender or recipient sanctioned or blacklisted); both are treated alike.
 * - Fill time: the request's `failReason` is `BLOCKED_WALLET`
 *   (https://docs.relay.link/references/api/api_core_concepts/execution-errors); the fill is blocked and the funds
 *   are held for compliance review, not refunded automatically.
 *
 * Neither is retried: the docs give no retry guidance, and a wallet on a screening list stays there until Relay's
 * compliance staff decide otherwise, so Ballast pauses the wallets involved (src/cycle/pausedRoutes.ts) until an
 * operator resumes them. Pure.
 */
import { RelayApiError } from './errors.ts';

/** Quote `errorCode`s that mean a screened address was refused. */
export const SCREENING_QUOTE_ERROR_CODES: readonly string[] = ['BLOCKED_WALLET_ADDRESS', 'SANCTIONED_WALLET_ADDRESS'];

/** The request `failReason` of a fill blocked by screening. */
export const SCREENING_FAIL_REASON = 'BLOCKED_WALLET';

/**
 * The screening refusal an error carries, or undefined. Follows `cause` links, so an error wrapped by a caller
 * is still recognised.
 *
 * @param error anything thrown by a Relay client call
 * @returns the RelayApiError whose `errorCode` is one of {@link SCREENING_QUOTE_ERROR_CODES}
 */
export function screeningRefusal(error: unknown): RelayApiError | undefined {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RelayApiError && e.errorCode !== undefined && SCREENING_QUOTE_ERROR_CODES.includes(e.errorCode)) return e;
    if (typeof e !== 'object') return undefined;
  }
  return undefined;
}

/** Whether a request status's `failReason` says screening blocked the fill (`BLOCKED_WALLET`). */
export function isScreeningFailReason(failReason: string | null | undefined): boolean {
  return failReason === SCREENING_FAIL_REASON;
}
