/**
 * What reconciliation reads from a transfer's stored quote: where its deposit item is, its order deadline and its
 * depository (docs/relay-contract.md "Step").
 */
import { QuoteResponseSchema } from '@ballast/protocol/relay/schemas.ts';
import { collectExecutableItems } from '../executor/collectItems.ts';
import { getQuote } from '../store/quotes.ts';
import type { TransferRow } from '../store/transfers.ts';
import type { StoreDb } from '../store/db.ts';

/**
 * Where the verified quote's deposit is (its last item: approvals come first, docs/relay-contract.md "Step") and its order
 * deadline (unix seconds). The executor may skip an approval the allowance already covers, or add a reset to
 * zero before one, so the number of recorded transactions says nothing; whether the deposit was written does.
 */
export interface QuoteFacts {
  deposit: { stepId: string; itemIndex: number } | null;
  deadlineSec: number;
  /** `paymentDetails.depository`, equal to GET /chains' when the quote was verified. */
  depository: string | null;
}

/** The {@link QuoteFacts} of the transfer's stored quote, or null when it has none or it no longer parses. */
export async function quoteFacts(ctx: { db: StoreDb }, row: TransferRow): Promise<QuoteFacts | null> {
  if (row.quoteId === null) return null;
  const parsed = QuoteResponseSchema.safeParse((await getQuote(ctx.db, row.quoteId))?.raw);
  if (!parsed.success) return null;
  const v2 = parsed.data.protocol?.v2;
  const last = collectExecutableItems(parsed.data).at(-1);
  return {
    deposit: last ? { stepId: last.stepId, itemIndex: last.itemIndex } : null,
    deadlineSec: v2?.orderData.output.deadline ?? 0,
    depository: v2?.paymentDetails.depository ?? null,
  };
}

/** Whether `tx` is the quote's deposit item. */
export function isDepositItem(tx: { stepId: string; itemIndex: number }, facts: QuoteFacts): boolean {
  const d = facts.deposit;
  return d !== null && tx.stepId === d.stepId && tx.itemIndex === d.itemIndex;
}

/** Whether the transfer recorded a transaction for the quote's deposit item. */
export function depositWritten(row: TransferRow, facts: QuoteFacts): boolean {
  return row.txs.some((t) => isDepositItem(t, facts));
}
