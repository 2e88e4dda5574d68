/**
 * Whether a request status is about our deposit. A quote's `requestId` is the API's word; before Ballast closes
 * a transfer on a terminal status it checks that the status names our origin transaction (spec "Request status
 * record": `inTxHashes` are the origin deposit transactions).
 */
import type { IntentStatus } from '../relay/schemas.ts';

/**
 * @param status a status record from GET /intents/status/v3
 * @param depositTxHash our deposit transaction hash (0x hex)
 * @returns true when `inTxHashes` contains the hash (case-insensitive)
 */
export function statusNamesDeposit(status: IntentStatus, depositTxHash: string): boolean {
  const ours = depositTxHash.toLowerCase();
  return status.inTxHashes.some((h) => h.toLowerCase() === ours);
}
