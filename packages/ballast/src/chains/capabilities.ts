/**
 * The optional roles of a chain adapter ({@link ChainCapabilities}): what only some VMs do, held in the adapter's
 * `capabilities` object, with one typed accessor per role that returns the role or undefined. The per-VM adapter
 * types (src/chains/evm|svm|bvm/adapter.ts) state which roles each VM has, so code holding one needs no check.
 */
import type { ChainAdapter, RecordedTx, SignedOriginTx, WithdrawalTransaction } from './adapter.ts';

/** A cheaper read of the whole native balance than `readBalances` (every VM Ballast has). */
export interface NativeBalanceReader {
  /**
   * The whole native balance of `address` at the node's head, base units (wei, lamports, satoshis: the Relay API's
   * Bitcoin balance, without subtracting `minerFeeReserveSats`): what the signer has to pay gas with.
   * An adapter without it has no cheaper read than `readBalances` of `nativeCurrency`.
   * @throws the node's error
   */
  readNativeBalance(address: string): Promise<bigint>;
}

/** The network fee an origin transaction paid (every VM Ballast has). */
export interface GasMeter {
  /**
   * What one of our transactions cost its sender beyond the amount it paid, native base units: EVM `gasUsed ×
   * effectiveGasPrice` of its receipt (wei); Solana the fee payer's balance fall (`preBalances[0] −
   * postBalances[0]`: `meta.fee` plus the rent of accounts it created) less a native deposit's amount
   * (lamports, src/chains/svm/networkCost.ts); Bitcoin inputs − outputs (satoshis).
   * @returns null when the chain does not have it (yet). @throws on node errors
   */
  gasPaid(txHash: string): Promise<bigint | null>;
}

/** A stall threshold stated in blocks (Bitcoin). */
export interface StallPolicy {
  /**
   * Blocks after its deposit's block at which a transfer of `amountIn` (base units) whose request is not final
   * counts as stalled, for chains whose policy is stated in blocks (Bitcoin: docs/relay-contract.md "Limits", 2 to 3
   * blocks, 3 to 4 for high value). Adapters without this role leave only `tracking.stalledAfterSec`.
   */
  stalledAfterBlocks(amountIn: bigint): number;
}

/**
 * A cancel signed by {@link DepositCanceller.cancel}: the transaction to write ahead and send, its miner fee
 * (satoshis) and whether the fee the market asked for was above the cancel caps, so the cancel pays the cap
 * (`capped`: it may stay unmined; the transfer is flagged for an operator).
 */
export interface SignedCancel {
  signed: SignedOriginTx;
  feeSat: bigint;
  /** The fee the market and BIP-125 asked for; above `feeSat` when `capped`. */
  wantedSat: bigint;
  capped: boolean;
}

/**
 * What {@link DepositCanceller.cancel} did: signed a cancel; found no cancel possible within the caps (`atCap`,
 * nothing signed, with why); or found the deposit's end decided by an unmined parent of ours (`waitsForParent`,
 * nothing signed: the parent's own cancel or confirmation decides, and a dead parent proves the deposit dead).
 */
export type CancelResult =
  ({ kind: 'signed' } & SignedCancel) | { kind: 'atCap'; detail: string } | { kind: 'waitsForParent'; detail: string };

/** How the node answered a cancel sent to it: accepted into its mempool, or refused with its reason. */
export type CancelSendResult = { accepted: true } | { accepted: false; reason: string };

/**
 * Ending an unmined deposit of ours for good where a passed deadline cannot (Bitcoin). Part of the money-path
 * contract of {@link AbsenceProver}: the cancel must be mined at the reorg depth before `lookup` says `dropped`.
 */
export interface DepositCanceller {
  /**
   * Signs a transaction that ends an unmined deposit of ours for good: it spends every input of `tx` back to
   * `user`'s own address, signalling replaceability itself, at a fee that replaces the deposit and every cancel
   * signed before it (`earlier`) in any mempool (BIP-125 rules 3, 4 and 6, descendants counted) and that the
   * market asks to confirm within one or two blocks, within the cancel caps (Bitcoin: `maxCancelFeeSats`,
   * `maxFeeRateSatPerVb`). A re-priced cancel also pays at least 1.5 × the last one, so re-pricing reaches the
   * cap in a bounded number of steps. Once a cancel is mined at the reorg depth, `lookup` of `tx` answers
   * `dropped`. Like `sign`, the result is written ahead and then sent with {@link send}. Present only where a
   * passed deadline cannot end a transaction (Bitcoin).
   *
   * @param user the depositing wallet's address (the transfer's `user`)
   * @param earlier the cancels of `tx` signed before, oldest first
   * @throws when `user` is not one of this chain's signers, an input cannot be read, or what is left after
   *   the fee would be dust (nothing was signed)
   */
  cancel(user: string, tx: RecordedTx, earlier: readonly RecordedTx[]): Promise<CancelResult>;
  /**
   * Sends a signed cancel. @returns accepted, or refused with the node's reason (BIP-125 rules, the mempool's
   * minimum fee)
   * @throws when the node could not be asked (the outcome is unknown)
   */
  send(rawTx: string): Promise<CancelSendResult>;
  /**
   * Whether a cancel still unmined is due to be re-priced: `cancelRepriceAfterBlocks` blocks have passed since it
   * was signed. @throws on node errors
   */
  repriceDue(cancel: RecordedTx): Promise<boolean>;
}

/** Signing withdrawal-request digests as a deposit owner (EVM, Solana). */
export interface WithdrawalSigner {
  /**
   * Signs the digest of a withdrawal request (docs/relay-contract.md "Withdrawal endpoints", Signing; digest from
   * src/protocol/withdrawalDigest.ts) with the named wallet, the deposit's owner. EVM: EIP-191 personal message
   * over the raw 32 digest bytes; Solana: ed25519 over the UTF-8 bytes of the 64-character hex digest. Absent
   * where the API accepts no withdrawal from owners of this VM (Bitcoin).
   *
   * @param digestHex 64 hex digits, no 0x
   * @returns the signature, 0x-prefixed hex
   * @throws when the wallet is not one of this VM's signers or the digest is malformed (nothing was sent)
   */
  signWithdrawalDigest(wallet: string, digestHex: string): Promise<string>;
}

/** Signing the transaction a `ready` withdrawal job hands the owner (EVM). */
export interface WithdrawalTxSigner {
  /**
   * Signs the transaction a `ready` withdrawal job hands the owner (docs/relay-contract.md "Withdrawal job status"), already
   * verified by src/verify/withdrawalTx.ts, with the named wallet paying the gas. Like `sign`, the result is
   * written ahead and then sent with `broadcast`. Absent where this VM's ready transactions are not broadcast by
   * Ballast.
   *
   * @throws when the wallet is not ours, the chain id is not this chain's or the call would revert (nothing was sent)
   */
  signWithdrawalTransaction(wallet: string, tx: WithdrawalTransaction): Promise<SignedOriginTx>;
}

/** One ERC-20 allowance to read: token, owner and spender addresses (EVM hex). */
export interface AllowanceQuery {
  token: `0x${string}`;
  owner: `0x${string}`;
  spender: `0x${string}`;
}

/** One allowance read: base units, or null and the error of that read. */
export interface AllowanceResult {
  amount: bigint | null;
  error?: string;
}

/** Reading ERC-20 allowances for the allowance audit (EVM). */
export interface AllowanceReader {
  /** ERC-20 allowances (owner → spender) in one multicall; base units or the error of that read. */
  readAllowances(queries: readonly AllowanceQuery[]): Promise<AllowanceResult[]>;
}

/**
 * Where an unmined transaction of ours stands in its sender's nonce order (EVM): the sender's mined transaction
 * count (`latest`) and the transaction's own nonce, when the first is below the second. The nonces between are
 * free: the transaction, or a replacement of it signed elsewhere (an operator's speed-up), can only be mined once
 * something takes each of them, and may wait in a pool behind them for ever (EIP-2718 nonces are used in order).
 */
export interface NonceGap {
  /** The sender's count of mined transactions: the first free nonce. */
  mined: number;
  /** The transaction's nonce (above `mined`). */
  nonce: number;
}

/** Reading the nonce order of recorded transactions (EVM). */
export interface NonceOrder {
  /** The nonce the write-ahead record of `tx` holds, or undefined when it holds none. */
  nonceOf(tx: RecordedTx): number | undefined;
  /**
   * The free nonces below `tx`'s (see {@link NonceGap}), or null when there are none (or its record holds no
   * nonce). @throws on node errors (nothing is proven)
   */
  gapBelow(tx: RecordedTx, user: string): Promise<NonceGap | null>;
}

/**
 * The optional roles of an adapter, each present only where the VM has it. Read them with the accessors below
 * ({@link nativeBalanceReaderOf}, ...), never by probing the adapter's members.
 */
export interface ChainCapabilities {
  readonly nativeBalanceReader?: NativeBalanceReader;
  readonly gasMeter?: GasMeter;
  readonly stallPolicy?: StallPolicy;
  readonly depositCanceller?: DepositCanceller;
  readonly withdrawalSigner?: WithdrawalSigner;
  readonly withdrawalTxSigner?: WithdrawalTxSigner;
  readonly allowanceReader?: AllowanceReader;
  readonly nonceOrder?: NonceOrder;
}

/** The adapter's {@link NativeBalanceReader}, or undefined where it has none. */
export function nativeBalanceReaderOf(adapter: ChainAdapter): NativeBalanceReader | undefined {
  return adapter.capabilities.nativeBalanceReader;
}

/** The adapter's {@link GasMeter}, or undefined where it has none. */
export function gasMeterOf(adapter: ChainAdapter): GasMeter | undefined {
  return adapter.capabilities.gasMeter;
}

/** The adapter's {@link StallPolicy}, or undefined where only `tracking.stalledAfterSec` applies. */
export function stallPolicyOf(adapter: ChainAdapter): StallPolicy | undefined {
  return adapter.capabilities.stallPolicy;
}

/** The adapter's {@link DepositCanceller}, or undefined where a passed deadline ends a transaction. */
export function depositCancellerOf(adapter: ChainAdapter): DepositCanceller | undefined {
  return adapter.capabilities.depositCanceller;
}

/** The adapter's {@link WithdrawalSigner}, or undefined where the API accepts no withdrawal from its owners. */
export function withdrawalSignerOf(adapter: ChainAdapter): WithdrawalSigner | undefined {
  return adapter.capabilities.withdrawalSigner;
}

/** The adapter's {@link WithdrawalTxSigner}, or undefined where Ballast does not broadcast ready transactions. */
export function withdrawalTxSignerOf(adapter: ChainAdapter): WithdrawalTxSigner | undefined {
  return adapter.capabilities.withdrawalTxSigner;
}

/** The adapter's {@link NonceOrder}, or undefined where transactions are not ordered by a sender nonce (outside EVM). */
export function nonceOrderOf(adapter: ChainAdapter): NonceOrder | undefined {
  return adapter.capabilities.nonceOrder;
}

/** The adapter's {@link AllowanceReader}, or undefined outside EVM. */
export function allowanceReaderOf(adapter: ChainAdapter): AllowanceReader | undefined {
  return adapter.capabilities.allowanceReader;
}
