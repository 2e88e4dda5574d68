/**
 * The words people read for how far a transfer got: quoted, signed, broadcast, deposited, filled, refunded (and
 * the ways it can end short of a fill). A notification or a progress line names the stage a transfer reached and
 * nothing beyond it: a transaction that was only broadcast is "broadcast", never "executed", "sent" or "done".
 * Pure.
 */
import type { TransferStatus } from '../store/transferStatus.ts';

/**
 * The stage each stored status means (src/store/transferStatus.ts):
 * - `prepared`: written ahead with its transactions signed, nothing broadcast;
 * - `broadcast`: an origin transaction is on the network, not yet confirmed;
 * - `deposited`: every origin transaction confirmed: the deposit is made, the fill is awaited;
 * - `success`: the solver filled the order on the destination chain;
 * - `failure`: deposited, then the request failed: not filled, the deposit waits in the depository;
 * - `refund`: the solver paid the deposit back on the origin chain;
 * - `origin_failed`: an origin transaction reverted or could not be broadcast: no deposit was made;
 * - `withdrawn`: never filled; the deposit was withdrawn back to the origin wallet.
 */
export const TRANSFER_STAGE: Readonly<Record<TransferStatus, string>> = {
  prepared: 'signed, not broadcast',
  broadcast: 'broadcast, not yet deposited',
  deposited: 'deposited, not yet filled',
  success: 'filled',
  failure: 'deposited, not filled (failed)',
  refund: 'refunded',
  origin_failed: 'origin transaction failed, nothing deposited',
  withdrawn: 'deposit withdrawn, not filled',
};

/** The stage of a stored status ({@link TRANSFER_STAGE}); an unknown status is named as it is. */
export function transferStage(status: string): string {
  return Object.hasOwn(TRANSFER_STAGE, status) ? TRANSFER_STAGE[status as TransferStatus] : status; // key checked just before
}
