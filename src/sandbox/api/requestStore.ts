/**
 * In-memory request records of the sandbox: one per served quote (from `waiting`), plus one per deposit that
 * did not pay a waiting quote exactly (its own request id; the quote it named is left untouched). Status
 * transitions only move forward (spec "States and transitions"): waiting → depositing → pending → delayed →
 * submitted → success | failure | refund; terminal states never change. `delayed` is the live API's status for
 * a fill running late (DESIGN.md "Status enum"); the sandbox enters it only under the `delayed` fault.
 */
import type { Address, Hex } from 'viem';
import type { KnownRequestStatus } from '../../relay/schemas.ts';
import type { FailReason, RefundFailReason } from '../failReasons.ts';
import type { QuotedOrder } from '../quote/buildQuote.ts';

/** Request statuses the sandbox reports on GET /intents/status/v3: the spec's seven plus `delayed`. */
export type SandboxRequestStatus = KnownRequestStatus;

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

/**
 * A transaction the solver sent for a request (a fill on the destination, or a refund on the origin chain).
 * `block`, `timestampSec`, `feeWei` and `status` are null until its receipt is read.
 */
export interface OutTx {
  txHash: Hex;
  chainId: number;
  kind: 'fill' | 'refund';
  block: number | null;
  timestampSec: number | null;
  /** Gas used × effective gas price, wei. */
  feeWei: bigint | null;
  status: 'success' | 'failure' | null;
}

/** A tracked request. Times are unix milliseconds. */
export interface RequestRecord {
  requestId: Hex;
  /** The quoted order, or null for a deposit that matched no quote. */
  order: QuotedOrder | null;
  status: SandboxRequestStatus;
  user: Address;
  recipient: Address;
  originChainId: number;
  destinationChainId: number;
  inTxHashes: Hex[];
  txHashes: Hex[];
  deposit: ObservedDeposit | null;
  /** Transactions the solver sent (fill or refund), with their receipts once mined. */
  outTxs: OutTx[];
  /** `N/A` unless failed or refunded, then the published reason or `UNKNOWN` (spec "Events" failReason). */
  failReason: FailReason;
  /** Why a refund leg failed; `N/A` by default (spec "Events" refundFailReason). */
  refundFailReason: RefundFailReason;
  /** Output actually delivered, destination base units (set on success). */
  filledAmount: bigint | null;
  createdAtMs: number;
  updatedAtMs: number;
}

const RANK: Readonly<Record<SandboxRequestStatus, number>> = {
  waiting: 0,
  depositing: 1,
  pending: 2,
  delayed: 3,
  submitted: 4,
  success: 5,
  failure: 5,
  refund: 5,
};

/** Fields a transition may set along with the status. */
export type RecordPatch = Partial<
  Pick<RequestRecord, 'inTxHashes' | 'txHashes' | 'deposit' | 'outTxs' | 'failReason' | 'refundFailReason' | 'filledAmount'>
>;

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
      outTxs: [],
      failReason: 'N/A',
      refundFailReason: 'N/A',
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
      outTxs: [],
      failReason: 'N/A',
      refundFailReason: 'N/A',
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
  advance(record: RequestRecord, to: SandboxRequestStatus, patch: RecordPatch, nowMs: number): boolean {
    if (RANK[to] <= RANK[record.status]) return false;
    Object.assign(record, patch, { status: to, updatedAtMs: Math.max(nowMs, record.updatedAtMs) });
    for (const listener of this.#listeners) listener(record);
    return true;
  }
}
