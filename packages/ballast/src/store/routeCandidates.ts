/**
 * Route choice records (migration 7, `route_candidates`): for a planned transfer with alternative donors, every
 * candidate route considered, its quote when one was asked for, its total fees in USD, the output its order
 * guarantees, and why it was chosen or lost (src/cycle/routeChoice.ts).
 */
import type { StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { amountToText, checkMs, textToAmount } from './values.ts';

/** How a candidate fared: `chosen`, or why it lost. */
export type RouteCandidateOutcome =
  'chosen' | 'costlier' | 'skipped_fee' | 'refused_verification' | 'quote_error' | 'no_spare' | 'not_quoted';

/** One candidate route of a planned transfer. `rank` 0 is the planner's own pick; amounts in base units. */
export interface RouteCandidateRecord {
  cycleId: number;
  planId: number;
  rank: number;
  originChain: string;
  originWallet: string;
  /** Origin base units. */
  amountIn: bigint;
  quoteId?: number;
  /** Total fees the fee policy counted, USD decimal string. */
  feesUsd?: string;
  /** Output the order guarantees (`minimumAmount` summed), destination base units. */
  minOut?: bigint;
  outcome: RouteCandidateOutcome;
  detail: string;
  decidedAtMs: number;
}

/**
 * Stores the candidates of one route choice in one transaction.
 *
 * @throws StoreValueError on a negative amount or a bad time; the engine's constraint error on an unknown cycle, plan or quote
 */
export async function recordRouteCandidates(db: StoreDb, rows: readonly RouteCandidateRecord[]): Promise<void> {
  await db.transaction(async () => {
    for (const r of rows) {
      checkMs(r.decidedAtMs, 'decidedAtMs');
      await db.run(
        `INSERT INTO route_candidates (cycle_id, plan_id, rank, origin_chain, origin_wallet, amount_in, quote_id, fees_usd, min_out, outcome, detail, decided_at_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        r.cycleId,
        r.planId,
        r.rank,
        r.originChain,
        r.originWallet,
        amountToText(r.amountIn, 'amountIn'),
        r.quoteId ?? null,
        r.feesUsd ?? null,
        r.minOut === undefined ? null : amountToText(r.minOut, 'minOut'),
        r.outcome,
        r.detail,
        r.decidedAtMs,
      );
    }
  });
}

/**
 * A `route_candidates` row as read (`SELECT *`): amounts TEXT base units, `fees_usd` a USD decimal string, times
 * integer ms. Query results are cast to it unchecked; {@link ROUTE_CANDIDATE_ROW} ties it to the migrated schema
 * of both engines (test/unit/store/rowTypes.test.ts).
 */
interface RouteCandidateDbRow {
  id: number;
  cycle_id: number;
  plan_id: number;
  rank: number;
  origin_chain: string;
  origin_wallet: string;
  amount_in: string;
  quote_id: number | null;
  fees_usd: string | null;
  min_out: string | null;
  outcome: RouteCandidateOutcome;
  detail: string;
  decided_at_ms: number;
}

/** Columns of {@link RouteCandidateDbRow}: every column of `route_candidates`. */
export const ROUTE_CANDIDATE_ROW = rowShape<RouteCandidateDbRow>({
  name: 'RouteCandidateDbRow',
  table: 'route_candidates',
  allColumns: true,
  columns: {
    id: 'integer',
    cycle_id: 'integer',
    plan_id: 'integer',
    rank: 'integer',
    origin_chain: 'text',
    origin_wallet: 'text',
    amount_in: 'text',
    quote_id: 'integer?',
    fees_usd: 'text?',
    min_out: 'text?',
    outcome: 'text',
    detail: 'text',
    decided_at_ms: 'integer',
  },
});

/** The candidates recorded for a planned transfer, by rank. */
export async function listRouteCandidates(db: StoreDb, planId: number): Promise<RouteCandidateRecord[]> {
  const rows = (await db.all('SELECT * FROM route_candidates WHERE plan_id = ? ORDER BY rank, id', planId)) as RouteCandidateDbRow[]; // columns checked by ROUTE_CANDIDATE_ROW
  return rows.map((r) => ({
    cycleId: r.cycle_id,
    planId: r.plan_id,
    rank: r.rank,
    originChain: r.origin_chain,
    originWallet: r.origin_wallet,
    amountIn: textToAmount(r.amount_in, 'amount_in'),
    ...(r.quote_id === null ? {} : { quoteId: r.quote_id }),
    ...(r.fees_usd === null ? {} : { feesUsd: r.fees_usd }),
    ...(r.min_out === null ? {} : { minOut: textToAmount(r.min_out, 'min_out') }),
    outcome: r.outcome,
    detail: r.detail,
    decidedAtMs: r.decided_at_ms,
  }));
}
