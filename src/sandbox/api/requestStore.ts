/**
 * In-memory request records of the sandbox: one per served quote (from `waiting`), plus one per deposit that
 * did not pay a waiting quote exactly (its own request id; the quote it named is left untouched). Status transitions only move forward (spec "States and transitions"):
 * waiting → depositing → pending → submitted → success | failure | refund; terminal states never change.
 */
import type { Address, Hex } from 'viem';
import type { KnownRequestStatus as RequestStatus } from '../../relay/schemas.ts';
import type { QuotedOrder } from '../quote/buildQuote.ts';

/** A depository deposit event (its fields plus where it was found). Amount in base units. */
export interface DepositEvent {
  chainId: number;
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  /** Credited depositor (`from` of the event). */
  from: Address;
  /** Token address, or the zero address for a native deposit. */
  currency: Address;
  amount: bigint;
  /** The deposit's order id (`id` of the event). */
  id: Hex;
}

/** A deposit event with the timestamp of the block that holds it (unix seconds; judges order expiry). */
export interface ObservedDeposit extends DepositEvent {
  blockTimestamp: number;
}

/** A tracked request. Times are unix milliseconds. */
export interface RequestRecord {
  requestId: Hex;
  /** The quoted order, or null for a deposit that matched no quote. */
  order: QuotedOrder | null;
  status: RequestStatus;
  user: Address;
  recipient: Address;
  originChainId: number;
  destinationChainId: number;
  inTxHashes: Hex[];
  txHashes: Hex[];
  deposit: ObservedDeposit | null;
  /** `N/A` unless failed or refunded (spec "Webhooks" failReason). */
  failReason: string;
  /** Output actually delivered, destination base units (set on success). */
  filledAmount: bigint | null;
  createdAtMs: number;
  updatedAtMs: number;
}

const RANK: Readonly<Record<RequestStatus, number>> = {
  waiting: 0,
  depositing: 1,
  pending: 2,
  delayed: 3,
  submitted: 3,
  success: 4,
  failure: 4,
  refund: 4,
};

/** Fields a transition may set along with the status. */
export type RecordPatch = Partial<Pick<RequestRecord, 'inTxHashes' | 'txHashes' | 'deposit' | 'failReason' | 'filledAmount'>>;

/** Stores request records and enforces forward-only status changes. Not persistent. */
export class RequestStore {
  readonly #byRequestId = new Map<string, RequestRecord>();
  readonly #byOrderId = new Map<string, RequestRecord>();
  readonly #listeners: ((r: RequestRecord) => void)[] = [];

  /** Registers a listener called after every status change (e.g. for webhooks or logs). */
  onChange(listener: (r: RequestRecord) => void): void {
    this.#listeners.push(listener);
  }

  /** Records a served quote as a `waiting` request. */
  addQuote(order: QuotedOrder, nowMs: number): RequestRecord {
    const record: RequestRecord = {
      requestId: order.requestId,
      order,
      status: 'waiting',
      user: order.user,
      recipient: order.recipient,
      originChainId: order.originChainId,
      destinationChainId: order.destinationChainId,
      inTxHashes: [],
      txHashes: [],
      deposit: null,
      failReason: 'N/A',
      filledAmount: null,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
    };
    this.#byRequestId.set(record.requestId.toLowerCase(), record);
    this.#byOrderId.set(order.orderId.toLowerCase(), record);
    return record;
  }

  /**
   * Records a deposit that pays no waiting quote exactly (unknown order id, a field that differs from the
   * order, an expired order, or an order already paid) as its own `pending` request on the deposit's chain.
   * It is not indexed by order id, so the quote the deposit named keeps waiting for its genuine deposit.
   */
  addUnmatchedDeposit(requestId: Hex, deposit: ObservedDeposit, nowMs: number): RequestRecord {
    const record: RequestRecord = {
      requestId,
      order: null,
      status: 'pending',
      user: deposit.from,
      recipient: deposit.from,
      originChainId: deposit.chainId,
      destinationChainId: deposit.chainId,
      inTxHashes: [deposit.txHash],
      txHashes: [],
      deposit,
      failReason: 'N/A',
      filledAmount: null,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
    };
    this.#byRequestId.set(requestId.toLowerCase(), record);
    return record;
  }

  /** Looks up by request id (case-insensitive). */
  byRequestId(requestId: string): RequestRecord | undefined {
    return this.#byRequestId.get(requestId.toLowerCase());
  }

  /** Looks up the quote whose order id is `orderId` (case-insensitive). */
  byOrderId(orderId: string): RequestRecord | undefined {
    return this.#byOrderId.get(orderId.toLowerCase());
  }

  /** Every record whose user is `user` (case-insensitive), newest first. */
  byUser(user: string): RequestRecord[] {
    const u = user.toLowerCase();
    return this.all().filter((r) => r.user.toLowerCase() === u);
  }

  /** Every record, newest first. */
  all(): RequestRecord[] {
    return [...this.#byRequestId.values()].sort((a, b) => b.createdAtMs - a.createdAtMs);
  }

  /**
   * Moves a record to a later status and applies `patch`.
   *
   * @returns true when the record moved; false (nothing changed) when `to` is not after the current status
   */
  advance(record: RequestRecord, to: RequestStatus, patch: RecordPatch, nowMs: number): boolean {
    if (RANK[to] <= RANK[record.status]) return false;
    Object.assign(record, patch, { status: to, updatedAtMs: Math.max(nowMs, record.updatedAtMs) });
    for (const listener of this.#listeners) listener(record);
    return true;
  }
}
