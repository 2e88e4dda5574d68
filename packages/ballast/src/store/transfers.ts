/**
 * Transfers: the write-ahead record of every cross-chain move (conventions "Persistence": a row describing
 * what is about to happen is written before it happens). The transfer row and its signed transactions
 * (hash and raw bytes, known before broadcast) are written in one write-ahead transaction (fenced by the leader
 * lease on PostgreSQL, `StoreDb.writeAhead`) with status `prepared`; every
 * later change is a guarded transition (`UPDATE … WHERE id = ? AND status = ?`, exactly one row or nothing)
 * recorded in `transfer_events` in the same transaction. States: see `transferStatus.ts`.
 */
import { inList, type StoreDb } from './db.ts';
import { StoreNotFoundError, StoreTransitionError } from './errors.ts';
import { queryTransfers, type TransferFields, type TransferRow } from './transferRows.ts';
import { ALLOWED_TRANSITIONS, IN_FLIGHT_STATUSES, isAllowedTransition, type TransferStatus } from './transferStatus.ts';
import { amountToText, checkMs, toJsonText } from './values.ts';

export type { TransferEventRow, TransferFields, TransferRow, TransferTxRow } from './transferRows.ts';
export type { TransferStatus, TransferTxStatus } from './transferStatus.ts';
export { ALLOWED_TRANSITIONS, IN_FLIGHT_STATUSES, TRANSFER_STATUSES, isAllowedTransition } from './transferStatus.ts';

/** One origin transaction, signed but not yet sent. */
export interface NewTransferTx {
  /** Quote step id (`approve`, `deposit`…). */
  stepId: string;
  /** Index of the item within the step. */
  itemIndex: number;
  chainId: number;
  /** The exact transaction signed, nonce included; bigints are stored as decimal strings. */
  request: object;
  /** Hash of the signed raw transaction (keccak256 of `rawTx` on EVM). */
  txHash: string;
  /** Signed raw transaction, 0x hex. */
  rawTx: string;
}

/** A transfer about to be executed. Amounts are bigint base units (origin for `amountIn`, destination else). */
export interface NewTransfer extends TransferFields {
  txs: readonly NewTransferTx[];
  nowMs: number;
}

/** Options of a transition. */
export interface TransitionOptions {
  nowMs: number;
  /** Free text for the event (e.g. tx hashes). */
  detail?: string;
  /** Relay status to store with the change (docs/relay-contract.md "Request status"). */
  relayStatus?: string;
  /** Error to store on the transfer (e.g. why the origin failed). */
  error?: string;
}

/**
 * Writes a transfer (status `prepared`), its signed transactions (status `signed`) and its first event, in
 * one transaction: either all are stored or none.
 *
 * @param within runs inside the same transaction once the rows are written (e.g. closing the approval request
 *   the transfer uses); when it throws, nothing is stored
 * @returns the transfer id and the transaction ids in input order
 * @throws StoreValueError on a negative amount or bad time; NotLeaderError/LeaseLostError (PostgreSQL) when this
 *   process does not hold the leader lease; the engine's constraint error on a duplicate `requestId` (the same
 *   request must never be executed twice) or an unknown cycle/quote
 */
export async function createTransfer(
  db: StoreDb,
  t: NewTransfer,
  within?: (transferId: number) => Promise<void>,
): Promise<{ transferId: number; txIds: number[] }> {
  const nowMs = checkMs(t.nowMs, 'nowMs');
  const amounts = [amountToText(t.amountIn, 'amountIn'), amountToText(t.expectedOut, 'expectedOut'), amountToText(t.minOut, 'minOut')];
  // Fenced only when the row announces a signature: an attempt recorded with no transaction (it failed before
  // signing) is history, which any process may write.
  const write = t.txs.length > 0 ? db.writeAhead.bind(db) : db.transaction.bind(db);
  return write(async () => {
    const row = await db.get<{ id: number }>(
      `INSERT INTO transfers (cycle_id, quote_id, asset, origin_chain, origin_chain_id, origin_currency,
         destination_chain, destination_chain_id, destination_currency, user_address, recipient,
         amount_in, expected_out, min_out, request_id, order_id, fees_usd, status, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'prepared', ?, ?) RETURNING id`,
      t.cycleId,
      t.quoteId,
      t.asset,
      t.originChain,
      t.originChainId,
      t.originCurrency,
      t.destinationChain,
      t.destinationChainId,
      t.destinationCurrency,
      t.user,
      t.recipient,
      ...amounts,
      t.requestId,
      t.orderId,
      t.feesUsd,
      nowMs,
      nowMs,
    );
    const transferId = (row as { id: number }).id; // RETURNING always yields the inserted row
    await insertEvent(db, transferId, null, 'prepared', nowMs, 'created');
    const txIds: number[] = [];
    for (const tx of t.txs) txIds.push(await insertTx(db, transferId, tx, nowMs));
    if (within) await within(transferId);
    return { transferId, txIds };
  });
}

/**
 * Adds a signed transaction to a transfer that is still `prepared` or `broadcast` (e.g. the deposit signed
 * after the approval confirmed, with the next nonce).
 *
 * @returns the transaction id
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when the transfer is missing or past `broadcast`
 */
export async function addTransferTx(db: StoreDb, transferId: number, tx: NewTransferTx & { nowMs: number }): Promise<number> {
  const nowMs = checkMs(tx.nowMs, 'nowMs');
  return db.writeAhead(async () => {
    const row = await db.get<{ status: TransferStatus }>(`SELECT status FROM transfers WHERE id = ?${db.forUpdate}`, transferId); // single TEXT column
    if (!row || (row.status !== 'prepared' && row.status !== 'broadcast')) {
      throw new StoreTransitionError(
        'STORE_TRANSITION_CONFLICT',
        'transfers',
        transferId,
        'prepared|broadcast',
        row?.status ?? 'missing',
        `transfer ${transferId} is ${row?.status ?? 'missing'}; transactions can only be added while prepared or broadcast`,
      );
    }
    const id = await insertTx(db, transferId, tx, nowMs);
    await db.run('UPDATE transfers SET updated_at_ms = ? WHERE id = ?', nowMs, transferId);
    return id;
  });
}

/**
 * Moves a transfer from `from` to `to` if, and only if, it is currently in `from` and the transition is
 * allowed; records the event in the same transaction.
 *
 * @throws StoreTransitionError `STORE_TRANSITION_ILLEGAL` when `from → to` is not in the table (nothing
 *   changes); `STORE_TRANSITION_CONFLICT` when the transfer is not in `from` or does not exist (nothing changes)
 */
export async function transitionTransfer(
  db: StoreDb,
  id: number,
  from: TransferStatus,
  to: TransferStatus,
  opts: TransitionOptions,
): Promise<void> {
  if (!isAllowedTransition(from, to)) {
    const allowed = ALLOWED_TRANSITIONS[from]?.join(', ') || 'nothing (final)';
    throw new StoreTransitionError(
      'STORE_TRANSITION_ILLEGAL',
      'transfers',
      id,
      from,
      to,
      `transfer ${id}: ${from} → ${to} is not an allowed transition; from ${from} only ${allowed}`,
    );
  }
  const nowMs = checkMs(opts.nowMs, 'nowMs');
  await db.transaction(async () => {
    const r = await db.run(
      `UPDATE transfers SET status = ?, updated_at_ms = ?,
         relay_status = COALESCE(?, relay_status), error = COALESCE(?, error)
       WHERE id = ? AND status = ?`,
      to,
      nowMs,
      opts.relayStatus ?? null,
      opts.error ?? null,
      id,
      from,
    );
    if (r.changes !== 1) {
      const current = await db.get<{ status: string }>('SELECT status FROM transfers WHERE id = ?', id); // one column
      throw new StoreTransitionError(
        'STORE_TRANSITION_CONFLICT',
        'transfers',
        id,
        from,
        to,
        `transfer ${id} is ${current ? current.status : 'missing'}, not ${from}; ${from} → ${to} not applied (re-read it)`,
      );
    }
    await insertEvent(db, id, from, to, nowMs, opts.detail ?? opts.error ?? null);
  });
}

/**
 * Marks a signed transaction as sent (`signed → sent`).
 *
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when it is not `signed`
 */
export async function markTxSent(db: StoreDb, txId: number, nowMs: number): Promise<void> {
  const r = await db.run(
    "UPDATE transfer_txs SET status = 'sent', sent_at_ms = ? WHERE id = ? AND status = 'signed'",
    checkMs(nowMs, 'nowMs'),
    txId,
  );
  if (r.changes !== 1) throw await txConflict(db, txId, 'signed', 'sent');
}

/**
 * Records the receipt of a transaction (`signed|sent → confirmed|reverted`). `signed` is accepted because a
 * restart may find the receipt of a transaction whose send was never recorded.
 *
 * @param blockNumber block of the receipt
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when it already has a receipt or does not exist
 */
export async function markTxConfirmed(
  db: StoreDb,
  txId: number,
  c: { status: 'confirmed' | 'reverted'; blockNumber: bigint | number; blockHash?: string | null; nowMs: number },
): Promise<void> {
  const block = amountToText(BigInt(c.blockNumber), 'blockNumber');
  const r = await db.run(
    `UPDATE transfer_txs SET status = ?, block_number = ?, block_hash = ?, confirmed_at_ms = ?
     WHERE id = ? AND status IN ('signed', 'sent')`,
    c.status,
    block,
    c.blockHash ?? null,
    checkMs(c.nowMs, 'nowMs'),
    txId,
  );
  if (r.changes !== 1) throw await txConflict(db, txId, 'signed|sent', c.status);
}

/**
 * Takes back the receipt of a transaction a reorg removed from the chain (`confirmed|reverted → sent`, block
 * cleared): it is unconfirmed again and reconciliation looks it up, or sends it again, like any sent one.
 *
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when it has no receipt or does not exist
 */
export async function markTxReorged(db: StoreDb, txId: number): Promise<void> {
  const r = await db.run(
    `UPDATE transfer_txs SET status = 'sent', block_number = NULL, block_hash = NULL, confirmed_at_ms = NULL, final_at_ms = NULL
     WHERE id = ? AND status IN ('confirmed', 'reverted')`,
    txId,
  );
  if (r.changes !== 1) throw await txConflict(db, txId, 'confirmed|reverted', 'sent');
}

/**
 * Marks a mined transaction final: a re-check found it in its recorded block, `chains.<name>.confirmations`
 * deep. It is never re-checked for reorgs again.
 *
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when it has no receipt or does not exist
 */
export async function markTxFinal(db: StoreDb, txId: number, nowMs: number): Promise<void> {
  const r = await db.run(
    "UPDATE transfer_txs SET final_at_ms = ? WHERE id = ? AND status IN ('confirmed', 'reverted') AND final_at_ms IS NULL",
    checkMs(nowMs, 'nowMs'),
    txId,
  );
  if (r.changes !== 1) throw await txConflict(db, txId, 'confirmed|reverted (not final)', 'final');
}

/**
 * Stores the latest Relay status of a transfer (docs/relay-contract.md "GET /intents/status/v3": `status`, `txHashes`)
 * without changing the transfer's own status (use {@link transitionTransfer} for that).
 *
 * @param outTxHashes destination transaction hashes; replaces the stored list when given
 * @throws StoreNotFoundError when the transfer does not exist
 */
export async function setRelayStatus(
  db: StoreDb,
  id: number,
  relayStatus: string,
  opts: { nowMs: number; outTxHashes?: readonly string[] },
): Promise<void> {
  const r = await db.run(
    `UPDATE transfers SET relay_status = ?, updated_at_ms = ?,
       out_tx_hashes_json = COALESCE(?, out_tx_hashes_json)
     WHERE id = ?`,
    relayStatus,
    checkMs(opts.nowMs, 'nowMs'),
    opts.outTxHashes === undefined ? null : toJsonText(opts.outTxHashes, 'outTxHashes'),
    id,
  );
  if (r.changes !== 1) throw new StoreNotFoundError('transfers', id);
}

/**
 * Runs `fn` in one transaction on a transfer that must be in flight, with its current status (row locked on
 * PostgreSQL).
 *
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) naming `what` when the transfer is missing or final
 */
async function onInFlight<T>(db: StoreDb, id: number, what: string, fn: (status: TransferStatus) => Promise<T>): Promise<T> {
  return db.transaction(async () => {
    const row = await db.get<{ status: TransferStatus }>(`SELECT status FROM transfers WHERE id = ?${db.forUpdate}`, id); // one column
    if (!row || !IN_FLIGHT_STATUSES.includes(row.status)) {
      throw new StoreTransitionError(
        'STORE_TRANSITION_CONFLICT',
        'transfers',
        id,
        'in flight',
        row?.status ?? 'missing',
        `transfer ${id} is ${row?.status ?? 'missing'}; only a transfer in flight can ${what}`,
      );
    }
    return fn(row.status);
  });
}

/**
 * Flags an in-flight transfer as stalled (first time only) and records why in its history, as an event that
 * leaves the status unchanged. The transfer stays in flight and credited: a stalled transfer is never dropped.
 * With `noteAgain`, a transfer already flagged gets the event too (a new reason to look at it).
 *
 * @returns true when this call flagged it, false when it was already flagged
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when the transfer is not in flight
 */
export async function markTransferStalled(
  db: StoreDb,
  id: number,
  opts: { nowMs: number; detail: string; noteAgain?: boolean },
): Promise<boolean> {
  const nowMs = checkMs(opts.nowMs, 'nowMs');
  return onInFlight(db, id, 'be flagged stalled', async (status) => {
    const r = await db.run('UPDATE transfers SET stalled_at_ms = ? WHERE id = ? AND stalled_at_ms IS NULL', nowMs, id);
    if (r.changes === 0 && !opts.noteAgain) return false;
    await insertEvent(db, id, status, status, nowMs, `stalled: ${opts.detail}`);
    return r.changes > 0;
  });
}

/**
 * Records the first proof that no deposit for the transfer's order exists (`block`: the head the depository's
 * events were read up to), with a history event; a later proof must confirm it before the transfer is failed.
 *
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when the transfer is not in flight or already has one
 */
export async function recordAbsenceProof(db: StoreDb, id: number, opts: { block: bigint; nowMs: number; detail: string }): Promise<void> {
  const nowMs = checkMs(opts.nowMs, 'nowMs');
  await onInFlight(db, id, 'record a proof of absence', async (status) => {
    const r = await db.run(
      'UPDATE transfers SET absence_block = ?, absence_at_ms = ? WHERE id = ? AND absence_block IS NULL',
      amountToText(opts.block, 'block'),
      nowMs,
      id,
    );
    if (r.changes !== 1) {
      throw new StoreTransitionError(
        'STORE_TRANSITION_CONFLICT',
        'transfers',
        id,
        'no proof of absence',
        'proof of absence',
        `transfer ${id} already has a proof of absence; a second one confirms it, it does not replace it`,
      );
    }
    await insertEvent(db, id, status, status, nowMs, opts.detail);
  });
}

/**
 * Adopts the request id the Relay service files our deposit under when it differs from the quote's (found by
 * the deposit's hash in GET /requests/v3), for a `deposited` transfer; recorded in its history.
 *
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when the transfer is not `deposited`; the engine's
 *   unique-constraint error when another transfer already carries that request id
 */
export async function adoptRequestId(db: StoreDb, id: number, requestId: string, opts: { nowMs: number; detail: string }): Promise<void> {
  const nowMs = checkMs(opts.nowMs, 'nowMs');
  await db.transaction(async () => {
    const r = await db.run(
      "UPDATE transfers SET request_id = ?, updated_at_ms = ? WHERE id = ? AND status = 'deposited'",
      requestId,
      nowMs,
      id,
    );
    if (r.changes !== 1) {
      throw new StoreTransitionError(
        'STORE_TRANSITION_CONFLICT',
        'transfers',
        id,
        'deposited',
        'deposited',
        `transfer ${id} is not deposited; its request id is left as it is`,
      );
    }
    await insertEvent(db, id, 'deposited', 'deposited', nowMs, opts.detail);
  });
}

/** Transfers still moving (`prepared`, `broadcast`, `deposited`), oldest first, with transactions and events. */
export async function listInFlightTransfers(db: StoreDb): Promise<TransferRow[]> {
  return queryTransfers(db, `SELECT * FROM transfers WHERE status IN ${inList(IN_FLIGHT_STATUSES)} ORDER BY id`, ...IN_FLIGHT_STATUSES);
}

/**
 * Transfers still moving (`prepared`, `broadcast`, `deposited`) whose origin is `originChain` (config name),
 * oldest first, with transactions and events.
 */
export async function listInFlightTransfersFrom(db: StoreDb, originChain: string): Promise<TransferRow[]> {
  return queryTransfers(
    db,
    `SELECT * FROM transfers WHERE status IN ${inList(IN_FLIGHT_STATUSES)} AND origin_chain = ? ORDER BY id`,
    ...IN_FLIGHT_STATUSES,
    originChain,
  );
}

/**
 * The most recent transfers, newest first, with transactions and events.
 *
 * @param limit maximum number of transfers (non-negative integer)
 */
export async function listRecentTransfers(db: StoreDb, limit: number): Promise<TransferRow[]> {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  return queryTransfers(db, 'SELECT * FROM transfers ORDER BY id DESC LIMIT ?', limit);
}

/**
 * The most recent transfers of one origin wallet on one origin chain (config name; `user` as recorded), newest
 * first, with transactions and events, whatever their status.
 *
 * @param limit maximum number of transfers (non-negative integer)
 */
export async function listRecentTransfersOf(db: StoreDb, originChain: string, user: string, limit: number): Promise<TransferRow[]> {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  return queryTransfers(
    db,
    'SELECT * FROM transfers WHERE origin_chain = ? AND user_address = ? ORDER BY id DESC LIMIT ?',
    originChain,
    user,
    limit,
  );
}

/** One transfer with its transactions and events, or undefined when there is none with that id. */
export async function getTransfer(db: StoreDb, id: number): Promise<TransferRow | undefined> {
  return (await queryTransfers(db, 'SELECT * FROM transfers WHERE id = ?', id))[0];
}

async function insertTx(db: StoreDb, transferId: number, tx: NewTransferTx, nowMs: number): Promise<number> {
  const row = await db.get<{ id: number }>(
    `INSERT INTO transfer_txs (transfer_id, step_id, item_index, chain_id, request_json, tx_hash, raw_tx, status, signed_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'signed', ?) RETURNING id`,
    transferId,
    tx.stepId,
    tx.itemIndex,
    tx.chainId,
    toJsonText(tx.request, 'request'),
    tx.txHash,
    tx.rawTx,
    nowMs,
  );
  return (row as { id: number }).id; // RETURNING always yields the inserted row
}

async function insertEvent(
  db: StoreDb,
  transferId: number,
  from: TransferStatus | null,
  to: TransferStatus,
  atMs: number,
  detail: string | null,
): Promise<void> {
  await db.run(
    'INSERT INTO transfer_events (transfer_id, from_status, to_status, at_ms, detail) VALUES (?, ?, ?, ?, ?)',
    transferId,
    from,
    to,
    atMs,
    detail,
  );
}

async function txConflict(db: StoreDb, txId: number, from: string, to: string): Promise<StoreTransitionError> {
  const row = await db.get<{ status: string }>('SELECT status FROM transfer_txs WHERE id = ?', txId); // one column
  return new StoreTransitionError(
    'STORE_TRANSITION_CONFLICT',
    'transfer_txs',
    txId,
    from,
    to,
    `transaction ${txId} is ${row ? row.status : 'missing'}, not ${from}; ${to} not recorded (re-read it)`,
  );
}
