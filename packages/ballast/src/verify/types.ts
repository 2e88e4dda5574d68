/**
 * Public types of local quote verification (docs/relay-contract.md "Local quote verification" 1–8, plus Ballast's extra
 * rules). Re-exported by `verifyQuote.ts`, the module callers import.
 */
import type { Hex } from 'viem';
import type { ChainsResponse, QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import type { DepositLimits, OriginChainFacts } from './deposit/types.ts';

/**
 * What the caller expects, taken from its own state (config, planner decision), never from the quote.
 * Addresses are compared per VM of the chain they live on: EVM hex case-insensitively, other VMs exactly.
 */
export interface QuoteExpectations {
  /** Our depositing wallet on the origin chain (the `user` sent in the quote request). */
  user: string;
  /** Our destination wallet (the `recipient` sent in the quote request). */
  recipient: string;
  /**
   * The `refundTo` sent in the quote request: our origin wallet (normally `user`). If given, every refund of the
   * order on the payment chain in the payment currency must pay exactly this address, and one must exist
   * (refunds go to `refundTo` on the origin chain:
   * https://docs.relay.link/references/api/api_core_concepts/refunds). Absent (a quote asked for without
   * `refundTo`): one such refund must pay one of our wallets.
   */
  refundTo?: string;
  /** Numeric origin chain id (e.g. 8453); if given, the payment chain must be this chain. */
  originChainId?: number;
  /** If given, the input payment currency must equal it. */
  originCurrency?: string;
  /** If given, the input payment amount must equal it (base units). */
  amount?: bigint;
  /** Numeric destination chain id; if given, the output chain must be this chain. */
  destinationChainId?: number;
  /** If given, every output payment currency must equal it. */
  destinationCurrency?: string;
  /** If given, the guaranteed output (`minimumAmount`) must be at least this (base units). */
  minOut?: bigint;
  /**
   * Our other configured wallets (addresses, any VM): refunds may pay any of these besides `user` and
   * `recipient`. Default: none.
   */
  ourWallets?: readonly string[];
  /**
   * How far ahead of `nowSec` the output and refund deadlines may lie, seconds (default
   * {@link DEFAULT_MAX_DEADLINE_SEC}): an unfilled deposit must not be parked for years.
   */
  maxDeadlineSec?: number;
}

/** Default of {@link QuoteExpectations.maxDeadlineSec}: 24 hours, in seconds. */
export const DEFAULT_MAX_DEADLINE_SEC = 86_400;

/**
 * Input of {@link verifyQuote}. `quote` and `chains` must already be parsed by their zod schemas.
 * `nowSec` is the current unix time in seconds (pass a later time to demand a safety margin before deadlines).
 */
export interface VerifyQuoteInput {
  quote: QuoteResponse;
  chains: ChainsResponse;
  expect: QuoteExpectations;
  nowSec: number;
  /**
   * Facts read on the origin chain before verifying (Solana lookup tables, our Bitcoin outputs); never taken
   * from the quote. Absent facts a VM needs refuse the quote.
   */
  origin?: OriginChainFacts;
  /** Caps on what an origin transaction may pay; defaults {@link DEFAULT_DEPOSIT_LIMITS}. */
  limits?: Partial<DepositLimits>;
}

/**
 * Stable ids of the verification rules, in the order they are reported. Spec section numbers refer to
 * "Local quote verification"; "Ballast" marks rules of our own (docs/errors.md says what each checks).
 * - order and output: `protocol-present` (1), `chain-status`, `recipient` (2), `output-chain` (2),
 *   `output-currency` (2), `min-output` (2), `no-calls-or-fees`, `details-consistency`;
 * - input, refunds, timing: `input-payment` (2), `payment-weight`, `refund-recipient`, `refund-terms`,
 *   `deadline` (2), `deadline-horizon`, `extra-data`;
 * - protocol: `order-id` (3), `depository` (4), `solver`;
 * - steps: `deposit-call` (5), `deposit-id` (6), `depositor` (6), `deposit-kind` (7), `approve`,
 *   `approve-spender`, `approve-needed`, `origin-inputs`, `fee-cap`, `fee-floor`, `miner-fee-cap`,
 *   `rbf-signal`, `locktime`, `tx-size`, `change`,
 *   `no-unexpected-steps`;
 * - `order-signature` (onchain alternative).
 */
export const VERIFY_RULE_IDS = [
  'protocol-present',
  'chain-status',
  'recipient',
  'output-chain',
  'output-currency',
  'min-output',
  'no-calls-or-fees',
  'details-consistency',
  'input-payment',
  'payment-weight',
  'refund-recipient',
  'refund-terms',
  'deadline',
  'deadline-horizon',
  'extra-data',
  'order-id',
  'depository',
  'solver',
  'deposit-call',
  'deposit-id',
  'depositor',
  'deposit-kind',
  'approve',
  'approve-spender',
  'approve-needed',
  'origin-inputs',
  'fee-cap',
  'fee-floor',
  'miner-fee-cap',
  'rbf-signal',
  'locktime',
  'tx-size',
  'change',
  'no-unexpected-steps',
  'order-signature',
] as const;

/** One of {@link VERIFY_RULE_IDS}. */
export type VerifyRuleId = (typeof VERIFY_RULE_IDS)[number];

/** Outcome of one rule. `detail` names the field and, on failure, expected vs actual. */
export interface RuleResult {
  rule: VerifyRuleId;
  ok: boolean;
  detail: string;
}

/** Position of a step item in `quote.steps[stepIndex].items[itemIndex]`. */
export interface StepItemRef {
  stepIndex: number;
  itemIndex: number;
}

/**
 * Result of {@link verifyQuote}: one {@link RuleResult} per rule in {@link VERIFY_RULE_IDS} order.
 * `ok` is true only when every rule is ok. `orderId` is the locally recomputed order id (null when it could
 * not be computed); `depositItem` locates the deposit transaction (null when `deposit-call` failed).
 */
export interface Verdict {
  ok: boolean;
  orderId: Hex | null;
  depositItem: StepItemRef | null;
  rules: RuleResult[];
}
