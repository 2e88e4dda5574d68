/**
 * Spending history: the rolling sums the spending limits (policy/spendingLimits.ts) are checked against, read
 * from the `transfers` and `transfer_txs` tables. Read-only.
 *
 * What counts: a transfer counts when something was signed for it — it has at least one row in
 * `transfer_txs` (rows are written when a transaction is signed, before broadcast) — whatever its status now
 * (a signed transaction that later failed or was refunded still left the signer). An attempt refused or failed
 * before signing has no such row and does not count.
 *
 * Fees of a transfer: `transfers.fees_usd`, the fee decision's total when it was signed — the API's total plus
 * the origin cost estimated before signing (the recorded breakdown's `originCostUsd`, src/policy/originCost.ts).
 * Once the transfer's ledger entry holds the origin gas really paid in USD (`transfer_ledger.gas_usd`: Bitcoin
 * miner fee, Solana fee and the rent of accounts the deposit created, EVM `gasUsed × effectiveGasPrice`), that
 * replaces the estimate: the real amount is preferred once known.
 *
 * Windows, by `created_at_ms` against `nowMs`: the 24 h window holds `created_at_ms > nowMs - 24 h` and the 1 h
 * window `created_at_ms > nowMs - 1 h` (a transfer exactly 24 h / 1 h old has left it). There is no upper bound:
 * a row stamped after `nowMs` (the clock stepped back) still counts, so a clock change cannot free budget.
 */
import type { StoreDb } from './db.ts';
import { DECIMAL_STRING_RE, parseUsdMicros } from '@ballast/protocol/core/units.ts';
import type { SpendingHistory } from '../policy/spendingLimits.ts';
import { StoreValueError } from './errors.ts';
import { rowShape } from './rowColumns.ts';
import { checkMs, textToAmount } from './values.ts';

/** Length of the notional and fee window, milliseconds. */
export const SPENDING_DAY_MS = 24 * 60 * 60 * 1000;
/** Length of the transfer-count window, milliseconds. */
export const SPENDING_HOUR_MS = 60 * 60 * 1000;

/**
 * The rolling history with the 24 h notional also split by origin chain (an asset's decimals may differ per
 * chain, so callers normalise per chain before comparing with a cap in whole units).
 */
export interface SpendingHistoryByOrigin extends SpendingHistory {
  /** asset → origin chain name → sum of `amount_in` over 24 h, that chain's base units. */
  notional24hByOrigin: ReadonlyMap<string, ReadonlyMap<string, bigint>>;
}

/** Input of {@link readSpendingHistory}. */
export interface ReadSpendingHistoryParameters {
  /** Current time, milliseconds since the epoch. */
  nowMs: number;
}

/**
 * One signed transfer as read by {@link readSpendingHistory}: six columns of `transfers`, the ledger's
 * `gas_usd` and the fee decision's `breakdown_json` (both `LEFT JOIN`ed on a primary key, so one row per
 * transfer). Query results are cast to it unchecked; {@link SIGNED_TRANSFER_ROW} ties it to the migrated schema of
 * both engines (test/unit/store/rowTypes.test.ts).
 */
interface SignedTransferDbRow {
  id: number;
  asset: string;
  origin_chain: string;
  amount_in: string;
  fees_usd: string | null;
  created_at_ms: number;
  /** `transfer_ledger.gas_usd`: origin gas paid, USD decimal string; null without an entry or a price. */
  paid_gas_usd: string | null;
  /** `fee_decisions.breakdown_json` of the transfer's quote. */
  breakdown_json: string | null;
}

/** Columns of {@link SignedTransferDbRow}: the select list of {@link readSpendingHistory}. */
export const SIGNED_TRANSFER_ROW = rowShape<SignedTransferDbRow>({
  name: 'SignedTransferDbRow',
  table: 'transfers',
  allColumns: false,
  columns: {
    id: 'integer',
    asset: 'text',
    origin_chain: 'text',
    amount_in: 'text',
    fees_usd: 'text?',
    created_at_ms: 'integer',
    paid_gas_usd: 'text?',
    breakdown_json: 'text?',
  },
  from: { paid_gas_usd: 'transfer_ledger.gas_usd', breakdown_json: 'fee_decisions.breakdown_json' },
});

function usdColumn(row: SignedTransferDbRow, value: string, column: string): bigint {
  if (!DECIMAL_STRING_RE.test(value)) {
    throw new StoreValueError(column, `transfer ${row.id} has a ${column} that is not a USD decimal string: ${JSON.stringify(value)}`);
  }
  return parseUsdMicros(value);
}

/** The origin cost estimated before signing (`originCostUsd` of the recorded breakdown), micro-USD; null when not recorded. */
function estimatedOriginMicros(row: SignedTransferDbRow): bigint | null {
  if (row.breakdown_json === null) return null;
  let breakdown: unknown;
  try {
    breakdown = JSON.parse(row.breakdown_json);
  } catch {
    return null; // not ours to judge here; the fee stays as recorded
  }
  const value = breakdown !== null && typeof breakdown === 'object' ? (breakdown as { originCostUsd?: unknown }).originCostUsd : undefined; // reading one key of a parsed object
  return typeof value === 'string' && DECIMAL_STRING_RE.test(value) ? parseUsdMicros(value) : null;
}

/**
 * Fees of one row in micro-USD: null is 0, and a negative value (a rebate) counts as 0. With the real origin
 * gas of its ledger entry, the estimate recorded in `fees_usd` is swapped for it.
 */
function feeMicros(row: SignedTransferDbRow): bigint {
  const recorded = row.fees_usd === null ? 0n : usdColumn(row, row.fees_usd, 'fees_usd');
  const paid = row.paid_gas_usd === null ? null : usdColumn(row, row.paid_gas_usd, 'gas_usd');
  const estimate = paid === null ? null : estimatedOriginMicros(row);
  if (paid === null || estimate === null) return recorded > 0n ? recorded : 0n;
  const api = recorded - estimate;
  return (api > 0n ? api : 0n) + (paid > 0n ? paid : 0n);
}

/**
 * Reads the rolling spending history at `nowMs` (rules in the file comment).
 *
 * @returns `notional24h`: sum of `amount_in` per asset over 24 h (origin base units, summed as bigint), and
 *   `notional24hByOrigin` the same per asset and origin chain;
 *   `feesUsd24hMicros`: sum of the fees over 24 h in micro-USD (null = 0; real origin gas once the ledger has it); `transfersLastHour`: count over 1 h
 * @throws StoreValueError when `nowMs` is not integer milliseconds, or a stored amount or fee is malformed
 * @example
 * const history = readSpendingHistory(db, { nowMs: Date.now() });
 * history.notional24h.get('USDC'); // 250000000n
 */
export async function readSpendingHistory(db: StoreDb, { nowMs }: ReadSpendingHistoryParameters): Promise<SpendingHistoryByOrigin> {
  checkMs(nowMs, 'nowMs');
  const dayStartMs = nowMs - SPENDING_DAY_MS;
  const hourStartMs = nowMs - SPENDING_HOUR_MS;
  const rows = (await db.all(
    `SELECT t.id, t.asset, t.origin_chain, t.amount_in, t.fees_usd, t.created_at_ms,
              l.gas_usd AS paid_gas_usd, f.breakdown_json
         FROM transfers t
         LEFT JOIN transfer_ledger l ON l.transfer_id = t.id
         LEFT JOIN fee_decisions f ON f.quote_id = t.quote_id
        WHERE t.created_at_ms > ?
          AND EXISTS (SELECT 1 FROM transfer_txs x WHERE x.transfer_id = t.id)
        ORDER BY t.id`,
    dayStartMs,
  )) as SignedTransferDbRow[]; // the eight selected columns, checked by SIGNED_TRANSFER_ROW

  const notional24h = new Map<string, bigint>();
  const byOrigin = new Map<string, Map<string, bigint>>();
  let feesUsd24hMicros = 0n;
  let transfersLastHour = 0;
  for (const row of rows) {
    const amount = textToAmount(row.amount_in, 'amount_in');
    notional24h.set(row.asset, (notional24h.get(row.asset) ?? 0n) + amount);
    const chains = byOrigin.get(row.asset) ?? new Map<string, bigint>();
    chains.set(row.origin_chain, (chains.get(row.origin_chain) ?? 0n) + amount);
    byOrigin.set(row.asset, chains);
    feesUsd24hMicros += feeMicros(row);
    if (row.created_at_ms > hourStartMs) transfersLastHour += 1;
  }
  return { notional24h, notional24hByOrigin: byOrigin, feesUsd24hMicros, transfersLastHour };
}
