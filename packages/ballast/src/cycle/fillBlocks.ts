/**
 * Where the fills of transfers closed this cycle landed: the destination block of each `success`, so the
 * planner can tell whether the destination balance read already holds it (src/cycle/plannerInFlight.ts).
 */
import { shortErrorMessage } from '../core/errorMessage.ts';
import type { TransferRow } from '../store/transferRows.ts';
import type { CycleContext } from './context.ts';
import type { ClosedTransfer } from './plannerInFlight.ts';

/** What looking up fill blocks uses: the chain adapters and the logger. */
export type FillBlocksDeps = Pick<CycleContext, 'chains' | 'logger'>;

/**
 * Looks up the blocks of the fill transactions (`outTxHashes`, docs/relay-contract.md "GET /intents/status/v3" `txHashes`)
 * of each transfer closed with `success`, on its destination chain.
 *
 * @returns one entry per closed transfer; `fillBlock` is the highest fill block, or null when a fill is not
 *   found, cannot be looked up, or the transfer did not end in `success` (the planner then keeps crediting it
 *   for this cycle: counting a fill twice under-sends once, missing it would pay twice)
 */
export async function fillBlocks(ctx: FillBlocksDeps, closed: readonly TransferRow[]): Promise<ClosedTransfer[]> {
  return Promise.all(closed.map(async (row) => ({ row, fillBlock: row.status === 'success' ? await fillBlock(ctx, row) : null })));
}

async function fillBlock(ctx: FillBlocksDeps, row: TransferRow): Promise<bigint | null> {
  const chain = ctx.chains.get(row.destinationChain);
  if (!chain || row.outTxHashes.length === 0) return null;
  try {
    let max = 0n;
    for (const hash of row.outTxHashes) {
      const block = await chain.txBlock(hash);
      if (block === null) return null;
      if (block > max) max = block;
    }
    return max;
  } catch (error) {
    ctx.logger.warn({ transferId: row.id, err: shortErrorMessage(error) }, 'fill lookup failed; the fill stays credited this cycle');
    return null;
  }
}
