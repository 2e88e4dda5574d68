/**
 * A fill blocked by Relay's address screening (`failReason` `BLOCKED_WALLET`,
 * https://docs.relay.link/security/transaction-screening): the deposit is held for compliance review, not
 * refunded, so Ballast pauses every route of both wallets of the transfer (the depositor and the recipient;
 * the status does not say which address was blocked) until an operator resumes them (src/store/walletPauses.ts).
 */
import type { IntentStatus } from '@ballast/protocol/relay/schemas.ts';
import { isScreeningFailReason, SCREENING_FAIL_REASON } from '../relay/screening.ts';
import type { StoreDb } from '../store/db.ts';
import { recordWalletPause } from '../store/walletPauses.ts';

/** The history note of a fill blocked by screening. */
export const FILL_BLOCKED_NOTE =
  'address screening blocked the fill (failReason BLOCKED_WALLET): the deposit is held for Relay compliance review and is not refunded automatically; ' +
  'every route of the depositing and receiving wallets is paused until `ballast resume --transfer <id>` once support has settled it';

/**
 * Records the wallet pauses of a transfer whose final status says screening blocked the fill; does nothing
 * otherwise. Call inside the transaction that closes the transfer.
 *
 * @param transfer the transfer's id, depositing wallet (`user`) and `recipient`
 * @returns true when the status was a screening block (pauses recorded)
 * @throws store errors
 */
export async function recordFillScreeningBlock(
  db: StoreDb,
  transfer: { id: number; user: string; recipient: string },
  status: Pick<IntentStatus, 'failReason'>,
  nowMs: number,
): Promise<boolean> {
  if (!isScreeningFailReason(status.failReason)) return false;
  for (const address of new Set([transfer.user, transfer.recipient])) {
    await recordWalletPause(db, {
      address,
      stage: 'fill',
      code: SCREENING_FAIL_REASON,
      detail: `transfer ${transfer.id}: ${FILL_BLOCKED_NOTE}`,
      transferId: transfer.id,
      nowMs,
    });
  }
  return true;
}
