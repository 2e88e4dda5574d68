/**
 * Withdrawals: the write-ahead record of recovering a deposit the service never filled (docs/relay-contract.md "Withdrawal
 * endpoints"; flow in src/withdraw/). One row per transfer. Every change is a guarded transition (`UPDATE … WHERE
 * id = ? AND state IN (…)`, exactly one row or nothing) recorded as an event of the transfer in the same
 * transaction, so `ballast history` tells the whole story.
 *
 * ```
 * attesting ──► attested ──► executing ──► processing ──► sending ──► executed
 *     │            ▲  │          │  ▲            │ ▲          │
 *     │            │  └──────────┼──┼─► processing (a 409 names the job already in flight)
 *     │            └─────────────┴──┴────────────┴─┴──────────┘ restart: a job expired or failed, a nonce went stale
 *     └──────── any non-final state ──► failed (terminal answer, refused transaction, attempts used up)
 * ```
 * `attesting`: the deposit is about to be attested (idempotent: resumed by attesting again). `attested`: it is
 * hub balance; next is prepare. `executing`: prepare's nonce and amount and our signature are written; the
 * execute call is about to be sent (resumed by sending it again: a 409 then names the job it started).
 * `processing`: the job id is known; its status is polled. `sending`: the verified `ready` transaction is signed
 * and written (hash and raw bytes) before it is broadcast (resumed by looking up its receipt before sending it
 * again). `executed`: the whole deposit is back; the transfer is `withdrawn` (or its failure resolved) in the same
 * transaction. A job that executed for less than what was still open (prepare offered less) adds what it paid to
 * `received_amount` and goes back to `attested` for the remainder ({@link recordPartialReturn}); the transfer keeps
 * its status meanwhile. Each ready transaction of ours that is mined (confirmed or reverted) adds its network fee to
 * `gas_paid` as the withdrawal leaves `sending` (migration 18; NULL once a fee could not be read). Amounts are TEXT
 * base units.
 */
import { inList, type StoreDb } from './db.ts';
import { StoreNotFoundError, StoreTransitionError } from './errors.ts';
import { amountToText, checkMs, toJsonText } from './values.ts';
import { addNetworkFee, settleJob } from './withdrawalAmounts.ts';
import { queryWithdrawals, type WithdrawalFields, type WithdrawalRow, type WithdrawalState } from './withdrawalRows.ts';

export { FINAL_WITHDRAWAL_STATES, WITHDRAWAL_STATES, type WithdrawalRow, type WithdrawalState } from './withdrawalRows.ts';
export { openRemainder, remainingToWithdraw } from './withdrawalAmounts.ts';

/**
 * The network fee of the ready transaction a transition ends with, once mined (confirmed or reverted): native base
 * units as the chain adapter read it, or null when it could not be read (the withdrawal's `gasPaid` becomes unknown).
 * Left out when no transaction of ours was mined (a job the service executed by itself, a transaction that can never
 * land). Added in the same guarded transition that leaves `sending`, so each mined transaction counts once.
 */
export interface ReadyTxFee {
  readyTxFee?: bigint | null;
}

/** A withdrawal about to start (state `attesting`). */
export interface NewWithdrawal extends WithdrawalFields {
  transferId: number;
  requestId: string;
  nowMs: number;
}

/**
 * Writes a withdrawal in state `attesting` and a history event on its transfer, in one transaction.
 *
 * @returns the withdrawal id
 * @throws the engine's constraint error when the transfer already has a withdrawal (UNIQUE) or does not exist
 */
export async function createWithdrawal(db: StoreDb, w: NewWithdrawal): Promise<number> {
  const nowMs = checkMs(w.nowMs, 'nowMs');
  const amount = amountToText(w.amount, 'amount');
  return db.transaction(async () => {
    const row = await db.get<{ id: number }>(
      `INSERT INTO withdrawals (transfer_id, request_id, chain, chain_id, chain_slug, wallet, owner, recipient, currency,
         amount, deposit_tx, state, attempts, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'attesting', 0, ?, ?) RETURNING id`,
      w.transferId,
      w.requestId,
      w.chain,
      w.chainId,
      w.chainSlug,
      w.wallet,
      w.owner,
      w.recipient,
      w.currency,
      amount,
      w.depositTx,
      nowMs,
      nowMs,
    );
    const id = (row as { id: number }).id; // RETURNING always yields the inserted row
    await transferEvent(
      db,
      w.transferId,
      nowMs,
      `withdrawal ${id}: deposit ${w.depositTx} is withdrawable; attesting it to recover ${w.amount} to ${w.recipient}`,
    );
    return id;
  });
}

/** One withdrawal, or undefined. */
export async function getWithdrawal(db: StoreDb, id: number): Promise<WithdrawalRow | undefined> {
  return (await queryWithdrawals(db, 'SELECT * FROM withdrawals WHERE id = ?', id))[0];
}

/** The withdrawal of a transfer, or undefined. */
export async function getWithdrawalOfTransfer(db: StoreDb, transferId: number): Promise<WithdrawalRow | undefined> {
  return (await queryWithdrawals(db, 'SELECT * FROM withdrawals WHERE transfer_id = ?', transferId))[0];
}

/** The withdrawal holding a job id, or undefined. */
export async function getWithdrawalByJob(db: StoreDb, jobId: string): Promise<WithdrawalRow | undefined> {
  return (await queryWithdrawals(db, 'SELECT * FROM withdrawals WHERE job_id = ?', jobId))[0];
}

/** The id of our transfer filed under a Relay request id, or undefined. */
export async function transferIdOfRequest(db: StoreDb, requestId: string): Promise<number | undefined> {
  const row = await db.get<{ id: number }>('SELECT id FROM transfers WHERE request_id = ?', requestId); // one column
  return row?.id;
}

/** Withdrawals not `executed` or `failed`, oldest first. */
export async function listOpenWithdrawals(db: StoreDb): Promise<WithdrawalRow[]> {
  return queryWithdrawals(db, "SELECT * FROM withdrawals WHERE state NOT IN ('executed', 'failed') ORDER BY id");
}

/** The withdrawals of the given transfers (for history), by transfer id. */
export async function withdrawalsOfTransfers(db: StoreDb, transferIds: readonly number[]): Promise<Map<number, WithdrawalRow>> {
  if (transferIds.length === 0) return new Map();
  const rows = await queryWithdrawals(db, `SELECT * FROM withdrawals WHERE transfer_id IN ${inList(transferIds)}`, ...transferIds);
  return new Map(rows.map((r) => [r.transferId, r]));
}

/** Column changes of one guarded transition (column → value; JSON and amounts already converted). */
type Sets = Record<string, string | number | null>;

/** `gas_paid` with the fee of a mined ready transaction added (nothing when there is none). */
function feeSets(current: WithdrawalRow, f: ReadyTxFee): Sets {
  if (f.readyTxFee === undefined) return {};
  const total = addNetworkFee(current.gasPaid, f.readyTxFee);
  return { gas_paid: total === null ? null : amountToText(total, 'gasPaid') };
}

/**
 * Applies `sets` (plus `state = to`, `updated_at_ms`) when the withdrawal is in one of `from`, and records
 * `detail` on its transfer, in one transaction (a write-ahead one when `writeAhead`: the row announces a
 * signature, so on PostgreSQL it is fenced by the leader lease).
 *
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when it is missing or in another state; nothing changes
 */
async function move(
  db: StoreDb,
  id: number,
  from: readonly WithdrawalState[],
  to: WithdrawalState,
  sets: Sets | ((current: WithdrawalRow) => Sets),
  nowMs: number,
  detail: string | ((current: WithdrawalRow) => string),
  writeAhead = false,
): Promise<void> {
  checkMs(nowMs, 'nowMs');
  const work = async () => {
    const current = (await queryWithdrawals(db, `SELECT * FROM withdrawals WHERE id = ?${db.forUpdate}`, id))[0];
    if (!current) throw new StoreNotFoundError('withdrawals', id);
    await guardedUpdate(db, id, from, to, typeof sets === 'function' ? sets(current) : sets, nowMs);
    await transferEvent(db, current.transferId, nowMs, `withdrawal ${id}: ${typeof detail === 'function' ? detail(current) : detail}`);
  };
  await (writeAhead ? db.writeAhead(work) : db.transaction(work));
}

async function guardedUpdate(
  db: StoreDb,
  id: number,
  from: readonly WithdrawalState[],
  to: WithdrawalState,
  sets: Sets,
  nowMs: number,
): Promise<void> {
  const all: Sets = { ...sets, state: to, updated_at_ms: nowMs };
  const columns = Object.keys(all);
  const r = await db.run(
    `UPDATE withdrawals SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE id = ? AND state IN ${inList(from)}`,
    ...columns.map((c) => all[c] as string | number | null),
    id,
    ...from,
  );
  if (r.changes !== 1) {
    const current = await db.get<{ state: string }>('SELECT state FROM withdrawals WHERE id = ?', id); // one column
    throw new StoreTransitionError(
      'STORE_TRANSITION_CONFLICT',
      'withdrawals',
      id,
      from.join('|'),
      to,
      `withdrawal ${id} is ${current?.state ?? 'missing'}, not ${from.join('|')}; ${to} not applied (re-read it)`,
    );
  }
}

/** `attesting → attested`: the deposit is hub balance (attest-deposit answered success). */
export async function markAttested(db: StoreDb, id: number, nowMs: number): Promise<void> {
  await move(db, id, ['attesting'], 'attested', {}, nowMs, 'deposit attested; it is hub balance now');
}

/**
 * `attested → executing`: prepare's nonce and amount and our signature are written before execute is sent; the
 * attempt count goes up by one.
 */
export async function recordSigned(
  db: StoreDb,
  id: number,
  s: { nonce: string; preparedAmount: bigint; additionalData: Record<string, unknown> | null; signature: string; nowMs: number },
): Promise<void> {
  const fixed = {
    nonce: s.nonce,
    prepared_amount: amountToText(s.preparedAmount, 'preparedAmount'),
    additional_json: s.additionalData === null ? null : toJsonText(s.additionalData, 'additionalData'),
    signature: s.signature,
  };
  await move(
    db,
    id,
    ['attested'],
    'executing',
    (current) => ({ ...fixed, attempts: current.attempts + 1 }),
    s.nowMs,
    (current) => `attempt ${current.attempts + 1}: prepared ${s.preparedAmount} with nonce ${s.nonce}, signed; executing`,
    true,
  );
}

/**
 * `executing → processing` (execute answered a job id) or `attested|executing → processing` (a 409 named the
 * job in flight for our deposit, adopted).
 */
export async function recordJob(
  db: StoreDb,
  id: number,
  j: { jobId: string; jobStatus: string; adopted: boolean; nowMs: number },
): Promise<void> {
  const from: WithdrawalState[] = j.adopted ? ['attested', 'executing'] : ['executing'];
  await move(
    db,
    id,
    from,
    'processing',
    { job_id: j.jobId, job_status: j.jobStatus },
    j.nowMs,
    j.adopted
      ? `a job is already in flight for this owner and currency: resuming job ${j.jobId}`
      : `job ${j.jobId} started (${j.jobStatus})`,
  );
}

/** Stores the last status read of the job without changing the state (no history event: polls are frequent). */
export async function setJobStatus(db: StoreDb, id: number, jobStatus: string, nowMs: number): Promise<void> {
  const r = await db.run(
    'UPDATE withdrawals SET job_status = ?, updated_at_ms = ? WHERE id = ? AND job_id IS NOT NULL',
    jobStatus,
    checkMs(nowMs, 'nowMs'),
    id,
  );
  if (r.changes !== 1) throw new StoreNotFoundError('withdrawals', id);
}

/** `processing → sending`: the verified `ready` transaction, signed by the owner, is written before broadcast. */
export async function recordReadyTx(
  db: StoreDb,
  id: number,
  t: { tx: unknown; txHash: string; rawTx: string; nowMs: number },
): Promise<void> {
  await move(
    db,
    id,
    ['processing'],
    'sending',
    { tx_json: toJsonText(t.tx, 'tx'), tx_hash: t.txHash, raw_tx: t.rawTx, tx_status: 'signed', job_status: 'ready' },
    t.nowMs,
    `ready transaction verified and signed as ${t.txHash}; broadcasting`,
    true,
  );
}

/** Records the receipt-less progress of the ready transaction: `signed → sent`, or its receipt (`confirmed|reverted`). */
export async function setReadyTxStatus(db: StoreDb, id: number, status: 'sent' | 'confirmed' | 'reverted', nowMs: number): Promise<void> {
  // A receipt may be recorded again after a restart (or change after a reorg); `sent` only follows `signed`.
  const allowed = status === 'sent' ? ['signed'] : ['signed', 'sent', 'confirmed', 'reverted'];
  const r = await db.run(
    `UPDATE withdrawals SET tx_status = ?, updated_at_ms = ? WHERE id = ? AND state = 'sending' AND tx_status IN ${inList(allowed)}`,
    status,
    checkMs(nowMs, 'nowMs'),
    id,
    ...allowed,
  );
  if (r.changes !== 1) {
    throw new StoreTransitionError(
      'STORE_TRANSITION_CONFLICT',
      'withdrawals',
      id,
      allowed.join('|'),
      status,
      `withdrawal ${id} has no ready transaction in ${allowed.join('|')}; ${status} not recorded (re-read it)`,
    );
  }
}

/**
 * `sending → processing`: the ready transaction reverted or can never land; the job is polled again. A reverted
 * one is remembered (`revertedTx`) so that no other transaction is signed for the same job, and the fee it paid
 * is added to `gas_paid` (`readyTxFee`).
 */
export async function dropReadyTx(
  db: StoreDb,
  id: number,
  d: { why: string; revertedTx?: string; nowMs: number } & ReadyTxFee,
): Promise<void> {
  const sets: Sets = { tx_json: null, tx_hash: null, raw_tx: null, tx_status: null, reason: d.why };
  if (d.revertedTx !== undefined) sets.reverted_tx = d.revertedTx;
  await move(
    db,
    id,
    ['sending'],
    'processing',
    (current) => ({ ...sets, ...feeSets(current, d) }),
    d.nowMs,
    `${d.why}; polling the job again`,
  );
}

/**
 * Back to `attested` for a new attempt from prepare (a job expired or failed, a nonce went stale): nonce,
 * signature, job and transaction are cleared, the reason kept.
 */
export async function restartWithdrawal(
  db: StoreDb,
  id: number,
  r: { from: readonly WithdrawalState[]; reason: string; nowMs: number },
): Promise<void> {
  await move(
    db,
    id,
    r.from,
    'attested',
    {
      nonce: null,
      prepared_amount: null,
      additional_json: null,
      signature: null,
      job_id: null,
      job_status: null,
      tx_json: null,
      tx_hash: null,
      raw_tx: null,
      tx_status: null,
      reverted_tx: null,
      reason: r.reason,
    },
    r.nowMs,
    `${r.reason}; starting again from prepare`,
  );
}

/**
 * `processing|sending → attested`: the job executed but paid less than what was still open of the deposit. What it
 * paid is added to `received_amount`, the job's fields are cleared, the attempt count starts again (the job made
 * progress) and the remainder is withdrawn by a new attempt from prepare. The transfer keeps its status.
 *
 * @param p.detail what proves the job paid (job id, transaction); `p.readyTxFee` the fee of our mined ready transaction
 * @returns what came back so far and what is still open, base units
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when the withdrawal is in another state, or when the
 *   job would close the deposit (use {@link completeWithdrawal}); nothing changes
 */
export async function recordPartialReturn(
  db: StoreDb,
  id: number,
  p: { detail: string; nowMs: number } & ReadyTxFee,
): Promise<{ received: bigint; remainder: bigint }> {
  let settled = { received: 0n, remainder: 0n };
  await move(
    db,
    id,
    ['processing', 'sending'],
    'attested',
    (current) => {
      settled = settleJob(current.amount, current.receivedAmount, current.preparedAmount);
      if (settled.remainder === 0n) {
        throw new StoreTransitionError(
          'STORE_TRANSITION_CONFLICT',
          'withdrawals',
          id,
          current.state,
          'attested',
          `withdrawal ${id}: the job closes the deposit (${settled.received} of ${current.amount} back); complete it instead`,
        );
      }
      return {
        ...feeSets(current, p),
        received_amount: amountToText(settled.received, 'received'),
        attempts: 0,
        reason: `short return: ${settled.remainder} of ${current.amount} still open`,
        nonce: null,
        prepared_amount: null,
        additional_json: null,
        signature: null,
        job_id: null,
        job_status: null,
        tx_json: null,
        tx_hash: null,
        raw_tx: null,
        tx_status: null,
        reverted_tx: null,
      };
    },
    p.nowMs,
    (current) =>
      `${p.detail} paid ${current.preparedAmount} of the deposit's ${current.amount}: ${settled.received} back, ${settled.remainder} still open in the hub; withdrawing the remainder from prepare`,
  );
  return settled;
}

/** Withdrawals that brought part of their deposit back but not all of it (any state but `executed`), oldest first. */
export async function listOpenRemainders(db: StoreDb): Promise<WithdrawalRow[]> {
  return queryWithdrawals(db, "SELECT * FROM withdrawals WHERE state <> 'executed' AND received_amount <> '0' ORDER BY id");
}

/** Any non-final state → `failed` with its reason (terminal until an operator reopens it). */
export async function failWithdrawal(db: StoreDb, id: number, r: { reason: string; nowMs: number }): Promise<void> {
  await move(
    db,
    id,
    ['attesting', 'attested', 'executing', 'processing', 'sending'],
    'failed',
    { reason: r.reason, finished_at_ms: r.nowMs },
    r.nowMs,
    `gave up: ${r.reason}`,
  );
}

/**
 * `failed → attesting` with the attempt count reset: an operator asked again (`ballast withdraw --request`).
 * Attesting is idempotent, so a deposit already attested is simply attested again.
 */
export async function reopenWithdrawal(
  db: StoreDb,
  id: number,
  nowMs: number,
  fields?: Omit<NewWithdrawal, 'transferId' | 'requestId' | 'nowMs'>,
): Promise<void> {
  const described: Sets = fields
    ? {
        chain: fields.chain,
        chain_id: fields.chainId,
        chain_slug: fields.chainSlug,
        wallet: fields.wallet,
        owner: fields.owner,
        recipient: fields.recipient,
        currency: fields.currency,
        amount: amountToText(fields.amount, 'amount'),
        deposit_tx: fields.depositTx,
      }
    : {};
  await move(
    db,
    id,
    ['failed'],
    'attesting',
    {
      ...described,
      attempts: 0,
      finished_at_ms: null,
      nonce: null,
      prepared_amount: null,
      additional_json: null,
      signature: null,
      job_id: null,
      job_status: null,
      tx_json: null,
      tx_hash: null,
      raw_tx: null,
      tx_status: null,
      reverted_tx: null,
    },
    nowMs,
    'reopened by the operator',
  );
}

/**
 * Records a withdrawal refused before anything was asked of the service (an owner VM that cannot withdraw, a
 * request record that does not describe our deposit): state `failed` with the reason, so later passes do not
 * ask again; an operator can ask again with `ballast withdraw --request`.
 *
 * @returns the withdrawal id
 */
export async function createRefusedWithdrawal(db: StoreDb, w: NewWithdrawal & { reason: string }): Promise<number> {
  const nowMs = checkMs(w.nowMs, 'nowMs');
  const amount = amountToText(w.amount, 'amount');
  return db.transaction(async () => {
    const row = await db.get<{ id: number }>(
      `INSERT INTO withdrawals (transfer_id, request_id, chain, chain_id, chain_slug, wallet, owner, recipient, currency,
         amount, deposit_tx, state, attempts, reason, created_at_ms, updated_at_ms, finished_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'failed', 0, ?, ?, ?, ?) RETURNING id`,
      w.transferId,
      w.requestId,
      w.chain,
      w.chainId,
      w.chainSlug,
      w.wallet,
      w.owner,
      w.recipient,
      w.currency,
      amount,
      w.depositTx,
      w.reason,
      nowMs,
      nowMs,
      nowMs,
    );
    const id = (row as { id: number }).id; // RETURNING always yields the inserted row
    await transferEvent(db, w.transferId, nowMs, `withdrawal ${id} refused: ${w.reason}`);
    return id;
  });
}

/** What completing a withdrawal did to its transfer. */
export type TransferOutcome = 'withdrawn' | 'failure_resolved' | 'untouched';

/**
 * `processing|sending → executed`, and in the same transaction the transfer: `deposited → withdrawn`, or an
 * unresolved `failure` resolved as `withdrawn` (its route pause ends). A transfer in any other status is left
 * as it is (and the returned outcome says so). `received_amount` becomes the total returned, which covers the
 * deposit: a job that paid less is recorded by {@link recordPartialReturn} instead.
 *
 * @param detail what proves the funds are back (job, transaction); `readyTxFee` the fee of our mined ready transaction
 * @throws StoreTransitionError (`STORE_TRANSITION_CONFLICT`) when the withdrawal is not `processing|sending`, or
 *   when its current job leaves part of the deposit open; nothing changes
 */
export async function completeWithdrawal(
  db: StoreDb,
  id: number,
  c: { detail: string; nowMs: number } & ReadyTxFee,
): Promise<TransferOutcome> {
  const nowMs = checkMs(c.nowMs, 'nowMs');
  return db.transaction(async (): Promise<TransferOutcome> => {
    const before = (await queryWithdrawals(db, `SELECT * FROM withdrawals WHERE id = ?${db.forUpdate}`, id))[0];
    if (!before) throw new StoreNotFoundError('withdrawals', id);
    const settled = settleJob(before.amount, before.receivedAmount, before.preparedAmount);
    if (settled.remainder > 0n) {
      throw new StoreTransitionError(
        'STORE_TRANSITION_CONFLICT',
        'withdrawals',
        id,
        before.state,
        'executed',
        `withdrawal ${id}: only ${settled.received} of ${before.amount} is back, ${settled.remainder} still open; record the short return instead`,
      );
    }
    await guardedUpdate(
      db,
      id,
      ['processing', 'sending'],
      'executed',
      {
        ...feeSets(before, c),
        finished_at_ms: nowMs,
        job_status: 'executed',
        reason: null,
        received_amount: amountToText(settled.received, 'received'),
      },
      nowMs,
    );
    const w = (await getWithdrawal(db, id))!; // updated just above
    const note = `withdrawn: ${c.detail}`;
    const moved = await db.run(
      "UPDATE transfers SET status = 'withdrawn', updated_at_ms = ?, resolution = ? WHERE id = ? AND status = 'deposited'",
      nowMs,
      note,
      w.transferId,
    );
    if (moved.changes === 1) {
      await db.run(
        'INSERT INTO transfer_events (transfer_id, from_status, to_status, at_ms, detail) VALUES (?, ?, ?, ?, ?)',
        w.transferId,
        'deposited',
        'withdrawn',
        nowMs,
        `withdrawal ${id}: ${note}`,
      );
      return 'withdrawn';
    }
    const resolved = await db.run(
      "UPDATE transfers SET resolved_at_ms = ?, resolution = ?, updated_at_ms = ? WHERE id = ? AND status = 'failure' AND resolved_at_ms IS NULL",
      nowMs,
      note,
      nowMs,
      w.transferId,
    );
    if (resolved.changes === 1) {
      await transferEvent(db, w.transferId, nowMs, `withdrawal ${id}: failure resolved, ${note}`);
      return 'failure_resolved';
    }
    await transferEvent(db, w.transferId, nowMs, `withdrawal ${id}: ${note} (the transfer's own status was left as it is)`);
    return 'untouched';
  });
}

/** A history event on a transfer that leaves its status as it is. */
async function transferEvent(db: StoreDb, transferId: number, nowMs: number, detail: string): Promise<void> {
  const row = await db.get<{ status: string }>('SELECT status FROM transfers WHERE id = ?', transferId); // one column
  if (!row) throw new StoreNotFoundError('transfers', transferId);
  await db.run(
    'INSERT INTO transfer_events (transfer_id, from_status, to_status, at_ms, detail) VALUES (?, ?, ?, ?, ?)',
    transferId,
    row.status,
    row.status,
    nowMs,
    detail,
  );
}
