/**
 * The planner's view of transfers under way (docs/design.md "Count in-flight transfers as already moved"), judged
 * against the blocks the balances were read at, so nothing is counted twice or missed: a deposit mined at or
 * before the origin's read block is already in the origin balance, and a fill mined at or before the
 * destination's read block is already in the destination balance. Pure: no I/O.
 */
import type { InFlightTransfer } from '../planner/types.ts';
import type { TransferRow } from '../store/transferRows.ts';

/** A transfer the refresh closed, with the block of its fill on the destination chain (null: not known). */
export interface ClosedTransfer {
  row: TransferRow;
  fillBlock: bigint | null;
}

/**
 * The block of the transfer's deposit when it is mined and recorded (`deposited`, or final with a mined
 * transaction): the highest block among its confirmed origin transactions. A replacement found on chain is
 * recorded as one of them.
 *
 * @returns the block, or null when the deposit is not known to be mined
 */
export function depositBlock(row: TransferRow): bigint | null {
  if (row.status === 'prepared' || row.status === 'broadcast') return null;
  let max: bigint | null = null;
  for (const t of row.txs) {
    if (t.status === 'confirmed' && t.blockNumber !== null && (max === null || t.blockNumber > max)) max = t.blockNumber;
  }
  return max;
}

/**
 * Maps transfers to the planner's in-flight view.
 *
 * - `originSettled` is true when the deposit is mined at or before the block the origin's balances were read at
 *   (so the balance already reflects it); with no read block for the origin, when it is mined at all.
 * - Every transfer still in flight is credited to its destination (`guaranteedOut`).
 * - A transfer the refresh closed with `success` is credited too unless its fill is known to be mined at or
 *   before the destination's read block: a fill after the balance read is in neither the balance nor the
 *   in-flight list otherwise, and the same need would be paid twice.
 *
 * @param inFlight transfers still in flight (store rows)
 * @param readAt chain name → block the balances of that chain were read at
 * @param closed transfers the refresh closed, with their fill blocks
 */
export function toPlannerInFlight(
  inFlight: readonly TransferRow[],
  readAt: ReadonlyMap<string, bigint> = new Map(),
  closed: readonly ClosedTransfer[] = [],
): InFlightTransfer[] {
  const fillAfterRead = (c: ClosedTransfer): boolean => {
    if (c.row.status !== 'success') return false;
    const read = readAt.get(c.row.destinationChain);
    return c.fillBlock === null || read === undefined || c.fillBlock > read;
  };
  return [...inFlight, ...closed.filter(fillAfterRead).map((c) => c.row)].map((r) => {
    const mined = depositBlock(r);
    const read = readAt.get(r.originChain);
    return {
      asset: r.asset,
      originChain: r.originChain,
      originCurrency: r.originCurrency,
      originAddress: r.user,
      destinationChain: r.destinationChain,
      destinationCurrency: r.destinationCurrency,
      destinationAddress: r.recipient,
      amountIn: r.amountIn,
      guaranteedOut: r.minOut,
      originSettled: mined !== null && (read === undefined || mined <= read),
    };
  });
}

/**
 * Chain name → the block its balances were read at, from balance readings (every reading of a chain carries
 * the same block; unreadable chains have none).
 */
export function readBlocks(readings: readonly { chain: string; blockNumber?: bigint }[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const r of readings) if (r.blockNumber !== undefined) out.set(r.chain, r.blockNumber);
  return out;
}
