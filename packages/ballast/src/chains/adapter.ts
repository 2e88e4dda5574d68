/**
 * The chain-adapter seam: one implementation per API `vmType` (`src/chains/evm|svm|bvm/`). The cycle, executor
 * and reconciler reach chains only through this interface; only adapters hold chain clients and signers
 * (docs/design.md "Only src/chains/<vm>/ speaks viem, @solana/web3.js or bitcoinjs-lib").
 *
 * Vocabulary shared by every VM:
 * - a *block* is a position in the chain's history as a bigint: EVM block number, Solana slot, Bitcoin height;
 * - a *transaction id* is the hash the chain reports for a signed transaction (EVM tx hash, Solana signature,
 *   Bitcoin txid), known before broadcast so it can be written ahead;
 * - the *raw* form is what `broadcast` sends (hex for EVM and Bitcoin, base64 wire bytes for Solana).
 *
 * An adapter is a set of roles ({@link ChainAdapter}): {@link ChainIdentity}, {@link ChainReader},
 * {@link OriginPolicy}, {@link OriginSender} and {@link AbsenceProver}, which keeps the money-path contract
 * (never double-send). Roles only some VMs play sit in `capabilities` ({@link ChainCapabilities}) and are read
 * with the typed accessors of src/chains/capabilities.ts.
 */
import type { QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import type { DepositLimits, OriginChainFacts } from '../verify/deposit/types.ts';
import type { ChainCapabilities } from './capabilities.ts';

/** API `vmType` values Ballast has adapters for. */
export type AdapterVm = 'evm' | 'svm' | 'bvm';

/** One balance to read: `currency` in the chain's own form (EVM token address, Solana mint, BTC native id). */
export interface Holding {
  address: string;
  currency: string;
}

/** Balances of one chain read at one block: one entry per holding, base units or the error of that read. */
export type BalancesRead =
  { ok: true; atBlock: bigint; amounts: ({ amount: bigint } | { amount: null; error: string })[] } | { ok: false; error: string };

/** A verified quote item, ready to sign: where it sits in the quote and its step `data` as the API sent it. */
export interface PlannedItem {
  stepId: string;
  itemIndex: number;
  data: Record<string, unknown>;
}

/** A transaction signed locally, not yet sent. `request` is a JSON-safe record written with the write-ahead row. */
export interface SignedOriginTx {
  chainId: number;
  txHash: string;
  rawTx: string;
  request: Record<string, string | number | boolean | null>;
}

/** Where a mined transaction is: its block and block hash, and whether it succeeded. */
export interface Mined {
  status: 'confirmed' | 'reverted';
  blockNumber: bigint;
  blockHash: string;
}

/** What `waitForInclusion` saw: our transaction mined, or another one (same sender and nonce) mined instead. */
export type Inclusion = ({ kind: 'mined' } & Mined) | { kind: 'replaced'; by: string };

/**
 * What the chain says of one recorded transaction: mined; held by the node (`pending`); provably never able to
 * land (`dropped`, with `by`: the mined transaction that took its place, when the proof names one); or unknown to
 * the node (it may land if sent again).
 */
export type TxLookup =
  ({ state: 'mined' } & Mined) | { state: 'pending'; detail?: string } | { state: 'dropped'; by?: string } | { state: 'unknown' };

/** A recorded origin transaction as the store holds it. */
export interface RecordedTx {
  txHash: string;
  rawTx: string;
  /** The write-ahead record of the signed transaction (`SignedOriginTx.request`, read back from the store). */
  request: unknown;
}

/** A deposit for an order found on chain: its transaction and block. */
export interface FoundDeposit {
  txHash: string;
  blockNumber: bigint;
  blockHash: string;
}

/** What the chain shows of deposits for one order: one crediting our wallet, or a proof up to `atBlock` that none exists. */
export type DepositSearch = { kind: 'found'; deposit: FoundDeposit } | { kind: 'none'; atBlock: bigint };

/** The order a deposit search looks for: depository (GET /chains), order id, our wallet and the amount (base units). */
export interface DepositQuery {
  depository: string;
  orderId: string;
  user: string;
  amount: bigint;
}

/** A re-check of a mined transaction against the chain today. */
export type Recheck =
  { kind: 'same'; final: boolean } | ({ kind: 'moved' } & Mined) | { kind: 'removed' } | { kind: 'unknown'; why: string };

/**
 * Who a chain is: its config name, chain id, VM, address and currency forms. Pure, no node call.
 */
export interface ChainIdentity {
  /** Config name (`chains.<name>`). */
  readonly name: string;
  readonly chainId: number;
  readonly vm: AdapterVm;

  /** Null when `address` is a valid wallet address of this VM, else why not (case-sensitive outside EVM). */
  validateAddress(address: string): string | null;
  /** The chain's native currency id (docs/relay-contract.md "Currency"). */
  readonly nativeCurrency: string;
  /** Decimals of the native currency (18 on EVM chains, 9 for SOL, 8 for BTC). */
  readonly nativeDecimals: number;
  /** The form under which two spellings of one currency compare equal (EVM hex: lower case; others: as is). */
  currencyKey(currency: string): string;
}

/**
 * Reading balances and chain facts. Every method that talks to the node throws the node's error (wrapped with the
 * YAML path where it helps); none turns an error into a "not found".
 */
export interface ChainReader {
  /**
   * Checks the node serves this chain and reads every holding at one block.
   * Never throws: a failure of the whole read is `{ ok: false, error }` naming the YAML path.
   */
  readBalances(holdings: readonly Holding[]): Promise<BalancesRead>;
  /**
   * Token decimals read from the chain (ERC-20 `decimals()`, SPL mint). The native currency is not asked.
   * @returns decimals per currency, null where that read failed
   */
  readDecimals(currencies: readonly string[]): Promise<(number | null)[]>;
  /** The chain's head block. @throws the node's error */
  head(): Promise<bigint>;
  /** The block of a destination transaction (a fill), or null when the chain does not have it. @throws on node errors */
  txBlock(txHash: string): Promise<bigint | null>;
}

/**
 * What the verifier and the executor need to know of this chain as an origin: the facts a quote is checked
 * against, the caps on what an origin transaction may pay, and the lead a deadline must leave.
 */
export interface OriginPolicy {
  /**
   * Facts the verifier needs from this origin chain for `quote` (Solana lookup tables; Bitcoin: our outputs,
   * the tip height, the node's fee estimate, and the outpoints `inFlight` already spends).
   *
   * @param inFlight the recorded origin transactions of our transfers still in flight (`prepared`, `broadcast`,
   *   `deposited`) from this chain; only Bitcoin reads them (an input they spend is refused)
   * @throws on node errors
   */
  originFacts(quote: QuoteResponse, user: string, inFlight?: readonly RecordedTx[]): Promise<OriginChainFacts>;
  /** Caps on what an origin transaction on this chain may pay (from `chains.<name>`); unset ones use the defaults. */
  readonly depositLimits: Partial<DepositLimits>;

  /**
   * Seconds that must be left before an order's deadline to start sending `itemsLeft` origin transactions of
   * a transfer of `amountIn` (origin base units) on this chain, so the last one (the deposit) can be mined, reach
   * the depth the fill waits for, and be filled before the deadline. `chains.<name>.minDeadlineLeadSec` (the
   * deposit's own lead) when configured, else the VM default (src/executor/deadlines.ts
   * `defaultLastItemLeadSec`: EVM and Solana 90 s; Bitcoin 600 s × the confirmations `amountIn` needs + 600 s),
   * plus 30 s for each transaction before the deposit. Checked at verification (quotes whose deadline is nearer
   * are refused on `deadline`), before each signature and before a re-broadcast. Pure.
   *
   * @param amountIn the transfer's payment, origin base units (Bitcoin: satoshis, compared with `highValueSats`)
   * @param itemsLeft transactions still to send, the next one included (0 counts as 1)
   * @returns seconds
   */
  minDeadlineLeadSec(amountIn: bigint, itemsLeft: number): number;
}

/**
 * Signing, sending and following our origin transactions. A signed transaction's id is known before broadcast so
 * it can be written ahead; the send itself may leave the outcome unknown (see {@link BroadcastRefusal}).
 */
export interface OriginSender {
  /**
   * What to sign for one verified quote item, read against the chain right before signing: EVM may skip an
   * approval the allowance already covers or put a reset to zero before it.
   */
  planItem(item: PlannedItem, ctx: { wallet: string; user: string; amountIn: bigint }): Promise<PlannedItem[]>;
  /**
   * Signs one planned item with the named wallet. `previous` is the transaction signed just before it in the
   * same transfer (EVM takes the next nonce after it). A check that needs a node's judgement of the transaction
   * (Solana: `simulateTransaction`) runs here, on the unsigned message, before any signature exists.
   * @throws when the item is not ours to sign, cannot be prepared, or its unsigned message would fail or could not
   *   be simulated (nothing was signed or sent)
   */
  sign(wallet: string, item: PlannedItem, previous?: SignedOriginTx): Promise<SignedOriginTx>;
  /**
   * Sends a signed transaction's raw bytes. Signed bytes that reached any node (for a simulation too) may land
   * until they provably cannot, so an error thrown here leaves the outcome unknown: the transfer stays in flight
   * until `lookup` proves it `dropped` or finds it.
   * @throws {@link BroadcastRefusal} only when the call proves, without any node having seen the bytes, that they
   *   were not sent (no adapter throws it today); otherwise the node's answer (the outcome is then unknown)
   */
  broadcast(rawTx: string): Promise<void>;
  /** Whether the node holds the transaction (pending or mined). False on any error. */
  knows(txHash: string): Promise<boolean>;
  /** Waits until the transaction (or one replacing it) is mined. @throws on timeout or node error */
  waitForInclusion(tx: SignedOriginTx | RecordedTx, timeoutMs: number): Promise<Inclusion>;
  /**
   * Re-checks a mined transaction recorded at `recorded` against the chain at `head`: still there (and whether
   * final under the chain's confirmations policy), moved to another block, removed by a reorg, or unknown.
   */
  recheck(
    tx: RecordedTx & { status: 'confirmed' | 'reverted'; blockNumber: bigint; blockHash: string | null; amountIn?: bigint },
    head: bigint,
  ): Promise<Recheck>;
}

/**
 * Proving absence: the money-path contract every adapter keeps (never double-send). A transfer's funds are planned
 * again only once it is proven that no deposit for its order id exists or can still land. `lookup` answers
 * `dropped` only when the transaction provably can never land (EVM: its nonce is used by another transaction;
 * Solana: its blockhash expired on a node that has the slot; Bitcoin: an input is spent by a transaction that is
 * not it, mined at the chain's reorg depth); any error reaching the node throws, and an error proves nothing. A
 * passed order deadline proves nothing on Solana or Bitcoin (a Bitcoin transaction never expires): an unwanted
 * Bitcoin deposit is ended by the `depositCanceller` capability (src/chains/capabilities.ts), a replacement of ours
 * that must be mined first.
 */
export interface AbsenceProver {
  /** What the chain says of a recorded transaction of `user`. @throws on any node error */
  lookup(tx: RecordedTx, user: string): Promise<TxLookup>;
  /** Deposits for an order on this chain. @throws on any node error (then nothing is proven) */
  findDeposit(query: DepositQuery): Promise<DepositSearch>;
}

/**
 * One chain as Ballast uses it: the roles every adapter plays, plus the optional ones in `capabilities`. Every
 * method that talks to the node throws the node's error (wrapped with the YAML path where it helps); none turns an
 * error into a "not found".
 */
export interface ChainAdapter extends ChainIdentity, ChainReader, OriginPolicy, OriginSender, AbsenceProver {
  /** The optional roles this adapter plays. */
  readonly capabilities: ChainCapabilities;
}

/** The EVM transaction request of a `ready` withdrawal job: chain id, the depository, calldata, value in wei. */
export interface WithdrawalTransaction {
  chainId: number;
  to: string;
  data: string;
  value: string;
}

/**
 * What `broadcast` may throw when it refused to send and so proves that nothing was sent by this call: only for
 * a refusal decided in this process before any node saw the bytes (the executor then fails the transfer, and its
 * funds are planned again). A failed simulation of the signed bytes does NOT qualify: a node that simulates a
 * signed transaction holds a valid transaction it (or anyone it passes it to) may forward, and it may land until
 * it provably cannot (Solana: until its blockhash expires; https://solana.com/docs/rpc/http/simulatetransaction).
 * A check by a node therefore runs on the unsigned message, in `sign` (Solana: src/chains/svm/simulate.ts). No
 * adapter throws a refusal today; any broadcast error leaves the outcome unknown. `code` is the adapter's error
 * code.
 */
export interface BroadcastRefusal {
  readonly code: string;
  readonly notSent: true;
}

/** Whether `error` is a {@link BroadcastRefusal} (nothing was sent by the call that threw it). */
export function isBroadcastRefusal(error: unknown): error is BroadcastRefusal {
  return typeof error === 'object' && error !== null && (error as { notSent?: unknown }).notSent === true; // duck-typed: adapters' own classes
}
