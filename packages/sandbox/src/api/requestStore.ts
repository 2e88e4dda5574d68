/**
 * In-memory request records of the sandbox: one per served quote (from `waiting`), plus one per deposit that
 * did not pay a waiting quote exactly (its own request id; the quote it named is left untouched). Status
 * transitions only move forward (docs/relay-contract.md "States and transitions"): waiting → depositing → pending → delayed
 * → submitted → success | failure | refund; terminal states never change. `delayed` is the live API's status for
 * a fill running late (docs/design.md "Status enum"); the sandbox enters it only under the `delayed` fault.
 */
import type { Hex } from 'viem';
import type { SandboxRequestStatus } from './wire/requestStatus.ts';
import type { FailReason, RefundFailReason } from '../failReasons.ts';
import type { QuotedOrder } from '../quote/buildQuote.ts';

/** Request statuses the sandbox reports on GET /intents/status/v3 (docs/relay-contract.md "Request status"). */
export type { SandboxRequestStatus };

/**
 * A depository deposit (its fields plus where it was found), on any VM. Amount in base units. Text fields in
 * the chain's form: EVM 0x hex (lower-case addresses), Solana base58 (signature, addresses), Bitcoin hex txid
 * and bech32 addresses.
 */
export interface DepositEvent {
  chainId: number;
  /** EVM transaction hash, Solana signature or Bitcoin txid. */
  txHash: string;
  /** EVM log index, Solana instruction index or Bitcoin output index. */
  logIndex: number;
  /** EVM block number, Solana slot or Bitcoin block height (0 while in the mempool). */
  blockNumber: bigint;
  /** Credited depositor (`from` of the event; Solana: the event's depositor; Bitcoin: memo's or first input's). */
  from: string;
  /** Token address or mint, or the VM's native currency identifier. */
  currency: string;
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
  /** EVM transaction hash, Solana signature or Bitcoin txid. */
  txHash: string;
  chainId: number;
  kind: 'fill' | 'refund';
  /** What it pays its recipient, base units of the currency sent (a refund: the deposit, less any fee taken). */
  amount: bigint | null;
  block: number | null;
  timestampSec: number | null;
  /** Network fee paid, native base units (EVM: gas used × effective gas price, wei; lamports; satoshis). */
  feeWei: bigint | null;
  status: 'success' | 'failure' | null;
}

/**
 * Who took a deposit out of the solver's reach: `solver` (it started filling, refunding or failing it) or
 * `withdrawal` (attested for withdrawal: hub balance from then on, never filled; docs/relay-contract.md "Withdrawal
 * endpoints").
 */
export type DepositClaim = 'solver' | 'withdrawal';

/** A tracked request. Times are unix milliseconds. */
export interface RequestRecord {
  requestId: Hex;
  /** The quoted order, or null for a deposit that matched no quote. */
  order: QuotedOrder | null;
  status: SandboxRequestStatus;
  /** Origin wallet, in its chain's form. */
  user: string;
  /** Destination wallet, in its chain's form. */
  recipient: string;
  originChainId: number;
  destinationChainId: number;
  inTxHashes: string[];
  txHashes: string[];
  deposit: ObservedDeposit | null;
  /** Transactions the solver sent (fill or refund), with their receipts once mined. */
  outTxs: OutTx[];
  /**
   * `N/A` unless failed or refunded, then the published reason or `UNKNOWN` (docs/relay-contract.md "Events" failReason).
   */
  failReason: FailReason;
  /** Why a refund leg failed; `N/A` by default (docs/relay-contract.md "Events" refundFailReason). */
  refundFailReason: RefundFailReason;
  /** Output actually delivered, destination base units (set on success). */
  filledAmount: bigint | null;
  /** When the deposit was first seen (null before); starts the `unfilledWithdrawableAfterMs` fault's clock. */
  depositSeenAtMs: number | null;
  /** Who took the deposit (see {@link DepositClaim}); null while nobody has. */
  depositClaim: DepositClaim | null;
  createdAtMs: number;
  updatedAtMs: number;
}

const HEX_ADDRESS_RE = /^0x[0-9a-fA-F]+$/;

/** Same wallet: 0x hex case-insensitively, anything else exactly. */
export function sameWallet(a: string, b: string): boolean {
  return a === b || (HEX_ADDRESS_RE.test(a) && HEX_ADDRESS_RE.test(b) && a.toLowerCase() === b.toLowerCase());
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
      depositSeenAtMs: null,
      depositClaim: null,
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
      depositSeenAtMs: nowMs,
      depositClaim: null,
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

  /**
   * Every record whose user is `user`, newest first: 0x hex addresses compare case-insensitively, Solana and
   * Bitcoin addresses exactly (they are case-sensitive).
   */
  byUser(user: string): RequestRecord[] {
    return this.all().filter((r) => sameWallet(r.user, user));
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
    if (patch.deposit && record.depositSeenAtMs === null) record.depositSeenAtMs = nowMs;
    Object.assign(record, patch, { status: to, updatedAtMs: Math.max(nowMs, record.updatedAtMs) });
    for (const listener of this.#listeners) listener(record);
    return true;
  }

  /**
   * Claims a record's deposit for `by` (not a status change: listeners are not called). A withdrawal claim
   * always takes it unless one already did (the caller checks the deposit is withdrawable first); the solver's
   * claim fails once the deposit was attested for withdrawal.
   *
   * @returns true when `by` now holds the deposit and did not before (solver: also when it already held it)
   */
  claimDeposit(record: RequestRecord, by: DepositClaim): boolean {
    if (record.depositClaim === 'withdrawal') return false;
    record.depositClaim = by;
    return true;
  }
}
