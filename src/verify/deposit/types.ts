/**
 * Contract between the verifier and a per-VM deposit checker (spec "Local quote verification" 5–7). Each VM
 * family (EVM now; Solana and Bitcoin later) locates the deposit among the quote's steps, decodes it, and
 * reports the same six rules, so the orchestrator stays VM-agnostic.
 */
import type { Hex } from 'viem';
import type { Chain, QuoteResponse } from '../../relay/schemas.ts';
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
}

/** A deposit checker's report: one result per {@link DepositRuleId}, and where the deposit item is. */
export interface DepositCheckResult {
  depositItem: StepItemRef | null;
  results: Record<DepositRuleId, RuleResult>;
}

/** A per-VM deposit checker. Pure and synchronous; never throws for a bad quote. */
export type DepositVerifier = (input: DepositCheckInput) => DepositCheckResult;
