/**
 * The tables `ballast store copy` moves, in an order that inserts every referenced row before the rows that
 * reference it (foreign keys stay checked during the copy), with the key that orders and identifies each row and
 * the columns holding base-unit amounts (TEXT digit strings, summed exactly when the copy is compared).
 * Schema version 18 (src/store/migrations.ts, src/store/pg/migrations.ts). `schema_migrations` is not copied:
 * `ballast migrate` writes it on the target.
 */

/** One copied table. */
export interface CopyTable {
  /** Table name (the same on both engines). */
  name: string;
  /** Integer primary key column: rows are copied in its order, and its maximum is compared. */
  key: string;
  /** True when `key` is an identity column whose sequence must move past the copied ids. */
  identity: boolean;
  /** Columns holding base-unit amounts (digits only, may be NULL), summed on both sides. */
  amounts: readonly string[];
}

/** Every table of the schema, parents first. */
export const COPY_TABLES: readonly CopyTable[] = [
  { name: 'cycles', key: 'id', identity: true, amounts: [] },
  { name: 'balances', key: 'id', identity: true, amounts: ['amount'] },
  { name: 'planned_transfers', key: 'id', identity: true, amounts: ['amount_in'] },
  { name: 'plan_decisions', key: 'id', identity: true, amounts: [] },
  { name: 'quotes', key: 'id', identity: true, amounts: [] },
  { name: 'fee_decisions', key: 'quote_id', identity: false, amounts: [] },
  { name: 'verdicts', key: 'quote_id', identity: false, amounts: [] },
  { name: 'quote_errors', key: 'id', identity: true, amounts: [] },
  { name: 'transfers', key: 'id', identity: true, amounts: ['amount_in', 'expected_out', 'min_out', 'absence_block', 'refunded_amount'] },
  { name: 'transfer_txs', key: 'id', identity: true, amounts: ['block_number'] },
  { name: 'transfer_events', key: 'id', identity: true, amounts: [] },
  { name: 'run_lock', key: 'id', identity: false, amounts: [] },
  { name: 'limit_hits', key: 'id', identity: true, amounts: ['amount_in'] },
  { name: 'withdrawals', key: 'id', identity: true, amounts: ['amount', 'prepared_amount', 'received_amount', 'gas_paid'] },
  {
    name: 'transfer_ledger',
    key: 'transfer_id',
    identity: false,
    amounts: ['amount_in', 'quoted_expected_out', 'quoted_min_out', 'received_out', 'gas_paid'],
  },
  { name: 'route_candidates', key: 'id', identity: true, amounts: ['amount_in', 'min_out'] },
  { name: 'transfer_requests', key: 'id', identity: true, amounts: [] },
  { name: 'wallet_pauses', key: 'id', identity: true, amounts: [] },
  // Signed TEXT integers (a rate may be negative): not digit-checked amounts, so not summed.
  { name: 'flow_states', key: 'id', identity: true, amounts: [] },
  { name: 'notifications', key: 'id', identity: true, amounts: [] },
  { name: 'approval_requests', key: 'id', identity: true, amounts: ['amount_in'] },
  { name: 'approval_signoffs', key: 'id', identity: true, amounts: [] },
  { name: 'approval_policies', key: 'id', identity: true, amounts: [] },
  { name: 'approval_policy_signoffs', key: 'id', identity: true, amounts: [] },
  { name: 'needs', key: 'id', identity: true, amounts: ['amount'] },
];

/** Tables present in a store but not copied (bookkeeping written by `ballast migrate` itself). */
export const NOT_COPIED: readonly string[] = ['schema_migrations'];
