/**
 * Whether a request status is about our deposit. A quote's `requestId` is the API's word; before Ballast closes
 * a transfer on a terminal status it checks that the status names our origin transaction (docs/relay-contract.md "Request
 * status record": `inTxHashes` are the origin deposit transactions).
 */
import type { IntentStatus } from '@ballast/protocol/relay/schemas.ts';
import { sameTxId } from '../core/txId.ts';
import { isScreeningFailReason } from '../relay/screening.ts';
import { FILL_BLOCKED_NOTE } from './screeningBlock.ts';

/**
 * @param status a status record from GET /intents/status/v3
 * @param depositTxHash our deposit transaction id (EVM hash, Solana signature, Bitcoin txid)
 * @returns true when `inTxHashes` names it ({@link sameTxId}: hex case-insensitively, base58 exactly)
 */
export function statusNamesDeposit(status: IntentStatus, depositTxHash: string): boolean {
  return status.inTxHashes.some((h) => sameTxId(h, depositTxHash));
}

/**
 * Whether a status is about another deposit: it names origin transactions (`inTxHashes`) and ours is not among
 * them. Such a status is never written to our transfer (a recycled or mixed-up request id).
 *
 * @param depositTxHash our deposit transaction id
 */
export function statusIsForeign(status: IntentStatus, depositTxHash: string): boolean {
  return status.inTxHashes.length > 0 && !statusNamesDeposit(status, depositTxHash);
}

/**
 * The reasons a final status gives (docs/relay-contract.md "Events": `failReason` on failure, fallback and refund;
 * `refundFailReason` when a refund leg failed; `N/A` otherwise), as text for the transfer's history, or ''. A
 * fill blocked by address screening (`BLOCKED_WALLET`) adds that the funds are in compliance review.
 */
export function statusReasons(status: IntentStatus): string {
  const parts: string[] = [];
  if (status.failReason && status.failReason !== 'N/A') parts.push(`failReason ${status.failReason}`);
  if (status.refundFailReason && status.refundFailReason !== 'N/A') parts.push(`refundFailReason ${status.refundFailReason}`);
  if (isScreeningFailReason(status.failReason)) parts.push(FILL_BLOCKED_NOTE);
  return parts.join('; ');
}
