/**
 * Reading withdrawals: rows of `withdrawals` ({@link WITHDRAWAL_ROW}) → {@link WithdrawalRow}, amounts as bigint
 * and JSON columns parsed. States and their meaning: src/store/withdrawals.ts.
 */
import type { SqlValue, StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { fromJsonText, textToAmount } from './values.ts';

/** Every withdrawal state, as stored (CHECK constraint in migration 5). */
export const WITHDRAWAL_STATES = ['attesting', 'attested', 'executing', 'processing', 'sending', 'executed', 'failed'] as const;
/** A withdrawal state. */
export type WithdrawalState = (typeof WITHDRAWAL_STATES)[number];
/** States that never change again on their own (`failed` is reopened only by an operator's `ballast withdraw --request`). */
export const FINAL_WITHDRAWAL_STATES: readonly WithdrawalState[] = ['executed', 'failed'];

/** What a withdrawal needs, from our transfer and the service's record. */
export interface WithdrawalFields {
  /** Config name, numeric id and protocol slug (`protocol.v2.chainId`) of the deposit chain. */
  chain: string;
  chainId: number;
  chainSlug: string;
  /** Config name of our wallet that deposited. */
  wallet: string;
  /** The depositor as the record spells it (the owner who signs) and the recipient (the same wallet). */
  owner: string;
  recipient: string;
  /** The currency as the record spells it, and the amount in base units. */
  currency: string;
  amount: bigint;
  /** The deposit transaction id. */
  depositTx: string;
}

/** A withdrawal as stored. Amounts bigint base units; times ms. */
export interface WithdrawalRow extends WithdrawalFields {
  id: number;
  transferId: number;
  requestId: string;
  state: WithdrawalState;
  /** Withdrawal jobs started (execute calls) so far. */
  attempts: number;
  nonce: string | null;
  /** The amount prepare returned for the current job (what the owner signed and the job pays). */
  preparedAmount: bigint | null;
  /**
   * What executed jobs returned so far (0 until the first executes). Below `amount` while not `executed`: the rest
   * of the deposit is still open in the hub (src/store/withdrawalAmounts.ts).
   */
  receivedAmount: bigint;
  additionalData: Record<string, unknown> | null;
  signature: string | null;
  jobId: string | null;
  /** Last job status read (docs/relay-contract.md "Withdrawal job status"). */
  jobStatus: string | null;
  /** The `ready` transaction as the job gave it. */
  tx: unknown;
  txHash: string | null;
  rawTx: string | null;
  txStatus: 'signed' | 'sent' | 'confirmed' | 'reverted' | null;
  /** A ready transaction of the current job that reverted: no other is signed for that job (cleared by a restart). */
  revertedTx: string | null;
  /** Why it failed, restarted or was refused (last reason). */
  reason: string | null;
  /**
   * The network fee our mined ready transactions paid (reverted ones included), summed, native base units (wei): what
   * the withdrawal cost the owner wallet. Null when a mined one's fee could not be read, or the withdrawal may have
   * had one mined before migration 18 recorded it.
   */
  gasPaid: bigint | null;
  createdAtMs: number;
  updatedAtMs: number;
  finishedAtMs: number | null;
}

/**
 * A `withdrawals` row as read (`SELECT *`): amounts TEXT base units, JSON columns text, times integer ms. Query
 * results are typed as it unchecked; {@link WITHDRAWAL_ROW} ties it to the migrated schema of both engines
 * (test/unit/store/rowTypes.test.ts).
 */
interface WithdrawalDbRow {
  id: number;
  transfer_id: number;
  request_id: string;
  chain: string;
  chain_id: number;
  chain_slug: string;
  wallet: string;
  owner: string;
  recipient: string;
  currency: string;
  amount: string;
  deposit_tx: string;
  state: WithdrawalState;
  attempts: number;
  nonce: string | null;
  prepared_amount: string | null;
  received_amount: string;
  additional_json: string | null;
  signature: string | null;
  job_id: string | null;
  job_status: string | null;
  tx_json: string | null;
  tx_hash: string | null;
  raw_tx: string | null;
  tx_status: WithdrawalRow['txStatus'];
  reverted_tx: string | null;
  reason: string | null;
  created_at_ms: number;
  updated_at_ms: number;
  finished_at_ms: number | null;
  gas_paid: string | null;
}

/** Columns of {@link WithdrawalDbRow}: every column of `withdrawals`. */
export const WITHDRAWAL_ROW = rowShape<WithdrawalDbRow>({
  name: 'WithdrawalDbRow',
  table: 'withdrawals',
  allColumns: true,
  columns: {
    id: 'integer',
    transfer_id: 'integer',
    request_id: 'text',
    chain: 'text',
    chain_id: 'integer',
    chain_slug: 'text',
    wallet: 'text',
    owner: 'text',
    recipient: 'text',
    currency: 'text',
    amount: 'text',
    deposit_tx: 'text',
    state: 'text',
    attempts: 'integer',
    nonce: 'text?',
    prepared_amount: 'text?',
    received_amount: 'text',
    additional_json: 'text?',
    signature: 'text?',
    job_id: 'text?',
    job_status: 'text?',
    tx_json: 'text?',
    tx_hash: 'text?',
    raw_tx: 'text?',
    tx_status: 'text?',
    reverted_tx: 'text?',
    reason: 'text?',
    created_at_ms: 'integer',
    updated_at_ms: 'integer',
    finished_at_ms: 'integer?',
    gas_paid: 'text?',
  },
});

function mapRow(r: WithdrawalDbRow): WithdrawalRow {
  return {
    id: r.id,
    transferId: r.transfer_id,
    requestId: r.request_id,
    chain: r.chain,
    chainId: r.chain_id,
    chainSlug: r.chain_slug,
    wallet: r.wallet,
    owner: r.owner,
    recipient: r.recipient,
    currency: r.currency,
    amount: textToAmount(r.amount, 'amount'),
    depositTx: r.deposit_tx,
    state: r.state,
    attempts: r.attempts,
    nonce: r.nonce,
    preparedAmount: r.prepared_amount === null ? null : textToAmount(r.prepared_amount, 'prepared_amount'),
    receivedAmount: textToAmount(r.received_amount, 'received_amount'),
    additionalData: fromJsonText(r.additional_json) as Record<string, unknown> | null, // written from a prepare's object or null
    signature: r.signature,
    jobId: r.job_id,
    jobStatus: r.job_status,
    tx: fromJsonText(r.tx_json),
    txHash: r.tx_hash,
    rawTx: r.raw_tx,
    txStatus: r.tx_status,
    revertedTx: r.reverted_tx,
    reason: r.reason,
    gasPaid: r.gas_paid === null ? null : textToAmount(r.gas_paid, 'gas_paid'),
    createdAtMs: r.created_at_ms,
    updatedAtMs: r.updated_at_ms,
    finishedAtMs: r.finished_at_ms,
  };
}

/**
 * Runs a `SELECT * FROM withdrawals …` statement.
 *
 * @returns the rows mapped, amounts as bigint and JSON columns parsed
 */
export async function queryWithdrawals(db: StoreDb, sql: string, ...params: SqlValue[]): Promise<WithdrawalRow[]> {
  return (await db.all<WithdrawalDbRow>(sql, ...params)).map(mapRow); // SELECT * FROM withdrawals: columns checked by WITHDRAWAL_ROW
}
