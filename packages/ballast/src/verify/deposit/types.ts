/**
 * Contract between the verifier and a per-VM deposit checker (docs/relay-contract.md "Local quote verification" 5–7). Each
 * VM family (EVM now; Solana and Bitcoin later) locates the deposit among the quote's steps, decodes it, and
 * reports the same six rules, so the orchestrator stays VM-agnostic.
 */
import type { Hex } from 'viem';
import type { Chain, QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import type { PaymentFacts } from '../context.ts';
import type { QuoteExpectations, RuleResult, StepItemRef, VerifyRuleId } from '../types.ts';

/** Rules a deposit checker reports, in report order. */
export const DEPOSIT_RULE_IDS = [
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
] as const satisfies readonly VerifyRuleId[];

/** One of {@link DEPOSIT_RULE_IDS}. */
export type DepositRuleId = (typeof DEPOSIT_RULE_IDS)[number];

/** What a deposit checker gets: only facts already taken from our own state or from GET /chains. */
export interface DepositCheckInput {
  quote: QuoteResponse;
  expect: QuoteExpectations;
  /** The order's single input payment (amount in base units). */
  payment: PaymentFacts;
  /** The payment chain from GET /chains. */
  paymentChain: Chain;
  /** The payment chain's depository from GET /chains (never from the quote). */
  depository: string;
  /** The recomputed order id, or null when it could not be computed (then `deposit-id` is skipped). */
  orderId: Hex | null;
  /** Facts read on the origin chain (never from the quote); see {@link OriginChainFacts}. */
  origin: OriginChainFacts;
  /** Caps, defaults filled in. */
  limits: DepositLimits;
}

/**
 * One unspent output of our Bitcoin wallet, as Esplora `/address/:a/utxo` lists it; value in satoshis.
 * `confirmed` is its `status.confirmed`. A deposit spends confirmed outputs only, unless
 * `bvmAllowOwnUnconfirmedInputs`; then an unconfirmed output is spendable when `parentOurs` (every input of the
 * transaction that created it spends our wallet's script, read from `/tx/:txid`: no stranger decides when it
 * confirms) and `parentTracked` (that transaction is a deposit or cancel of ours still in flight, so Ballast
 * itself ends it or sees it mined). Absent means not read (refused).
 */
export interface BitcoinUtxo {
  txid: string;
  vout: number;
  value: bigint;
  confirmed: boolean;
  parentOurs?: boolean;
  parentTracked?: boolean;
}

/**
 * The node's fee estimate for the blocks the order's deadline leaves (Esplora `GET /fee-estimates`:
 * confirmation target in blocks → sat/vB; the largest target at or below `blocksLeft`), or why it could not be
 * read. `blocksLeft` is absent when the estimate was not chosen by a deadline.
 */
export type BitcoinFeeEstimate = { targetBlocks: number; satPerVb: number; blocksLeft?: number } | { problem: string };

/**
 * Facts about the origin chain that a deposit checker needs and the quote must not supply, read by the chain
 * adapter before verification.
 */
export interface OriginChainFacts {
  /**
   * svm: every address lookup table the quote names (`data.addressLookupTableAddresses`), resolved on chain:
   * table address → its addresses, in order. A named table missing here refuses the quote.
   */
  lookupTables?: Readonly<Record<string, readonly string[]>>;
  /** bvm: our wallet's unspent outputs; every PSBT input must spend one of them, at its value. */
  utxos?: readonly BitcoinUtxo[];
  /** bvm: the chain tip's height (`/blocks/tip/height`); a height-based nLockTime must not exceed it. */
  tipHeight?: bigint;
  /**
   * bvm: the node's fee estimate for the blocks the order's deadline leaves, a floor under the PSBT's fee rate
   * (with the configured one).
   */
  feeEstimate?: BitcoinFeeEstimate;
  /**
   * bvm: outpoints (`txid:vout`, txid lower-case hex) that in-flight deposits of ours already spend, from their
   * write-ahead records; a PSBT spending one would replace (or conflict with) our own earlier deposit.
   */
  reservedOutpoints?: readonly string[];
}

/** Caps on what an origin transaction may pay beyond the payment itself. */
export interface DepositLimits {
  /** svm: highest `SetComputeUnitPrice`, micro-lamports per compute unit. */
  svmMaxMicroLamportsPerCu: bigint;
  /** svm: highest `SetComputeUnitLimit`, compute units. */
  svmMaxComputeUnits: number;
  /** bvm: highest fee rate the PSBT may pay, satoshis per virtual byte (BIP-141 vsize). */
  bvmMaxFeeRateSatPerVb: number;
  /** bvm: lowest fee rate the PSBT may pay, sat/vB (raised to the node's estimate for the deadline when read). */
  bvmMinFeeRateSatPerVb: number;
  /** bvm: highest absolute miner fee, satoshis. */
  bvmMaxMinerFeeSats: bigint;
  /** bvm: highest miner fee as a share of the payment amount, basis points (integer). */
  bvmMaxMinerFeeBps: number;
  /** bvm: whether every input must signal BIP-125 replaceability (nSequence ≤ 0xfffffffd). */
  bvmRequireReplaceable: boolean;
  /**
   * bvm: whether an input may spend our own unconfirmed change (of a deposit or cancel of ours in flight); false:
   * confirmed outputs only.
   */
  bvmAllowOwnUnconfirmedInputs: boolean;
}

/**
 * Default {@link DepositLimits}: 1,000,000 micro-lamports (1 lamport) per CU, so at most 0.0014 SOL of priority
 * fee at the protocol's ceiling of 1,400,000 CU; that ceiling; 200 sat/vB at most and 1 sat/vB (Bitcoin Core's
 * default minimum relay fee) at least; a miner fee of at most 100,000 sat and 500 bps of the payment (the
 * public Relay docs' Bitcoin example pays 3,639 sat on 100,000 sat, 364 bps); BIP-125 replaceability required;
 * confirmed inputs only.
 */
export const DEFAULT_DEPOSIT_LIMITS: DepositLimits = {
  svmMaxMicroLamportsPerCu: 1_000_000n,
  svmMaxComputeUnits: 1_400_000,
  bvmMaxFeeRateSatPerVb: 200,
  bvmMinFeeRateSatPerVb: 1,
  bvmMaxMinerFeeSats: 100_000n,
  bvmMaxMinerFeeBps: 500,
  bvmRequireReplaceable: true,
  bvmAllowOwnUnconfirmedInputs: false,
};

/** A deposit checker's report: one result per {@link DepositRuleId}, and where the deposit item is. */
export interface DepositCheckResult {
  depositItem: StepItemRef | null;
  results: Record<DepositRuleId, RuleResult>;
}

/** A per-VM deposit checker. Pure and synchronous; never throws for a bad quote. */
export type DepositVerifier = (input: DepositCheckInput) => DepositCheckResult;
