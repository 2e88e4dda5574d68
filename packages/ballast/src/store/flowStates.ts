/**
 * The `flow_states` table: the flow estimator's running state (src/planner/flow.ts `FlowState`) per holding, one
 * row per (chain, currency, address) replaced each cycle, so the flow-aware strategy keeps its history between
 * processes (`run --once` from cron) and the table never grows past the number of holdings (docs/design.md
 * "Flow-aware strategy"). Also the store read of the transfers Ballast started since a moment: what it moved
 * itself, which is not flow.
 */
import type { StoreDb } from './db.ts';
import { StoreValueError } from './errors.ts';
import { rowShape } from './rowColumns.ts';
import { textToAmount, checkMs } from './values.ts';

/**
 * The estimator state of one holding. `balance` in base units of the holding (may be negative: an effective
 * balance counts unsettled debits), `rateScaled` base units per second × 10^6 (+ inflow, − outflow).
 */
export interface StoredFlowState {
  chain: string;
  /** As the caller wrote it; callers write normalized values (src/planner/effective.ts `normalizeAddress`). */
  currency: string;
  address: string;
  /** Time of the last observation, Unix ms. */
  atMs: number;
  balance: bigint;
  rateScaled: bigint;
  /** Intervals observed (>= 0). */
  samples: number;
}

/** A `flow_states` row as read by {@link readFlowStates}. */
interface FlowStateDbRow {
  chain: string;
  currency: string;
  address: string;
  at_ms: number;
  balance: string;
  rate_scaled: string;
  samples: number;
}

/** Columns of {@link FlowStateDbRow}: the select list of {@link readFlowStates}. */
export const FLOW_STATE_ROW = rowShape<FlowStateDbRow>({
  name: 'FlowStateDbRow',
  table: 'flow_states',
  allColumns: false,
  columns: { chain: 'text', currency: 'text', address: 'text', at_ms: 'integer', balance: 'text', rate_scaled: 'text', samples: 'integer' },
});

/** Every stored state, in the order they were first written. */
export async function readFlowStates(db: StoreDb): Promise<StoredFlowState[]> {
  const rows = await db.all<FlowStateDbRow>(
    'SELECT chain, currency, address, at_ms, balance, rate_scaled, samples FROM flow_states ORDER BY id',
  );
  return rows.map((r) => ({
    chain: r.chain,
    currency: r.currency,
    address: r.address,
    atMs: Number(r.at_ms),
    balance: signedFromText(r.balance, 'flow_states.balance'),
    rateScaled: signedFromText(r.rate_scaled, 'flow_states.rate_scaled'),
    samples: Number(r.samples),
  }));
}

/**
 * Writes the states (insert, or replace the row of the same holding) in one write-ahead transaction: on
 * PostgreSQL only the leader lease holder writes (docs/ha.md).
 *
 * @throws StoreValueError on a bad time or a negative sample count; NotLeaderError/LeaseLostError (PostgreSQL)
 *   when this process does not hold the leader lease (nothing is written then)
 */
export async function saveFlowStates(db: StoreDb, states: readonly StoredFlowState[]): Promise<void> {
  if (states.length === 0) return;
  for (const [i, s] of states.entries()) {
    checkMs(s.atMs, `flowStates[${i}].atMs`);
    if (!Number.isSafeInteger(s.samples) || s.samples < 0)
      throw new StoreValueError(`flowStates[${i}].samples`, `must be a whole number >= 0, got ${s.samples}`);
  }
  const sql = `INSERT INTO flow_states (chain, currency, address, at_ms, balance, rate_scaled, samples) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (chain, currency, address) DO UPDATE SET
       at_ms = excluded.at_ms, balance = excluded.balance, rate_scaled = excluded.rate_scaled, samples = excluded.samples`;
  await db.writeAhead(async () => {
    for (const s of states) {
      await db.run(sql, s.chain, s.currency, s.address, s.atMs, s.balance.toString(10), s.rateScaled.toString(10), s.samples);
    }
  });
}

/** A transfer Ballast started, as the flow estimator counts it. Amounts in base units. */
export interface OwnTransfer {
  originChain: string;
  originCurrency: string;
  /** The origin wallet's address. */
  originAddress: string;
  destinationChain: string;
  destinationCurrency: string;
  destinationAddress: string;
  /** Origin base units. */
  amountIn: bigint;
  /** Destination base units guaranteed by the quote. */
  minOut: bigint;
  /** Origin base units returned by a refund, when known. */
  refunded: bigint | null;
  /** Transfer status (src/store/transferStatus.ts). */
  status: string;
  createdAtMs: number;
}

/** A `transfers` row as read by {@link listTransfersCreatedSince}. */
interface OwnTransferDbRow {
  origin_chain: string;
  origin_currency: string;
  user_address: string;
  destination_chain: string;
  destination_currency: string;
  recipient: string;
  amount_in: string;
  min_out: string;
  refunded_amount: string | null;
  status: string;
  created_at_ms: number;
}

/** Columns of {@link OwnTransferDbRow}: the select list of {@link listTransfersCreatedSince}. */
export const OWN_TRANSFER_ROW = rowShape<OwnTransferDbRow>({
  name: 'OwnTransferDbRow',
  table: 'transfers',
  allColumns: false,
  columns: {
    origin_chain: 'text',
    origin_currency: 'text',
    user_address: 'text',
    destination_chain: 'text',
    destination_currency: 'text',
    recipient: 'text',
    amount_in: 'text',
    min_out: 'text',
    refunded_amount: 'text?',
    status: 'text',
    created_at_ms: 'integer',
  },
});

/**
 * Transfers created at or after `sinceMs` (any status), oldest first.
 *
 * @throws StoreValueError on a bad time
 */
export async function listTransfersCreatedSince(db: StoreDb, sinceMs: number): Promise<OwnTransfer[]> {
  const rows = await db.all<OwnTransferDbRow>(
    `SELECT origin_chain, origin_currency, user_address, destination_chain, destination_currency, recipient,
            amount_in, min_out, refunded_amount, status, created_at_ms
       FROM transfers WHERE created_at_ms >= ? ORDER BY id`,
    checkMs(sinceMs, 'sinceMs'),
  );
  return rows.map((r) => ({
    originChain: r.origin_chain,
    originCurrency: r.origin_currency,
    originAddress: r.user_address,
    destinationChain: r.destination_chain,
    destinationCurrency: r.destination_currency,
    destinationAddress: r.recipient,
    amountIn: textToAmount(r.amount_in, 'amount_in'),
    minOut: textToAmount(r.min_out, 'min_out'),
    refunded: r.refunded_amount === null ? null : textToAmount(r.refunded_amount, 'refunded_amount'),
    status: r.status,
    createdAtMs: Number(r.created_at_ms),
  }));
}

/** Parses a signed integer TEXT column. @throws StoreValueError when it is not one */
function signedFromText(value: string, field: string): bigint {
  if (!/^-?[0-9]+$/.test(value)) throw new StoreValueError(field, `stored value is not an integer string: ${JSON.stringify(value)}`);
  return BigInt(value);
}
