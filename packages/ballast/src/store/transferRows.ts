/**
 * Reading transfers: SQLite rows → {@link TransferRow} with amounts as bigint, JSON columns parsed, and the
 * transfer's transactions and events attached.
 */
import { inList, type SqlValue, type StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import type { TransferStatus, TransferTxStatus } from './transferStatus.ts';
import { fromJsonText, textToAmount } from './values.ts';

/**
 * Step-id suffix of a transaction that ends an unwanted deposit of the transfer: `<deposit step>:cancel` for the
 * first, `<deposit step>:<n>:cancel` for the n-th (a re-priced cancel; step ids are unique per transfer and item).
 */
export const CANCEL_STEP_SUFFIX = ':cancel';

/** The step id of the `n`-th cancel (1-based) of the deposit at `depositStepId`. */
export function cancelStepId(depositStepId: string, n: number): string {
  return n <= 1 ? `${depositStepId}${CANCEL_STEP_SUFFIX}` : `${depositStepId}:${n}${CANCEL_STEP_SUFFIX}`;
}

/** Step-id marker of a deposit found on chain that we never signed (`<deposit step>:replacement[:n]`, src/cycle/foundDeposit.ts). */
export const REPLACEMENT_STEP_MARKER = ':replacement';

/**
 * The transfer's deposit transaction: its last recorded origin transaction, except that a deposit found on chain
 * (`<step>:replacement`) that is not mined gives way to the one before it. Such a row is an operator's speed-up a
 * reorg removed; when our own deposit then took its nonce (or its inputs) and was mined, that deposit is the one the
 * service names. Undefined when nothing was recorded.
 */
export function depositTxOf<T extends { stepId: string; status: string }>(row: { txs: readonly T[] }): T | undefined {
  for (let i = row.txs.length - 1; i >= 0; i--) {
    const tx = row.txs[i]!; // within bounds
    if (!tx.stepId.includes(REPLACEMENT_STEP_MARKER) || tx.status === 'confirmed' || i === 0) return tx;
  }
  return undefined;
}

/** One origin transaction of a transfer. */
export interface TransferTxRow {
  id: number;
  transferId: number;
  stepId: string;
  itemIndex: number;
  chainId: number;
  /** The exact transaction signed (nonce included; bigints as decimal strings). */
  request: unknown;
  /** Hash of the signed raw transaction (known before broadcast). */
  txHash: string;
  /** Signed raw transaction, 0x hex: enough to rebroadcast after a crash. */
  rawTx: string;
  status: TransferTxStatus;
  blockNumber: bigint | null;
  /** Hash of the block it was mined in, when the receipt gave it (tells a reorg from a lagging node). */
  blockHash: string | null;
  /** When a re-check saw it `chains.<name>.confirmations` deep in the same block: final, never re-checked again. */
  finalAtMs: number | null;
  signedAtMs: number;
  sentAtMs: number | null;
  confirmedAtMs: number | null;
}

/** One status change of a transfer (`fromStatus` is null for the creation event). */
export interface TransferEventRow {
  id: number;
  fromStatus: TransferStatus | null;
  toStatus: TransferStatus;
  atMs: number;
  detail: string | null;
}

/**
 * What a transfer is about: route, wallets, amounts (bigint base units) and the Relay ids. Shared by the
 * write-ahead input ({@link NewTransfer} in transfers.ts) and the stored row.
 */
export interface TransferFields {
  cycleId: number;
  quoteId: number | null;
  asset: string;
  originChain: string;
  originChainId: number;
  originCurrency: string;
  destinationChain: string;
  destinationChainId: number;
  destinationCurrency: string;
  /** Depositing wallet on the origin chain (the quote's `user`). */
  user: string;
  recipient: string;
  /** Origin base units. */
  amountIn: bigint;
  /** Destination base units: the quote's `expectedAmount`, an estimate kept for the record only (never credited). */
  expectedOut: bigint;
  /** Destination base units (guaranteed minimum accepted). */
  minOut: bigint;
  requestId: string | null;
  orderId: string | null;
  /** Total fees in USD as a decimal string, when known. */
  feesUsd: string | null;
}

/**
 * What became of a `refund` or `failure` request's way back (src/cycle/followRefund.ts), read from GET
 * /requests/v3 (else the status endpoint): the refund transaction on the origin chain (the first of `outTxs`
 * there), what it paid back (origin base units; null when the record does not say), and `refundFailReason`
 * (null for `N/A`). https://docs.relay.link/references/api/api_core_concepts/refunds
 */
export interface TransferRefund {
  amount: bigint | null;
  txHash: string | null;
  failReason: string | null;
  checkedAtMs: number;
}

/** A transfer with its transactions and history. Amounts are bigint base units. */
export interface TransferRow extends TransferFields {
  id: number;
  status: TransferStatus;
  /** Last status reported by the Relay status endpoint (docs/relay-contract.md "Request status"). */
  relayStatus: string | null;
  /** Destination (fill) transaction hashes from the status endpoint. */
  outTxHashes: string[];
  error: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  /** When the transfer was first flagged stalled (in flight past `tracking.stalledAfterSec`), or null. */
  stalledAtMs: number | null;
  /** When a `failure` was resolved (by the operator, or by withdrawing its deposit), and how; null while unresolved. */
  resolvedAtMs: number | null;
  resolution: string | null;
  /**
   * The first proof that no deposit for its order exists (the head it was read at, and when), which a later
   * proof must confirm before the transfer is failed; null while there is none.
   */
  absenceProof: { block: bigint; atMs: number } | null;
  /** The refund follow-up of a `refund` or `failure` (see {@link TransferRefund}); null until it is done. */
  refund: TransferRefund | null;
  /** The origin transactions of the quote's items (and recorded replacements found on chain), in order. */
  txs: TransferTxRow[];
  /**
   * Transactions Ballast signed to end an unwanted deposit of this transfer (Bitcoin: a replacement spending its
   * inputs back to our wallet; step id `<step>:cancel`, {@link CANCEL_STEP_SUFFIX}), kept apart from `txs` so
   * nothing takes one for the deposit.
   */
  cancels: TransferTxRow[];
  events: TransferEventRow[];
}

/**
 * A `transfers` row as read (`SELECT *`): amounts and the absence block TEXT base units / digits, `fees_usd` a
 * USD decimal string, times integer ms. Query results are typed as it unchecked; {@link TRANSFER_ROW} ties it to
 * the migrated schema of both engines (test/unit/store/rowTypes.test.ts).
 */
interface TransferDbRow {
  id: number;
  cycle_id: number;
  quote_id: number | null;
  asset: string;
  origin_chain: string;
  origin_chain_id: number;
  origin_currency: string;
  destination_chain: string;
  destination_chain_id: number;
  destination_currency: string;
  user_address: string;
  recipient: string;
  amount_in: string;
  expected_out: string;
  min_out: string;
  request_id: string | null;
  order_id: string | null;
  fees_usd: string | null;
  status: TransferStatus;
  relay_status: string | null;
  out_tx_hashes_json: string;
  error: string | null;
  created_at_ms: number;
  updated_at_ms: number;
  stalled_at_ms: number | null;
  resolved_at_ms: number | null;
  resolution: string | null;
  absence_block: string | null;
  absence_at_ms: number | null;
  refunded_amount: string | null;
  refund_tx_hash: string | null;
  refund_fail_reason: string | null;
  refund_checked_at_ms: number | null;
}

/** Columns of {@link TransferDbRow}: every column of `transfers`. */
export const TRANSFER_ROW = rowShape<TransferDbRow>({
  name: 'TransferDbRow',
  table: 'transfers',
  allColumns: true,
  columns: {
    id: 'integer',
    cycle_id: 'integer',
    quote_id: 'integer?',
    asset: 'text',
    origin_chain: 'text',
    origin_chain_id: 'integer',
    origin_currency: 'text',
    destination_chain: 'text',
    destination_chain_id: 'integer',
    destination_currency: 'text',
    user_address: 'text',
    recipient: 'text',
    amount_in: 'text',
    expected_out: 'text',
    min_out: 'text',
    request_id: 'text?',
    order_id: 'text?',
    fees_usd: 'text?',
    status: 'text',
    relay_status: 'text?',
    out_tx_hashes_json: 'text',
    error: 'text?',
    created_at_ms: 'integer',
    updated_at_ms: 'integer',
    stalled_at_ms: 'integer?',
    resolved_at_ms: 'integer?',
    resolution: 'text?',
    absence_block: 'text?',
    absence_at_ms: 'integer?',
    refunded_amount: 'text?',
    refund_tx_hash: 'text?',
    refund_fail_reason: 'text?',
    refund_checked_at_ms: 'integer?',
  },
});

/**
 * A `transfer_txs` row as read (`SELECT *`): `block_number` TEXT digits, the signed request JSON text, times
 * integer ms. Query results are typed as it unchecked; {@link TRANSFER_TX_ROW} ties it to the migrated schema of
 * both engines (test/unit/store/rowTypes.test.ts).
 */
interface TxDbRow {
  id: number;
  transfer_id: number;
  step_id: string;
  item_index: number;
  chain_id: number;
  request_json: string;
  tx_hash: string;
  raw_tx: string;
  status: TransferTxStatus;
  block_number: string | null;
  block_hash: string | null;
  final_at_ms: number | null;
  signed_at_ms: number;
  sent_at_ms: number | null;
  confirmed_at_ms: number | null;
}

/** Columns of {@link TxDbRow}: every column of `transfer_txs`. */
export const TRANSFER_TX_ROW = rowShape<TxDbRow>({
  name: 'TxDbRow',
  table: 'transfer_txs',
  allColumns: true,
  columns: {
    id: 'integer',
    transfer_id: 'integer',
    step_id: 'text',
    item_index: 'integer',
    chain_id: 'integer',
    request_json: 'text',
    tx_hash: 'text',
    raw_tx: 'text',
    status: 'text',
    block_number: 'text?',
    block_hash: 'text?',
    final_at_ms: 'integer?',
    signed_at_ms: 'integer',
    sent_at_ms: 'integer?',
    confirmed_at_ms: 'integer?',
  },
});

/**
 * A `transfer_events` row as read (`SELECT *`): times integer ms. Query results are typed as it unchecked;
 * {@link TRANSFER_EVENT_ROW} ties it to the migrated schema of both engines (test/unit/store/rowTypes.test.ts).
 */
interface EventDbRow {
  id: number;
  transfer_id: number;
  from_status: TransferStatus | null;
  to_status: TransferStatus;
  at_ms: number;
  detail: string | null;
}

/** Columns of {@link EventDbRow}: every column of `transfer_events`. */
export const TRANSFER_EVENT_ROW = rowShape<EventDbRow>({
  name: 'EventDbRow',
  table: 'transfer_events',
  allColumns: true,
  columns: {
    id: 'integer',
    transfer_id: 'integer',
    from_status: 'text?',
    to_status: 'text',
    at_ms: 'integer',
    detail: 'text?',
  },
});

/**
 * Runs a transfers query and attaches transactions and events.
 *
 * @param sql a `SELECT * FROM transfers ...` statement
 * @param params its parameters
 * @returns rows in the query's order
 */
export async function queryTransfers(db: StoreDb, sql: string, ...params: SqlValue[]): Promise<TransferRow[]> {
  const rows = await db.all<TransferDbRow>(sql, ...params); // SELECT * FROM transfers: columns checked by TRANSFER_ROW
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const txs = await db.all<TxDbRow>(`SELECT * FROM transfer_txs WHERE transfer_id IN ${inList(ids)} ORDER BY id`, ...ids); // columns checked by TRANSFER_TX_ROW
  const events = await db.all<EventDbRow>(`SELECT * FROM transfer_events WHERE transfer_id IN ${inList(ids)} ORDER BY id`, ...ids); // columns checked by TRANSFER_EVENT_ROW
  return rows.map((r) => ({
    ...mapTransfer(r),
    txs: txs.filter((t) => t.transfer_id === r.id && !t.step_id.endsWith(CANCEL_STEP_SUFFIX)).map(mapTx),
    cancels: txs.filter((t) => t.transfer_id === r.id && t.step_id.endsWith(CANCEL_STEP_SUFFIX)).map(mapTx),
    events: events.filter((e) => e.transfer_id === r.id).map(mapEvent),
  }));
}

function mapTransfer(r: TransferDbRow): Omit<TransferRow, 'txs' | 'cancels' | 'events'> {
  return {
    id: r.id,
    cycleId: r.cycle_id,
    quoteId: r.quote_id,
    asset: r.asset,
    originChain: r.origin_chain,
    originChainId: r.origin_chain_id,
    originCurrency: r.origin_currency,
    destinationChain: r.destination_chain,
    destinationChainId: r.destination_chain_id,
    destinationCurrency: r.destination_currency,
    user: r.user_address,
    recipient: r.recipient,
    amountIn: textToAmount(r.amount_in, 'amount_in'),
    expectedOut: textToAmount(r.expected_out, 'expected_out'),
    minOut: textToAmount(r.min_out, 'min_out'),
    requestId: r.request_id,
    orderId: r.order_id,
    feesUsd: r.fees_usd,
    status: r.status,
    relayStatus: r.relay_status,
    outTxHashes: fromJsonText(r.out_tx_hashes_json) as string[], // written only by setRelayStatus from string[]
    error: r.error,
    createdAtMs: r.created_at_ms,
    updatedAtMs: r.updated_at_ms,
    stalledAtMs: r.stalled_at_ms,
    resolvedAtMs: r.resolved_at_ms,
    resolution: r.resolution,
    absenceProof:
      r.absence_block === null || r.absence_at_ms === null
        ? null
        : { block: textToAmount(r.absence_block, 'absence_block'), atMs: r.absence_at_ms },
    refund:
      r.refund_checked_at_ms === null
        ? null
        : {
            amount: r.refunded_amount === null ? null : textToAmount(r.refunded_amount, 'refunded_amount'),
            txHash: r.refund_tx_hash,
            failReason: r.refund_fail_reason,
            checkedAtMs: Number(r.refund_checked_at_ms), // PostgreSQL BIGINT may come back as a string
          },
  };
}

function mapTx(t: TxDbRow): TransferTxRow {
  return {
    id: t.id,
    transferId: t.transfer_id,
    stepId: t.step_id,
    itemIndex: t.item_index,
    chainId: t.chain_id,
    request: fromJsonText(t.request_json),
    txHash: t.tx_hash,
    rawTx: t.raw_tx,
    status: t.status,
    blockNumber: t.block_number === null ? null : textToAmount(t.block_number, 'block_number'),
    blockHash: t.block_hash,
    finalAtMs: t.final_at_ms,
    signedAtMs: t.signed_at_ms,
    sentAtMs: t.sent_at_ms,
    confirmedAtMs: t.confirmed_at_ms,
  };
}

function mapEvent(e: EventDbRow): TransferEventRow {
  return { id: e.id, fromStatus: e.from_status, toStatus: e.to_status, atMs: e.at_ms, detail: e.detail };
}
